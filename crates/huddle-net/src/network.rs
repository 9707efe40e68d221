//! A party's endpoint: one link per peer, each with its own sender and
//! receiver (threads for socket transports), exact-size receives with a
//! timeout, accounting and link emulation.

use crate::accounting::{Accounting, Phase};
use crate::frame::{
    abort_frame, goodbye_frame, live_frame, read_frame_direct, FrameError, FrameWriter,
};
use crate::liveness::{Heard, Liveness, LIVENESS_EVERY};
use crate::profile::{NetProfile, Shaper};
use crate::waits::Board;
use crate::PartyId;
use std::io::{BufReader, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What went wrong on the network; always names the peer involved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetError {
    #[error("party {peer} disconnected")]
    Disconnected { peer: PartyId },
    #[error("party {peer} has finished and left the run")]
    Departed { peer: PartyId },
    #[error("party {culprit} failed (reported by party {reporter}, which stopped){}", because(.reason))]
    Aborted {
        culprit: PartyId,
        reporter: PartyId,
        /// Why, as the reporter tells it (peer text: printed, never trusted).
        reason: String,
    },
    /// The peer stopped because of a failure of its own, and said why.
    #[error("party {peer} stopped: {reason}")]
    Stopped { peer: PartyId, reason: String },
    /// The peer refused before the handshake: it cannot run. Unauthenticated,
    /// so it only ends the wait for the peer (see [`crate::refusal`]).
    #[error("{}", refusal_text(*.peer, *.reporter, .reason, .seen))]
    Refused {
        peer: PartyId,
        /// Who sent the refusal: `peer` itself, or a party passing it on.
        reporter: PartyId,
        reason: String,
        /// What this party saw of `peer` itself (e.g. a failed TLS handshake), if anything.
        seen: String,
    },
    /// Sockets: no byte (not even a liveness frame) came from the peer for
    /// the idle timeout while this party waited on it.
    #[error("party {peer} sent nothing for {idle:?} while awaited, not even a liveness frame: it stalled, its host froze or the network to it is cut (see --idle-timeout)")]
    Silent { peer: PartyId, idle: Duration },
    /// Sockets: this party (`cycle[0]`) waits on `peer`, which waits on
    /// the next party of `cycle`, and so on back to this one, each with
    /// nothing on its way: nobody can ever send (a message was withheld or
    /// lost).
    #[error("parties {} each wait on the next with nothing on its way: party {peer} will never send what party {} waits for (a message was withheld or lost)", cycle_text(.cycle), .cycle.first().copied().unwrap_or(*.peer))]
    Deadlock { peer: PartyId, cycle: Vec<PartyId> },
    #[error("party {peer} disconnected in the middle of a message")]
    Truncated { peer: PartyId },
    /// In memory only (parties as threads of one process, no liveness).
    #[error("no message from party {peer} within {timeout:?}; it may have stalled or crashed")]
    Timeout { peer: PartyId, timeout: Duration },
    #[error("party {peer} sent a {got}-byte message where {expected} bytes were expected")]
    UnexpectedLength {
        peer: PartyId,
        expected: usize,
        got: usize,
    },
    #[error("party {peer} sent a {len}-byte frame, above the limit of {max} bytes")]
    Oversized { peer: PartyId, len: u64, max: usize },
    #[error("the link to party {peer} failed: {cause}")]
    Link { peer: PartyId, cause: String },
    #[error("party {peer} is not a peer of party {me} in a run of {parties} parties")]
    UnknownPeer {
        peer: PartyId,
        me: PartyId,
        parties: usize,
    },
    #[error("connection setup failed: {0}")]
    Setup(String),
    /// The parties disagree on the run (settings, circuit, session, party
    /// count, hello version): found at connect, before anything was sent.
    #[error("{0}")]
    Mismatch(String),
    /// This party was interrupted (see [`Interrupter`]); the cause.
    #[error("{0}")]
    Interrupted(String),
}

impl NetError {
    /// The party whose failure this is, if one is to blame.
    pub fn culprit(&self) -> Option<PartyId> {
        match self {
            NetError::Disconnected { peer }
            | NetError::Departed { peer }
            | NetError::Truncated { peer }
            | NetError::Timeout { peer, .. }
            | NetError::Silent { peer, .. }
            | NetError::Deadlock { peer, .. }
            | NetError::Stopped { peer, .. }
            | NetError::Refused { peer, .. }
            | NetError::UnexpectedLength { peer, .. }
            | NetError::Oversized { peer, .. }
            | NetError::Link { peer, .. } => Some(*peer),
            NetError::Aborted { culprit, .. } => Some(*culprit),
            NetError::UnknownPeer { .. }
            | NetError::Setup(_)
            | NetError::Mismatch(_)
            | NetError::Interrupted(_) => None,
        }
    }

    /// What this party's abort tells its peers about this failure: the
    /// culprit's own reason or the reporter's, passed on; a first-hand
    /// account of a peer's failure; nothing about its own (a panic).
    pub(crate) fn told_to_peers(&self) -> String {
        match self {
            NetError::Aborted { reason, .. } | NetError::Stopped { reason, .. } => reason.clone(),
            e if e.culprit().is_some() => e.to_string(),
            _ => String::new(),
        }
    }
}

fn cycle_text(cycle: &[PartyId]) -> String {
    let mut names: Vec<String> = cycle.iter().map(|p| p.to_string()).collect();
    names.extend(cycle.first().map(|p| p.to_string()));
    names.join(" → ")
}

fn because(reason: &str) -> String {
    if reason.is_empty() {
        String::new()
    } else {
        format!(": {reason}")
    }
}

fn refusal_text(peer: PartyId, reporter: PartyId, reason: &str, seen: &str) -> String {
    let whose = if reporter == peer {
        format!("party {peer} said so")
    } else {
        format!("party {reporter} passed it on")
    };
    let seen = if seen.is_empty() {
        String::new()
    } else {
        format!("; seen here: {seen}")
    };
    format!("party {peer} cannot run: {reason} (unverified: {whose} before authentication){seen}")
}

/// A message on its way to a receiver, visible from `visible_at` (link emulation).
pub(crate) struct Delivery {
    pub(crate) data: Vec<u8>,
    pub(crate) visible_at: Option<Instant>,
}

pub(crate) type Inbound = Result<Delivery, NetError>;

/// What a socket link's writer thread is asked to do.
pub(crate) enum Outgoing {
    Message(Delivery),
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

#[derive(Clone)]
pub(crate) enum Outbound {
    /// In-memory: straight into the peer's queue.
    Direct(Sender<Inbound>),
    /// Sockets: to this link's writer thread.
    Writer {
        queue: Sender<Outgoing>,
        failure: Arc<Mutex<Option<NetError>>>,
    },
}

impl Outbound {
    /// Hands `delivery` to the peer's queue or the link's writer.
    pub(crate) fn deliver(&self, to: PartyId, delivery: Delivery) -> Result<(), NetError> {
        match self {
            Outbound::Direct(tx) => tx
                .send(Ok(delivery))
                .map_err(|_| NetError::Disconnected { peer: to }),
            Outbound::Writer { queue, failure } => {
                match failure.lock().ok().and_then(|f| f.clone()) {
                    Some(e) => Err(e),
                    None => queue
                        .send(Outgoing::Message(delivery))
                        .map_err(|_| NetError::Disconnected { peer: to }),
                }
            }
        }
    }
}

/// What every link of a party shares: its alarm and its board of waits.
pub(crate) type Shared = (Arc<Alarm>, Arc<Board>);

/// The first failure seen on any link of a party: every wait checks it, so
/// one crashed peer stops the whole run rather than only its own link.
#[derive(Default)]
pub(crate) struct Alarm {
    /// Fast path for the check every receive makes.
    raised: AtomicBool,
    /// The first failure and when it was raised.
    error: Mutex<Option<(NetError, Instant)>>,
}

impl Alarm {
    pub(crate) fn raise(&self, e: NetError) {
        if let Ok(mut slot) = self.error.lock() {
            slot.get_or_insert((e, Instant::now()));
        }
        self.raised.store(true, Ordering::Release);
    }

    /// Any link failure aborts the run: remember it, so this party does not
    /// say goodbye (its peers must learn that it stopped in error).
    pub(crate) fn on_error<T>(&self, result: Result<T, NetError>) -> Result<T, NetError> {
        if let Err(e) = &result {
            if !matches!(e, NetError::UnknownPeer { .. }) {
                self.raise(e.clone());
            }
        }
        result
    }

    /// Raises `e` as a failure older than [`ALARM_GRACE`]: every wait
    /// ends at once (an interrupt of this party is no peer's failure that a
    /// live peer's message could still precede).
    fn raise_at_once(&self, e: NetError) {
        let long_ago = Instant::now()
            .checked_sub(ALARM_GRACE)
            .unwrap_or_else(Instant::now);
        if let Ok(mut slot) = self.error.lock() {
            slot.get_or_insert((e, long_ago));
        }
        self.raised.store(true, Ordering::Release);
    }

    pub(crate) fn is_raised(&self) -> bool {
        self.raised.load(Ordering::Acquire)
    }

    pub(crate) fn get(&self) -> Option<NetError> {
        self.get_with_age().map(|(e, _)| e)
    }

    /// The failure and how long ago it was raised.
    pub(crate) fn get_with_age(&self) -> Option<(NetError, Duration)> {
        if !self.is_raised() {
            return None;
        }
        let slot = self.error.lock().ok()?;
        slot.as_ref().map(|(e, at)| (e.clone(), at.elapsed()))
    }
}

/// How long a wait on one peer goes on after another peer failed. A live
/// peer's message of the current round gets this long to arrive (one peer
/// leaving, even cleanly, can look like a failure here while a slower peer
/// is still computing what it owes us); after it the run is given up, so
/// parties that never wait on the failed one still stop.
pub(crate) const ALARM_GRACE: Duration = Duration::from_secs(5);

pub(crate) struct Link {
    pub(crate) out: Option<Outbound>,
    /// In memory: the peer's alarm, raised if this party's thread panics.
    peer_alarm: Option<Arc<Alarm>>,
    pub(crate) inbox: Receiver<Inbound>,
    /// Shared with the lanes of a split run (see [`crate::split`]).
    pub(crate) shaper: Arc<Mutex<Shaper>>,
    /// A burst of sends is open on this link (it ends at our next receive).
    sending: bool,
    writer: Option<JoinHandle<()>>,
    reader: Option<JoinHandle<()>>,
    /// Closes the socket, which unblocks both threads.
    shutdown: Option<Shutdown>,
    /// Socket links: what the reader has queued and this party not yet taken.
    pub(crate) inbox_bytes: Option<Arc<InboxBudget>>,
    /// Socket links: the largest frame the reader accepts (see `set_max_message`).
    max_message: Option<Arc<AtomicUsize>>,
    /// Socket links: when the peer's last byte arrived.
    pub(crate) liveness: Option<Arc<Liveness>>,
}

/// The bytes a socket link's reader thread has queued that the protocol has
/// not taken yet. Above the budget the reader stops reading the socket, so
/// TCP's flow control holds the sender back: a peer cannot make a party
/// buffer more than the budget plus one message, however much it sends.
pub(crate) struct InboxBudget {
    pub(crate) budget: usize,
    queued: Mutex<usize>,
    changed: Condvar,
    closed: AtomicBool,
}

impl InboxBudget {
    fn new(budget: usize) -> InboxBudget {
        InboxBudget {
            budget,
            queued: Mutex::new(0),
            changed: Condvar::new(),
            closed: AtomicBool::new(false),
        }
    }

    /// Waits until fewer than the budget's bytes are queued; false once the link closes.
    fn wait_for_room(&self) -> bool {
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

    fn add(&self, bytes: usize) {
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

    fn close(&self) {
        self.closed.store(true, Ordering::Release);
        // Taking the lock orders the flag before a waiter's next check.
        drop(self.queued.lock());
        self.changed.notify_all();
    }
}

/// Closes a link's socket; shared by the reader thread and `Network::drop`.
pub(crate) type Shutdown = Arc<dyn Fn() + Send + Sync>;

/// How long dropping a `Network` waits for queued messages to leave before
/// closing the sockets anyway (a peer that stopped reading cannot hold us).
const LINGER: Duration = Duration::from_secs(30);

/// The same for the link to a silent peer.
const SILENT_LINGER: Duration = Duration::from_secs(1);

/// How often a waiting receive looks at the alarm.
pub(crate) const ALARM_POLL: Duration = Duration::from_millis(20);

/// Why a wait on `peer` that began at `start` ends, if it has gone on too
/// long: on a socket link, no byte from the peer for `timeout` (the idle
/// timeout); in memory, no message within `timeout`.
pub(crate) fn given_up(
    liveness: Option<&Liveness>,
    start: Instant,
    timeout: Duration,
    peer: PartyId,
) -> Option<NetError> {
    match liveness {
        Some(l) => (l.silent_since(start) >= timeout).then_some(NetError::Silent {
            peer,
            idle: timeout,
        }),
        None => (start.elapsed() >= timeout).then_some(NetError::Timeout { peer, timeout }),
    }
}

/// Whether a wait of this party in `lane` on `peer` is part of a cycle of
/// waits that has lasted `patience` (see [`crate::waits`]). The wait is
/// registered in `waiting` at the first look, which a receive makes only
/// once a poll brought nothing: a wait that ends sooner costs no lock.
pub(crate) fn deadlock(
    board: Option<&Arc<Board>>,
    waiting: &mut Option<crate::waits::Waiting>,
    lane: u16,
    peer: PartyId,
    patience: Duration,
) -> Option<NetError> {
    let board = board?;
    let cycle = waiting
        .get_or_insert_with(|| board.wait(lane, peer))
        .deadlocked(patience)?;
    Some(NetError::Deadlock { peer, cycle })
}

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
    /// [`Network::set_max_message`].
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

/// Every message carries a 7-byte trailer (not counted as payload): the phase
/// it was sent in, its round stamp, one more than the deepest stamp of that
/// phase its sender had received, and its lane (0 except in a run split into
/// concurrent lanes, see [`crate::split`]). The largest stamp of a phase is
/// the length of the phase's longest chain of dependent messages: the rounds
/// a WAN pays latency for, whichever links they take.
pub const STAMP_BYTES: usize = 7;

/// The largest round stamp accepted from a peer.
const MAX_STAMP: u32 = 1 << 31;

/// A message's trailer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub(crate) phase: Phase,
    pub(crate) stamp: u32,
    pub(crate) lane: u16,
}

/// Appends the trailer.
pub(crate) fn push_stamp(data: &mut Vec<u8>, s: Stamp) {
    data.push(s.phase as u8);
    data.extend_from_slice(&s.stamp.to_le_bytes());
    data.extend_from_slice(&s.lane.to_le_bytes());
}

/// The lane a received message (trailer still on) names; None if it has
/// no trailer (`split_stamp` then says so).
pub(crate) fn lane_of(data: &[u8]) -> Option<u16> {
    let at = data.len().checked_sub(2)?;
    (data.len() >= STAMP_BYTES).then(|| u16::from_le_bytes([data[at], data[at + 1]]))
}

/// Removes a received message's trailer and returns it; the message is the
/// peer's, so every field is checked.
pub(crate) fn split_stamp(data: &mut Vec<u8>) -> Result<Stamp, String> {
    let bad = || "a message without a valid round stamp".to_string();
    let at = data.len().checked_sub(STAMP_BYTES).ok_or_else(bad)?;
    let phase = *Phase::ALL.get(data[at] as usize).ok_or_else(bad)?;
    let stamp = u32::from_le_bytes(data[at + 1..at + 5].try_into().map_err(|_| bad())?);
    let lane = u16::from_le_bytes([data[at + 5], data[at + 6]]);
    // No run has 2^31 rounds: a larger stamp is a peer's fabrication.
    if stamp > MAX_STAMP {
        return Err(format!(
            "a round stamp of {stamp}, above any real run's {MAX_STAMP}"
        ));
    }
    data.truncate(at);
    Ok(Stamp { phase, stamp, lane })
}

/// The log target of a party's steps through its run ([`Network::announce`],
/// and every [`Network::set_phase`]): at debug level, one event per step,
/// `enters phase party=P lane=L phase=NAME`, so that a log reader (the
/// chaos harness, `huddle bench chaos`) knows where a party is without
/// guessing from time.
pub const PHASE_LOG: &str = "huddle_net::phase";

/// The last step a party logs ([`PHASE_LOG`]): its protocol is over, and
/// what remains is local (writing its outputs).
pub const FINISHED: &str = "finished";

/// Logs that `lane` of party `me` enters `step` (see [`PHASE_LOG`]).
pub(crate) fn announce(me: PartyId, lane: u16, step: &str) {
    tracing::debug!(target: PHASE_LOG, party = me, lane, phase = %step, "enters phase");
}

/// What an endpoint (a [`Network`], or one lane of a split one) keeps count
/// of: the phase traffic and time are counted under, the deepest round
/// stamp received per phase, and its traffic.
#[derive(Clone)]
pub(crate) struct Books {
    pub(crate) phase: Phase,
    /// Whether time is being counted for the current phase.
    clock_running: bool,
    /// Per phase, the deepest round stamp received so far (see [`STAMP_BYTES`]).
    pub(crate) depth: [u32; Phase::ALL.len()],
    pub(crate) accounting: Accounting,
}

impl Books {
    pub(crate) fn new() -> Books {
        Books {
            phase: Phase::Setup,
            clock_running: false,
            depth: [0; Phase::ALL.len()],
            accounting: Accounting::default(),
        }
    }

    /// The books of a lane split off from an endpoint with these: its phase
    /// and depth, no traffic yet.
    pub(crate) fn for_lane(&self) -> Books {
        Books {
            clock_running: false,
            accounting: Accounting::default(),
            ..self.clone()
        }
    }

    pub(crate) fn set_phase(&mut self, phase: Phase) {
        self.stop_clock();
        self.phase = phase;
        self.clock_running = true;
        self.accounting.enter(phase, Instant::now());
    }

    pub(crate) fn stop_clock(&mut self) {
        if std::mem::take(&mut self.clock_running) {
            self.accounting.leave(self.phase, Instant::now());
        }
    }

    /// Appends the trailer of the next message of the current phase on
    /// `lane`: a message depends on everything received before it, so it is
    /// one round deeper (saturating: received stamps are bounded, this only
    /// keeps a pathological run from wrapping).
    pub(crate) fn stamp(&self, data: &mut Vec<u8>, lane: u16) -> Stamp {
        let phase = self.phase;
        let stamp = self.depth[phase as usize].saturating_add(1);
        let s = Stamp { phase, stamp, lane };
        push_stamp(data, s);
        s
    }

    /// Counts a sent message of `bytes` payload bytes stamped `s`.
    pub(crate) fn sent(
        &mut self,
        from: PartyId,
        to: PartyId,
        bytes: u64,
        new_round: bool,
        s: Stamp,
    ) {
        self.accounting.record(s.phase, from, to, bytes, new_round);
        self.accounting.record_depth(s.phase, s.stamp);
    }

    /// Takes a message from `from` off its trailer, counting its depth.
    pub(crate) fn received(
        &mut self,
        from: PartyId,
        data: &mut Vec<u8>,
    ) -> Result<Stamp, NetError> {
        let s = split_stamp(data).map_err(|cause| NetError::Link { peer: from, cause })?;
        let d = &mut self.depth[s.phase as usize];
        *d = (*d).max(s.stamp);
        Ok(s)
    }

    /// Adds a lane's books (see [`Accounting::absorb_concurrent`]).
    pub(crate) fn absorb_lane(&mut self, lane: &Books) {
        self.accounting.absorb_concurrent(&lane.accounting);
        for (d, l) in self.depth.iter_mut().zip(lane.depth) {
            *d = (*d).max(l);
        }
    }
}

/// An empty message buffer with room for `len` payload bytes and the
/// trailer, so that sending it never reallocates (a copy of the whole
/// message into fresh memory); one of past messages' buffers where one is
/// large enough (see [`recycle_buffer`](crate::recycle_buffer)).
pub fn message_buffer(len: usize) -> Vec<u8> {
    crate::pool::take(len + STAMP_BYTES).unwrap_or_else(|| Vec::with_capacity(len + STAMP_BYTES))
}

/// A message of `len` bytes to be overwritten whole and sent as it is (no
/// copy into a message buffer), with room for the trailer. Its bytes are
/// unspecified: a past message buffer's, which may be any message this
/// process sent or received, so every byte must be written before sending.
pub fn scratch_message(len: usize) -> Vec<u8> {
    crate::pool::scratch(len, len + STAMP_BYTES)
}

/// One party's view of the network.
pub struct Network {
    pub(crate) me: PartyId,
    pub(crate) links: Vec<Option<Link>>,
    pub(crate) alarm: Arc<Alarm>,
    pub(crate) books: Books,
    /// How long a receive waits without a sign of the peer: on socket links
    /// any byte (liveness frames included, so only a stalled peer runs into
    /// it: the idle timeout); in memory, where parties are threads of one
    /// process and a peer cannot stall on its own, a message.
    pub(crate) timeout: Duration,
    /// This party stops because of a failure of its own, which its peers
    /// are told (see [`Network::stop`]).
    stop_reason: Option<String>,
    /// Socket links: this party's waits and its peers' (see [`crate::waits`]).
    pub(crate) board: Option<Arc<Board>>,
    /// Where every received payload is copied (see [`Network::record_received`]).
    transcript: Option<Transcript>,
    /// Where every message sent or received is noted (see [`Network::record_traffic`]).
    pub(crate) traffic: Option<TrafficLog>,
    /// Settings this party's hello left open or offered as a most, as
    /// settled at connect.
    settled: Vec<(String, crate::Value)>,
}

/// Stops a party's run from another thread: see [`Interrupter::interrupt`].
pub struct Interrupter {
    me: PartyId,
    alarm: Arc<Alarm>,
    writers: Vec<Sender<Outgoing>>,
}

impl Interrupter {
    /// Ends the run: every wait of the party returns
    /// [`NetError::Interrupted`]`(cause)` at once, and every peer is sent
    /// the abort frame naming this party, with `cause` as its reason, after
    /// what is already queued for it (so the peers stop even while this
    /// party computes, and say why).
    pub fn interrupt(&self, cause: &str) {
        self.alarm
            .raise_at_once(NetError::Interrupted(cause.to_string()));
        let reason: Arc<str> = Arc::from(crate::frame::bounded(cause));
        for w in &self.writers {
            let _ = w.send(Outgoing::End(Ending::Abort {
                culprit: self.me,
                reason: reason.clone(),
            }));
        }
    }
}

/// One received message: its sender, the phase it was sent in, its payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received {
    pub from: PartyId,
    pub phase: Phase,
    pub payload: Vec<u8>,
}

/// A party's view of a run as far as the network shows it: every message it
/// received, in order.
pub type Transcript = Arc<Mutex<Vec<Received>>>;

/// One message a party sent or received, as its traffic log records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traffic {
    /// Sent by this party (else received).
    pub sent: bool,
    /// The receiver of a sent message, the sender of a received one.
    pub peer: PartyId,
    pub phase: Phase,
    /// The lane of a run split into lanes (0 otherwise).
    pub lane: usize,
    /// Payload bytes.
    pub bytes: usize,
}

/// A party's sends and receives in the order they happened, over all its
/// lanes (see [`Network::record_traffic`]).
pub type TrafficLog = Arc<Mutex<Vec<Traffic>>>;

/// Appends to a traffic log, if one is kept.
pub(crate) fn log_traffic(log: &Option<TrafficLog>, t: Traffic) {
    if let Some(Ok(mut log)) = log.as_ref().map(|l| l.lock()) {
        log.push(t);
    }
}

impl Network {
    /// From now on, copies every message this party receives into the
    /// returned transcript: tests use it to pin down what a party sees (its
    /// view). Real runs never call it.
    pub fn record_received(&mut self) -> Transcript {
        let t = Transcript::default();
        self.transcript = Some(t.clone());
        t
    }

    /// From now on, notes every message this party sends or receives (its
    /// peer, phase, lane and size, in the order they happen, over all lanes
    /// split from this endpoint): tests use it to pin down the order of a
    /// run's messages. Real runs never call it.
    pub fn record_traffic(&mut self) -> TrafficLog {
        let t = TrafficLog::default();
        self.traffic = Some(t.clone());
        t
    }

    pub fn party(&self) -> PartyId {
        self.me
    }

    pub fn parties(&self) -> usize {
        self.links.len()
    }

    /// The phase that subsequent traffic and time are counted under (and
    /// logged: [`PHASE_LOG`]).
    pub fn set_phase(&mut self, phase: Phase) {
        announce(self.me, 0, phase.name());
        self.books.set_phase(phase);
    }

    /// Logs that this party enters `step` of its run, a part that the
    /// accounting's phases do not tell apart (the engine's `reveal`, which
    /// is counted under the online phase); see [`PHASE_LOG`].
    pub fn announce(&self, step: &str) {
        announce(self.me, 0, step);
    }

    /// Ends the current phase's time (it resumes with the next `set_phase`).
    pub fn stop_clock(&mut self) {
        self.books.stop_clock();
    }

    pub fn phase(&self) -> Phase {
        self.books.phase
    }

    /// How long a receive waits without a sign of the peer before naming
    /// it (see [`Network`]'s `timeout`): on socket links the idle timeout.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Records that this party stops because of a failure of its own (not
    /// a peer's), so that its departure tells every peer `reason` (at most
    /// 200 bytes are sent) in an abort naming this party, authenticated like
    /// every frame of the link. Once a failure of the run is known, the
    /// departure names that one instead and `reason` is not sent. The reason
    /// goes to the peers: it must hold nothing secret (no input values).
    pub fn stop(&mut self, reason: &str) {
        if !self.alarm.is_raised() {
            self.stop_reason = Some(crate::frame::bounded(reason).to_string());
        }
    }

    /// The largest message this party will accept from any peer from now on
    /// (socket links; in memory every peer is this process). A protocol that
    /// knows its largest message sets it, so a peer's oversized frame is an
    /// error before it is read, not an allocation.
    pub fn set_max_message(&mut self, bytes: usize) {
        for link in self.links.iter().flatten() {
            if let Some(max) = &link.max_message {
                max.store(bytes.saturating_add(STAMP_BYTES), Ordering::Relaxed);
            }
        }
    }

    /// Bytes received from `peer` that the protocol has not taken yet.
    #[cfg(test)]
    pub(crate) fn queued_bytes(&self, peer: PartyId) -> usize {
        self.links
            .get(peer)
            .and_then(Option::as_ref)
            .and_then(|l| l.inbox_bytes.as_ref())
            .and_then(|b| b.queued.lock().ok().map(|q| *q))
            .unwrap_or(0)
    }

    /// What this party has sent, per directed link and phase.
    pub fn accounting(&self) -> &Accounting {
        &self.books.accounting
    }

    fn link(&mut self, peer: PartyId) -> Result<&mut Link, NetError> {
        let (me, parties) = (self.me, self.links.len());
        self.links
            .get_mut(peer)
            .and_then(Option::as_mut)
            .ok_or(NetError::UnknownPeer { peer, me, parties })
    }

    /// Queues `data` for `to` and returns at once; socket transports write it
    /// from the link's own thread, batching everything queued in a round.
    pub fn send(&mut self, to: PartyId, mut data: Vec<u8>) -> Result<(), NetError> {
        let me = self.me;
        let bytes = data.len() as u64;
        let stamp = self.books.stamp(&mut data, 0);
        let link = self.link(to)?;
        let new_round = !link.sending;
        link.sending = true;
        let visible_at = shape(&link.shaper, data.len());
        let delivered = match &link.out {
            Some(out) => out.deliver(to, Delivery { data, visible_at }),
            None => Err(NetError::Disconnected { peer: to }),
        };
        // A peer that is gone because another party failed first: report
        // that root cause, as receives do.
        let delivered = delivered.map_err(|e| self.alarm.get().unwrap_or(e));
        self.alarm.on_error(delivered)?;
        self.books.sent(me, to, bytes, new_round, stamp);
        log_traffic(
            &self.traffic,
            Traffic {
                sent: true,
                peer: to,
                phase: stamp.phase,
                lane: 0,
                bytes: bytes as usize,
            },
        );
        Ok(())
    }

    /// Receives the next message from `from`, which must be exactly `len` bytes.
    pub fn recv(&mut self, from: PartyId, len: usize) -> Result<Vec<u8>, NetError> {
        let data = self.recv_any(from)?;
        if data.len() != len {
            // A failure of the run like any other: peers learn who broke it.
            return self.abort_on_error(Err(NetError::UnexpectedLength {
                peer: from,
                expected: len,
                got: data.len(),
            }));
        }
        Ok(data)
    }

    /// Ends this party's sending and checks that every peer's stream ends
    /// too, with nothing after the last message the protocol read: a peer
    /// that sent more (e.g. a duplicate of its last message) is an error
    /// naming it. Costs one one-way latency; for protocols with security
    /// against malicious parties, before they release outputs.
    pub fn finish(&mut self) -> Result<(), NetError> {
        for link in self.links.iter_mut().flatten() {
            if let Some(Outbound::Writer { queue, .. }) = &link.out {
                let _ = queue.send(Outgoing::End(Ending::Goodbye));
            }
            link.out = None;
        }
        for peer in 0..self.links.len() {
            if self.links[peer].is_none() {
                continue;
            }
            let end = match self.recv_inner(peer) {
                Ok(_) => Err(NetError::Link {
                    peer,
                    cause: "a message after the protocol's last one".into(),
                }),
                // A peer that finished too: its goodbye, or (in memory, or a
                // socket it already closed) the end of its stream; unless
                // another party failed meanwhile (then that root cause).
                Err(NetError::Departed { peer: p } | NetError::Disconnected { peer: p })
                    if p == peer =>
                {
                    self.alarm.get().map_or(Ok(()), Err)
                }
                Err(e) => Err(e),
            };
            self.abort_on_error(end)?;
        }
        Ok(())
    }

    /// Records that this party stops because of `culprit` (a protocol check
    /// pointed at it), so that its departure names the culprit to every peer
    /// still waiting on it, as a transport failure would.
    pub fn blame(&self, culprit: PartyId) {
        if culprit != self.me && culprit < self.links.len() {
            self.alarm.raise(NetError::Aborted {
                culprit,
                reporter: self.me,
                reason: String::new(),
            });
        }
    }

    /// Receives the next message from `from`, whatever its length.
    pub fn recv_any(&mut self, from: PartyId) -> Result<Vec<u8>, NetError> {
        let result = self.recv_inner(from).and_then(|mut data| {
            let Stamp { phase, lane, .. } = self.books.received(from, &mut data)?;
            if lane != 0 {
                return Err(NetError::Link {
                    peer: from,
                    cause: format!("a message of lane {lane} in a run not split into lanes"),
                });
            }
            log_traffic(
                &self.traffic,
                Traffic {
                    sent: false,
                    peer: from,
                    phase,
                    lane: 0,
                    bytes: data.len(),
                },
            );
            if let Some(t) = &self.transcript {
                if let Ok(mut t) = t.lock() {
                    t.push(Received {
                        from,
                        phase,
                        payload: data.clone(),
                    });
                }
            }
            Ok(data)
        });
        self.abort_on_error(result)
    }

    fn abort_on_error<T>(&self, result: Result<T, NetError>) -> Result<T, NetError> {
        self.alarm.on_error(result)
    }

    fn recv_inner(&mut self, from: PartyId) -> Result<Vec<u8>, NetError> {
        let timeout = self.timeout;
        for l in self.links.iter_mut().flatten() {
            l.sending = false;
        }
        let alarm = self.alarm.clone();
        // A failure older than the grace ends the run even while this peer
        // keeps sending (two live parties in a steady exchange would
        // otherwise never look at the alarm).
        if let Some((e, age)) = alarm.get_with_age() {
            if age >= ALARM_GRACE {
                return Err(e);
            }
        }
        let board = self.board.clone();
        let link = self.link(from)?;
        let start = Instant::now();
        let mut waiting = None;
        let delivery = loop {
            // Short slices, so the alarm and the deadline are looked at often.
            let slice = timeout.min(ALARM_POLL);
            match link.inbox.recv_timeout(slice) {
                Ok(Ok(d)) => break d,
                // Report the first failure of the run (its root cause): a peer
                // that aborts because another one crashed names the crashed one here.
                Ok(Err(e)) => return Err(alarm.get().unwrap_or(e)),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(alarm.get().unwrap_or(NetError::Disconnected { peer: from }))
                }
                Err(RecvTimeoutError::Timeout) => {
                    // This peer's own failure ends the wait at once; another
                    // peer's after `ALARM_GRACE` (see there).
                    if let Some((e, age)) = alarm.get_with_age() {
                        if e.culprit() == Some(from) || age >= ALARM_GRACE {
                            return Err(e);
                        }
                    }
                    if let Some(e) = given_up(link.liveness.as_deref(), start, timeout, from) {
                        return Err(alarm.get().unwrap_or(e));
                    }
                    if let Some(e) = deadlock(board.as_ref(), &mut waiting, 0, from, timeout) {
                        return Err(alarm.get().unwrap_or(e));
                    }
                }
            }
        };
        if let Some(budget) = &link.inbox_bytes {
            budget.take(delivery.data.len());
        }
        Ok(deliver(delivery))
    }

    /// One round: sends every `(peer, message)`, then receives one message of
    /// the given length from each `(peer, len)`, in that order.
    pub fn exchange(
        &mut self,
        outgoing: Vec<(PartyId, Vec<u8>)>,
        incoming: &[(PartyId, usize)],
    ) -> Result<Vec<Vec<u8>>, NetError> {
        for (to, data) in outgoing {
            self.send(to, data)?;
        }
        incoming
            .iter()
            .map(|&(from, len)| self.recv(from, len))
            .collect()
    }

    pub(crate) fn from_links(
        me: PartyId,
        links: Vec<Option<LinkParts>>,
        profile: &NetProfile,
        timeout: Duration,
        (alarm, board): (Arc<Alarm>, Option<Arc<Board>>),
    ) -> Network {
        let links = links
            .into_iter()
            .enumerate()
            .map(|(peer, parts)| {
                parts.map(|p| Link {
                    out: Some(p.out),
                    peer_alarm: p.peer_alarm,
                    inbox: p.inbox,
                    shaper: Arc::new(Mutex::new(Shaper::new(profile.shape(me, peer)))),
                    sending: false,
                    writer: p.writer,
                    reader: p.reader,
                    shutdown: p.shutdown,
                    inbox_bytes: p.inbox_bytes,
                    max_message: p.max_message,
                    liveness: p.liveness,
                })
            })
            .collect();
        Network {
            me,
            links,
            alarm,
            books: Books::new(),
            timeout,
            stop_reason: None,
            board,
            transcript: None,
            traffic: None,
            settled: Vec::new(),
        }
    }

    /// A handle that stops this party's run from another thread (a signal
    /// handler's).
    pub fn interrupter(&self) -> Interrupter {
        Interrupter {
            me: self.me,
            alarm: self.alarm.clone(),
            writers: self
                .links
                .iter()
                .flatten()
                .filter_map(|l| match &l.out {
                    Some(Outbound::Writer { queue, .. }) => Some(queue.clone()),
                    _ => None,
                })
                .collect(),
        }
    }

    pub(crate) fn set_settled(&mut self, settled: Vec<(String, crate::Value)>) {
        self.settled = settled;
    }

    /// A setting this party's hello left open ([`Value::Open`]: the value
    /// the peers set) or offered as a most ([`Value::Least`]: the least any
    /// party offered, as a number), as settled at connect.
    ///
    /// [`Value::Open`]: crate::Value::Open
    /// [`Value::Least`]: crate::Value::Least
    pub fn settled(&self, name: &str) -> Option<&crate::Value> {
        self.settled.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        // Decided once, here: failures seen while tearing down do not count.
        let me = self.me;
        let failure = self.alarm.get();
        let ending = if std::thread::panicking() {
            Ending::Abort {
                culprit: me,
                reason: "".into(),
            }
        } else {
            match (&failure, &self.stop_reason) {
                (None, None) => Ending::Goodbye,
                (None, Some(reason)) => Ending::Abort {
                    culprit: me,
                    reason: reason.as_str().into(),
                },
                (Some(e), _) => Ending::Abort {
                    culprit: e.culprit().unwrap_or(me),
                    reason: e.told_to_peers().into(),
                },
            }
        };
        // A silent peer may read nothing for long: the abort gets a short
        // linger to leave (it finds the peer when the peer runs again).
        let silent = match failure {
            Some(NetError::Silent { peer, .. }) => Some(peer),
            _ => None,
        };
        // Every link is told at once, then all of them get one shared
        // deadline: a peer that stopped reading holds us LINGER at most, not
        // LINGER per link.
        for link in self.links.iter_mut().flatten() {
            match (&ending, &link.peer_alarm) {
                (Ending::Abort { culprit, reason }, Some(alarm)) if *culprit == me => {
                    alarm.raise(match reason.is_empty() {
                        true => NetError::Disconnected { peer: me },
                        false => NetError::Stopped {
                            peer: me,
                            reason: reason.to_string(),
                        },
                    })
                }
                (Ending::Abort { culprit, reason }, Some(alarm)) => {
                    alarm.raise(NetError::Aborted {
                        culprit: *culprit,
                        reporter: me,
                        reason: reason.to_string(),
                    })
                }
                _ => {}
            }
            // The writer writes what is queued, then the ending, and stops.
            if let Some(Outbound::Writer { queue, .. }) = &link.out {
                let _ = queue.send(Outgoing::End(ending.clone()));
            }
            link.out = None;
        }
        let until = Instant::now() + LINGER;
        let silent_until = Instant::now() + SILENT_LINGER;
        for (peer, link) in self.links.iter().enumerate() {
            let Some(link) = link else { continue };
            let until = if silent == Some(peer) {
                silent_until
            } else {
                until
            };
            if let Some(w) = &link.writer {
                while !w.is_finished() && Instant::now() < until {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        }
        for link in self.links.iter_mut().flatten() {
            if let Some(budget) = &link.inbox_bytes {
                budget.close();
            }
            if let Some(shutdown) = link.shutdown.take() {
                shutdown();
            }
        }
        for link in self.links.iter_mut().flatten() {
            if let Some(w) = link.writer.take() {
                let _ = w.join();
            }
            if let Some(r) = link.reader.take() {
                let _ = r.join();
            }
        }
    }
}

/// The pieces of one link before it joins a `Network`.
pub(crate) struct LinkParts {
    out: Outbound,
    peer_alarm: Option<Arc<Alarm>>,
    inbox: Receiver<Inbound>,
    writer: Option<JoinHandle<()>>,
    reader: Option<JoinHandle<()>>,
    shutdown: Option<Shutdown>,
    inbox_bytes: Option<Arc<InboxBudget>>,
    max_message: Option<Arc<AtomicUsize>>,
    liveness: Option<Arc<Liveness>>,
}

/// Starts the writer and reader threads of a socket link to `peer`, in a
/// run of `parties` parties.
pub(crate) fn stream_link(
    peer: PartyId,
    parties: usize,
    reader: impl Read + Send + 'static,
    writer: impl Write + Send + 'static,
    shutdown: Shutdown,
    (alarm, board): (Arc<Alarm>, Arc<Board>),
    limits: LinkLimits,
) -> std::io::Result<LinkParts> {
    let (queue, outgoing) = mpsc::channel::<Outgoing>();
    let failure = Arc::new(Mutex::new(None));
    let failed = failure.clone();
    let reports = board.clone();
    let writer = std::thread::Builder::new()
        .name(format!("huddle-send-{peer}"))
        .spawn(move || {
            let mut w = FrameWriter::new(writer, limits.buffer_bytes);
            if let Err(e) = write_loop(&mut w, &outgoing, &reports) {
                if let Ok(mut f) = failed.lock() {
                    *f = Some(NetError::Link {
                        peer,
                        cause: e.to_string(),
                    });
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
        out: Outbound::Writer { queue, failure },
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

fn is_disconnect(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof
    )
}

/// Writes queued messages, flushing whenever the queue runs dry so that a
/// round's messages leave in as few writes as possible; ends with the
/// endpoint's goodbye or abort frame. Whenever it has had nothing to write
/// for [`LIVENESS_EVERY`] (the queue idle, or a message held back by link
/// emulation), it writes a liveness frame.
fn write_loop<W: Write>(
    w: &mut FrameWriter<W>,
    queue: &Receiver<Outgoing>,
    board: &Board,
) -> std::io::Result<()> {
    let mut next = next_or_live(w, queue, board)?;
    while let Some(item) = next.take() {
        match item {
            Outgoing::Message(d) => {
                if let Some(at) = d.visible_at {
                    hold_until(w, at, board)?;
                }
                w.frame(&d.data)?;
                crate::pool::recycle(d.data);
            }
            Outgoing::End(Ending::Goodbye) => {
                w.control(&goodbye_frame());
                break;
            }
            Outgoing::End(Ending::Abort { culprit, reason }) => {
                w.control(&abort_frame(culprit as u32, &reason));
                break;
            }
        }
        next = match queue.try_recv() {
            Ok(item) => Some(item),
            Err(TryRecvError::Empty) => {
                w.flush()?;
                next_or_live(w, queue, board)?
            }
            Err(TryRecvError::Disconnected) => None,
        };
    }
    w.flush()
}

/// The next item of `queue`, sending a liveness frame every
/// [`LIVENESS_EVERY`] until it comes; `None` once the queue is closed.
/// Everything written has left: the frames say the writer is idle.
fn next_or_live<W: Write>(
    w: &mut FrameWriter<W>,
    queue: &Receiver<Outgoing>,
    board: &Board,
) -> std::io::Result<Option<Outgoing>> {
    loop {
        match queue.recv_timeout(LIVENESS_EVERY) {
            Ok(item) => return Ok(Some(item)),
            Err(RecvTimeoutError::Timeout) => {
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
fn hold_until<W: Write>(w: &mut FrameWriter<W>, at: Instant, board: &Board) -> std::io::Result<()> {
    let mut now = Instant::now();
    if at > now {
        w.flush()?;
    }
    while at > now {
        std::thread::sleep((at - now).min(LIVENESS_EVERY));
        now = Instant::now();
        if at > now {
            w.control(&live_frame(&board.report(false)));
            w.flush()?;
        }
    }
    Ok(())
}

/// `parties` endpoints joined in memory (for threads of one process).
pub fn memory_networks(parties: usize, profile: &NetProfile, timeout: Duration) -> Vec<Network> {
    let alarms: Vec<Arc<Alarm>> = (0..parties).map(|_| Arc::new(Alarm::default())).collect();
    let mut senders: Vec<Vec<Option<Sender<Inbound>>>> = (0..parties)
        .map(|_| (0..parties).map(|_| None).collect())
        .collect();
    let mut inboxes: Vec<Vec<Option<Receiver<Inbound>>>> = (0..parties)
        .map(|_| (0..parties).map(|_| None).collect())
        .collect();
    for from in 0..parties {
        for to in 0..parties {
            if from != to {
                let (tx, rx) = mpsc::channel();
                senders[from][to] = Some(tx);
                inboxes[to][from] = Some(rx);
            }
        }
    }
    senders
        .into_iter()
        .zip(inboxes)
        .enumerate()
        .map(|(me, (outs, ins))| {
            let links = outs
                .into_iter()
                .zip(ins)
                .zip(&alarms)
                .map(|((out, inbox), peer_alarm)| match (out, inbox) {
                    (Some(tx), Some(inbox)) => Some(LinkParts {
                        out: Outbound::Direct(tx),
                        peer_alarm: Some(peer_alarm.clone()),
                        inbox,
                        writer: None,
                        reader: None,
                        shutdown: None,
                        inbox_bytes: None,
                        max_message: None,
                        liveness: None,
                    }),
                    _ => None,
                })
                .collect();
            Network::from_links(me, links, profile, timeout, (alarms[me].clone(), None))
        })
        .collect()
}
