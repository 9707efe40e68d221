//! One link of an endpoint: how a message leaves for the peer (straight
//! into its queue in memory, to the link's writer thread on sockets), the
//! inbox it arrives in, the budget that bounds what a peer can make a party
//! queue, and the sizes a socket link works with.

use super::alarm::Alarm;
use super::error::NetError;
use crate::frame::{FrameWriter, WriteNow, DIRECT_BYTES};
use crate::liveness::Liveness;
use crate::profile::Shaper;
use crate::waits::Board;
use crate::PartyId;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

/// A message on its way to a receiver, visible from `visible_at` (link emulation).
pub(crate) struct Delivery {
    pub(crate) data: Vec<u8>,
    pub(crate) visible_at: Option<Instant>,
}

pub(crate) type Inbound = Result<Delivery, NetError>;

/// What a socket link's writer thread is asked to do.
pub(crate) enum Outgoing {
    Message(Delivery),
    /// Finish writing what the protocol thread's own write left behind.
    Flush,
    /// The endpoint is closing: the last frame to write, then stop.
    End(Ending),
}

/// How an endpoint leaves, decided once when it is dropped.
#[derive(Clone)]
pub(crate) enum Ending {
    /// Finished normally.
    Goodbye,
    /// Stopped because `culprit` failed (this party itself after a panic
    /// or a failure of its own), for `reason` (see [`NetError::told_to_peers`]).
    Abort { culprit: PartyId, reason: Arc<str> },
}

/// A socket link's writing end, shared by its writer thread and the
/// protocol thread: a small message leaves from the protocol thread itself
/// when nothing is queued before it (a hop to the writer thread costs a
/// wake-up, as long as a LAN round trip).
pub(crate) struct SocketWriter {
    pub(crate) frames: Mutex<FrameWriter<Box<dyn WriteNow>>>,
    /// Items handed to the writer thread and not yet framed by it: while
    /// any is, later messages queue behind it, so they leave in order.
    pub(crate) queued: AtomicUsize,
    /// The writer thread wrote the last frame (a goodbye or an abort).
    pub(crate) ended: AtomicBool,
}

#[derive(Clone)]
pub(crate) enum Outbound {
    /// In-memory: straight into the peer's queue.
    Direct(Sender<Inbound>),
    /// Sockets: written at once where that cannot block, else by this
    /// link's writer thread.
    Writer {
        queue: Sender<Outgoing>,
        failure: Arc<Mutex<Option<NetError>>>,
        writer: Arc<SocketWriter>,
    },
}

impl Outbound {
    /// Hands `delivery` to the peer's queue or the link's socket.
    pub(crate) fn deliver(&self, to: PartyId, delivery: Delivery) -> Result<(), NetError> {
        match self {
            Outbound::Direct(tx) => tx
                .send(Ok(delivery))
                .map_err(|_| NetError::Disconnected { peer: to }),
            Outbound::Writer {
                queue,
                failure,
                writer,
            } => {
                if let Some(e) = failure.lock().ok().and_then(|f| f.clone()) {
                    return Err(e);
                }
                let gone = |_| NetError::Disconnected { peer: to };
                let to_thread = |d: Delivery| {
                    writer.queued.fetch_add(1, Ordering::AcqRel);
                    queue.send(Outgoing::Message(d)).map_err(gone)
                };
                if delivery.visible_at.is_some() || delivery.data.len() >= DIRECT_BYTES {
                    return to_thread(delivery);
                }
                // The writer thread busy (a large write, a liveness frame) or
                // holding messages of ours: queue behind them.
                let frames = (writer.frames.try_lock().ok())
                    .filter(|_| writer.queued.load(Ordering::Acquire) == 0);
                let Some(mut frames) = frames else {
                    return to_thread(delivery);
                };
                // Nothing may follow the last frame (a goodbye or an abort).
                if writer.ended.load(Ordering::Acquire) {
                    return Err(NetError::Disconnected { peer: to });
                }
                match frames.frame_now(&delivery.data) {
                    Ok(true) => {}
                    Ok(false) => {
                        writer.queued.fetch_add(1, Ordering::AcqRel);
                        drop(frames);
                        queue.send(Outgoing::Flush).map_err(gone)?;
                    }
                    Err(e) => {
                        let e = write_error(to, &e);
                        if let Ok(mut f) = failure.lock() {
                            f.get_or_insert(e.clone());
                        }
                        return Err(e);
                    }
                }
                crate::pool::recycle(delivery.data);
                Ok(())
            }
        }
    }
}

/// A failed write to `peer`, named as the reader names a failed read.
pub(super) fn write_error(peer: PartyId, e: &std::io::Error) -> NetError {
    match is_disconnect(e) {
        true => NetError::Disconnected { peer },
        false => NetError::Link {
            peer,
            cause: e.to_string(),
        },
    }
}

pub(super) fn is_disconnect(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof
    )
}

/// What every link of a party shares: its alarm and its board of waits.
pub(crate) type Shared = (Arc<Alarm>, Arc<Board>);

