//! A socket link's two threads: the writer sends what the endpoint queues
//! (gathering a round's messages into few writes, holding them back under
//! link emulation, sending liveness frames whenever it has nothing to
//! write) and ends with the endpoint's goodbye or abort; the reader turns
//! the peer's frames into messages or the error that names it.

use super::alarm::Alarm;
use super::error::NetError;
use super::link::{
    is_disconnect, write_error, Delivery, Ending, Inbound, InboxBudget, LinkLimits, LinkParts,
    Outbound, Outgoing, Shutdown, SocketWriter,
};
use crate::frame::{
    abort_frame, goodbye_frame, live_frame, read_frame_direct, FrameError, FrameWriter, WriteNow,
};
use crate::liveness::{Heard, Liveness, LIVENESS_EVERY};
use crate::waits::Board;
use crate::PartyId;
use std::io::{BufReader, Read};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// Starts the writer and reader threads of a socket link to `peer`, in a
/// run of `parties` parties.
pub(crate) fn stream_link(
    peer: PartyId,
    parties: usize,
    reader: impl Read + Send + 'static,
    writer: impl WriteNow + 'static,
    shutdown: Shutdown,
    (alarm, board): (Arc<Alarm>, Arc<Board>),
    limits: LinkLimits,
) -> std::io::Result<LinkParts> {
    let (queue, outgoing) = mpsc::channel::<Outgoing>();
    let failure = Arc::new(Mutex::new(None));
    let failed = failure.clone();
    let reports = board.clone();
    let socket_writer = Arc::new(SocketWriter {
        frames: Mutex::new(FrameWriter::new(
            Box::new(writer) as Box<dyn WriteNow>,
            limits.buffer_bytes,
        )),
        queued: AtomicUsize::new(0),
        ended: AtomicBool::new(false),
    });
    let shared_writer = socket_writer.clone();
    let writer = std::thread::Builder::new()
        .name(format!("huddle-send-{peer}"))
        .spawn(move || {
            if let Err(e) = write_loop(&shared_writer, &outgoing, &reports) {
                if let Ok(mut f) = failed.lock() {
                    *f = Some(write_error(peer, &e));
                }
            }
        })?;
    let (deliver, inbox) = mpsc::channel::<Inbound>();
    let close_on_error = shutdown.clone();
    let budget = Arc::new(InboxBudget::new(limits.inbox_bytes));
    let max_message = Arc::new(AtomicUsize::new(limits.max_message));
    let (queued, max) = (budget.clone(), max_message.clone());
    let liveness = Liveness::new();
    let heard = Heard {
        inner: reader,
        liveness: liveness.clone(),
    };
    let reader = std::thread::Builder::new()
        .name(format!("huddle-recv-{peer}"))
        .spawn(move || {
            // Large payloads bypass it (see `read_frame_direct`).
            let mut r = BufReader::with_capacity(
                limits.buffer_bytes.min(crate::frame::DIRECT_BYTES),
                heard,
            );
            loop {
                if !queued.wait_for_room() {
                    break; // the endpoint is closing
                }
                let max_message = max.load(Ordering::Relaxed);
                let heard = &mut |report: &[u8]| board.heard(peer, report);
                let item = match read_frame_direct(&mut r, max_message, heard) {
                    Ok(data) => Ok(Delivery {
                        data,
                        visible_at: None,
                    }),
                    Err(FrameError::Goodbye) => Err(NetError::Departed { peer }),
                    // The peer's own failure: with its reason, or none (a panic).
                    Err(FrameError::Abort { culprit, reason }) if culprit as usize == peer => {
                        Err(match reason.is_empty() {
                            true => NetError::Disconnected { peer },
                            false => NetError::Stopped { peer, reason },
                        })
                    }
                    // The culprit is the sender's claim: one naming no party
                    // of the run is blamed on the sender itself.
                    Err(FrameError::Abort { culprit, .. }) if culprit as usize >= parties => {
                        Err(NetError::Link {
                            peer,
                            cause: format!(
                                "an abort naming party {culprit}, not in a run of {parties} parties"
                            ),
                        })
                    }
                    Err(FrameError::Abort { culprit, reason }) => Err(NetError::Aborted {
                        culprit: culprit as usize,
                        reporter: peer,
                        reason,
                    }),
                    Err(FrameError::UnknownControl(c)) => Err(NetError::Link {
                        peer,
                        cause: format!("unknown control frame {c:#x}"),
                    }),
                    Err(FrameError::BadControl(cause)) => Err(NetError::Link { peer, cause }),
                    Err(FrameError::Closed) => Err(NetError::Disconnected { peer }),
                    Err(FrameError::Truncated) => Err(NetError::Truncated { peer }),
                    Err(FrameError::Oversized(len)) => Err(NetError::Oversized {
                        peer,
                        len,
                        max: max_message,
                    }),
                    Err(FrameError::Io(e)) if is_disconnect(&e) => {
                        Err(NetError::Disconnected { peer })
                    }
                    Err(FrameError::Io(e)) => Err(NetError::Link {
                        peer,
                        cause: e.to_string(),
                    }),
                };
                let last = item.is_err();
                // A goodbye ends only the peer's side: ours may still be
                // writing its last frames (see `Network::finish`).
                let goodbye = matches!(item, Err(NetError::Departed { .. }));
                if let Ok(d) = &item {
                    queued.add(d.data.len());
                }
                if let Err(e) = &item {
                    if !matches!(e, NetError::Departed { .. }) {
                        alarm.raise(e.clone());
                    }
                }
                if deliver.send(item).is_err() || last {
                    // Nobody reads this link any more: close it, so the peer
                    // notices at once instead of blocking on a full socket.
                    if !goodbye {
                        close_on_error();
                    }
                    break;
                }
            }
        })?;
    Ok(LinkParts {
        out: Outbound::Writer {
            queue,
            failure,
            writer: socket_writer,
        },
        peer_alarm: None,
        inbox,
        writer: Some(writer),
        reader: Some(reader),
        shutdown: Some(shutdown),
        inbox_bytes: Some(budget),
        max_message: Some(max_message),
        liveness: Some(liveness),
    })
}

