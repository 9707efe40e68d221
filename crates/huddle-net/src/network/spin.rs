//! Bounded spinning before a wait parks. A receive that parks pays a
//! wake-up (tens of microseconds on a VM) when its message comes: as much
//! as a whole round trip on a LAN. Looking for the message for a short
//! while first saves it, but only where cores are free: not at all while
//! this process, or the host of one of its parties, runs more parties than
//! the process may use cores (their work needs every core), and at most one
//! thread fewer than the cores at once, so one core is left for the
//! threads that produce replies (socket links' readers, the peers). The
//! parties on a host are counted by the host names of the parties file: one
//! machine under two names counts as two hosts.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long a wait looks before it parks: a LAN round trip's worth.
const SPIN_FOR: Duration = Duration::from_micros(50);

/// Threads spinning now, in this process.
static SPINNING: AtomicUsize = AtomicUsize::new(0);

/// Parties (endpoints of a run) alive in this process.
static PARTIES: AtomicUsize = AtomicUsize::new(0);

/// Parties alive in this process whose hosts run more parties, in this
/// process or others, than this process may use cores.
static CROWDED: AtomicUsize = AtomicUsize::new(0);

/// A party of this process, counted while it lives.
pub(crate) struct Party {
    crowded: bool,
}

impl Party {
    pub(crate) fn new() -> Party {
        PARTIES.fetch_add(1, Ordering::AcqRel);
        Party { crowded: false }
    }

    /// Its host runs `parties` parties of the run (processes of their own
    /// too, which this process cannot see otherwise).
    pub(crate) fn share_host_with(&mut self, parties: usize) {
        if parties > cores() && !self.crowded {
            self.crowded = true;
            CROWDED.fetch_add(1, Ordering::AcqRel);
        }
    }
}

impl Drop for Party {
    fn drop(&mut self) {
        PARTIES.fetch_sub(1, Ordering::AcqRel);
        if self.crowded {
            CROWDED.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// The cores this process may use.
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES
        .get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get))
}

/// How many threads may spin at once with `parties` parties in a process
/// that may use `cores` cores: one fewer than the cores (none on one core),
/// and none while the parties outnumber the cores.
fn allowed(parties: usize, cores: usize) -> usize {
    match parties > cores {
        true => 0,
        false => cores.saturating_sub(1),
    }
}

fn spinners_allowed() -> usize {
    match CROWDED.load(Ordering::Acquire) {
        0 => allowed(PARTIES.load(Ordering::Acquire), cores()),
        _ => 0,
    }
}

/// `poll()` until it gives something or [`SPIN_FOR`] has passed (then
/// `None`: the caller parks). Polls once only where spinning is not
/// allowed now (see [`spinners_allowed`]).
pub(crate) fn until_ready<T>(mut poll: impl FnMut() -> Option<T>) -> Option<T> {
    if SPINNING.fetch_add(1, Ordering::AcqRel) >= spinners_allowed() {
        SPINNING.fetch_sub(1, Ordering::AcqRel);
        return poll();
    }
    let start = Instant::now();
    let found = loop {
        if let Some(x) = poll() {
            break Some(x);
        }
        if start.elapsed() >= SPIN_FOR {
            break None;
        }
        for _ in 0..64 {
            std::hint::spin_loop();
        }
    };
    SPINNING.fetch_sub(1, Ordering::AcqRel);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_core_is_always_left_and_parties_beyond_the_cores_never_spin() {
        assert_eq!(allowed(1, 1), 0);
        assert_eq!(allowed(2, 2), 1);
        assert_eq!(allowed(3, 2), 0);
        assert_eq!(allowed(3, 4), 3);
        assert_eq!(allowed(1, 16), 15);
    }

    #[test]
    fn spinning_returns_what_it_found_or_nothing() {
        let mut polls = 0;
        let found = until_ready(|| {
            polls += 1;
            (polls == 3).then_some(polls)
        });
        // Found on the third look where spinning is allowed, else (a single
        // look) nothing.
        assert!(
            found == Some(3) || (found.is_none() && polls == 1),
            "{found:?} after {polls}"
        );
        assert_eq!(until_ready(|| None::<()>), None);
    }
}