pub(crate) struct Link {
    pub(crate) out: Option<Outbound>,
    /// In memory: the peer's alarm, raised if this party's thread panics.
    pub(super) peer_alarm: Option<Arc<Alarm>>,
    pub(crate) inbox: Receiver<Inbound>,
    /// Shared with the lanes of a split run (see [`crate::split`]).
    pub(crate) shaper: Arc<Mutex<Shaper>>,
    /// A burst of sends is open on this link (it ends at our next receive).
    pub(super) sending: bool,
    pub(super) writer: Option<JoinHandle<()>>,
    pub(super) reader: Option<JoinHandle<()>>,
    /// Closes the socket, which unblocks both threads.
    pub(super) shutdown: Option<Shutdown>,
    /// Socket links: what the reader has queued and this party not yet taken.
    pub(crate) inbox_bytes: Option<Arc<InboxBudget>>,
    /// Socket links: the largest frame the reader accepts (see `set_max_message`).
    pub(super) max_message: Option<Arc<AtomicUsize>>,
    /// Socket links: when the peer's last byte arrived.
    pub(crate) liveness: Option<Arc<Liveness>>,
}

/// The bytes a socket link's reader thread has queued that the protocol has
/// not taken yet. Above the budget the reader stops reading the socket, so
/// TCP's flow control holds the sender back: a peer cannot make a party
/// buffer more than the budget plus one message, however much it sends.
pub(crate) struct InboxBudget {
    pub(crate) budget: usize,
    pub(super) queued: Mutex<usize>,
    changed: Condvar,
    closed: AtomicBool,
}

impl InboxBudget {
    pub(super) fn new(budget: usize) -> InboxBudget {
        InboxBudget {
            budget,
            queued: Mutex::new(0),
            changed: Condvar::new(),
            closed: AtomicBool::new(false),
        }
    }

    /// Waits until fewer than the budget's bytes are queued; false once the link closes.
    pub(super) fn wait_for_room(&self) -> bool {
        let Ok(mut queued) = self.queued.lock() else {
            return false;
        };
        while *queued >= self.budget && !self.closed.load(Ordering::Acquire) {
            queued = match self.changed.wait(queued) {
                Ok(q) => q,
                Err(_) => return false,
            };
        }
        !self.closed.load(Ordering::Acquire)
    }

    pub(super) fn add(&self, bytes: usize) {
        if let Ok(mut q) = self.queued.lock() {
            *q += bytes;
        }
    }

    pub(crate) fn take(&self, bytes: usize) {
        let Ok(mut q) = self.queued.lock() else {
            return;
        };
        let was_full = *q >= self.budget;
        *q = q.saturating_sub(bytes);
        // The reader waits only while the inbox is full: wake it (a system
        // call) only when this receive made room, not on every message.
        if was_full && *q < self.budget {
            self.changed.notify_all();
        }
    }

    pub(super) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        // Taking the lock orders the flag before a waiter's next check.
        drop(self.queued.lock());
        self.changed.notify_all();
    }
}

/// Closes a link's socket; shared by the reader thread and `Network::drop`.
pub(crate) type Shutdown = Arc<dyn Fn() + Send + Sync>;

/// Hands a message over once link emulation makes it visible.
pub(crate) fn deliver(d: Delivery) -> Vec<u8> {
    if let Some(at) = d.visible_at {
        let now = Instant::now();
        if at > now {
            std::thread::sleep(at - now);
        }
    }
    d.data
}

/// When a message of `len` bytes (trailer included) becomes visible at the
/// receiver under link emulation (its frame header counted too).
pub(crate) fn shape(shaper: &Mutex<Shaper>, len: usize) -> Option<Instant> {
    shaper.lock().ok().and_then(|mut s| s.visible_at(len + 4))
}

/// Per-link sizes of a socket transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkLimits {
    /// The largest incoming message accepted; a larger frame is an error.
    /// Protocols that know their largest message lower it with
    /// [`Network::set_max_message`](crate::Network::set_max_message).
    pub max_message: usize,
    /// Small frames a link gathers into one write; its read buffer is
    /// this or 64 KiB, whichever is less (larger payloads bypass both).
    pub buffer_bytes: usize,
    /// Received bytes a link queues ahead of the protocol before it stops
    /// reading from the socket (at most this plus one message is held).
    pub inbox_bytes: usize,
}

impl Default for LinkLimits {
    fn default() -> Self {
        LinkLimits {
            max_message: 1 << 30,
            buffer_bytes: 1 << 20,
            inbox_bytes: 64 << 20,
        }
    }
}

/// The pieces of one link before it joins a `Network`.
pub(crate) struct LinkParts {
    pub(super) out: Outbound,
    pub(super) peer_alarm: Option<Arc<Alarm>>,
    pub(super) inbox: Receiver<Inbound>,
    pub(super) writer: Option<JoinHandle<()>>,
    pub(super) reader: Option<JoinHandle<()>>,
    pub(super) shutdown: Option<Shutdown>,
    pub(super) inbox_bytes: Option<Arc<InboxBudget>>,
    pub(super) max_message: Option<Arc<AtomicUsize>>,
    pub(super) liveness: Option<Arc<Liveness>>,
}