/// A link's frames, locked for the writer thread.
fn lock(w: &SocketWriter) -> std::io::Result<MutexGuard<'_, FrameWriter<Box<dyn WriteNow>>>> {
    w.frames
        .lock()
        .map_err(|_| std::io::Error::other("the link's writer was poisoned by a panic"))
}

/// Writes queued messages, flushing whenever the queue runs dry so that a
/// round's messages leave in as few writes as possible; ends with the
/// endpoint's goodbye or abort frame. Whenever it has had nothing to write
/// for [`LIVENESS_EVERY`] (the queue idle, or a message held back by link
/// emulation), it writes a liveness frame. The lock on the frames is held
/// only while writing, so the protocol thread can write in between.
fn write_loop(
    writer: &SocketWriter,
    queue: &Receiver<Outgoing>,
    board: &Board,
) -> std::io::Result<()> {
    let mut next = next_or_live(writer, queue, board)?;
    while let Some(item) = next.take() {
        match item {
            Outgoing::Message(d) => {
                if let Some(at) = d.visible_at {
                    hold_until(writer, at, board)?;
                }
                lock(writer)?.frame(&d.data)?;
                writer.queued.fetch_sub(1, Ordering::AcqRel);
                crate::pool::recycle(d.data);
            }
            Outgoing::Flush => {
                lock(writer)?.flush()?;
                writer.queued.fetch_sub(1, Ordering::AcqRel);
            }
            Outgoing::End(ending) => {
                let mut w = lock(writer)?;
                w.control(&match ending {
                    Ending::Goodbye => goodbye_frame().to_vec(),
                    Ending::Abort { culprit, reason } => abort_frame(culprit as u32, &reason),
                });
                writer.ended.store(true, Ordering::Release);
                break;
            }
        }
        next = match queue.try_recv() {
            Ok(item) => Some(item),
            Err(TryRecvError::Empty) => {
                lock(writer)?.flush()?;
                next_or_live(writer, queue, board)?
            }
            Err(TryRecvError::Disconnected) => None,
        };
    }
    lock(writer)?.flush()
}

/// The next item of `queue`, sending a liveness frame every
/// [`LIVENESS_EVERY`] until it comes; `None` once the queue is closed.
/// Everything written has left: the frames say the writer is idle.
fn next_or_live(
    writer: &SocketWriter,
    queue: &Receiver<Outgoing>,
    board: &Board,
) -> std::io::Result<Option<Outgoing>> {
    loop {
        match queue.recv_timeout(LIVENESS_EVERY) {
            Ok(item) => return Ok(Some(item)),
            Err(RecvTimeoutError::Timeout) => {
                let mut w = lock(writer)?;
                w.control(&live_frame(&board.report(true)));
                w.flush()?;
            }
            Err(RecvTimeoutError::Disconnected) => return Ok(None),
        }
    }
}

/// Link emulation: waits until `at`, when the next message becomes
/// visible, sending liveness frames meanwhile (they are not shaped, and say
/// the writer is not idle: a message is on its way).
fn hold_until(writer: &SocketWriter, at: Instant, board: &Board) -> std::io::Result<()> {
    let mut now = Instant::now();
    if at > now {
        lock(writer)?.flush()?;
    }
    while at > now {
        std::thread::sleep((at - now).min(LIVENESS_EVERY));
        now = Instant::now();
        if at > now {
            let mut w = lock(writer)?;
            w.control(&live_frame(&board.report(false)));
            w.flush()?;
        }
    }
    Ok(())
}
