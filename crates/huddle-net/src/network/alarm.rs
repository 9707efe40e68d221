//! Why a wait on a peer ends: the party's alarm (the first failure seen on
//! any of its links, so one failed peer stops the whole run), the peer's
//! silence, or a cycle of waits that nobody can break.

use super::error::NetError;
use crate::liveness::Liveness;
use crate::waits::Board;
use crate::PartyId;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    pub(super) fn raise_at_once(&self, e: NetError) {
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
