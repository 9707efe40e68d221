//! Telling a stalled peer from a busy one on socket links.
//!
//! A peer whose process is stopped, whose host froze, or whose network path
//! was cut keeps its TCP connection open and simply says nothing, as does a
//! peer that computes for a long time before its next message. To tell them
//! apart, every link's writer thread, which never waits on the protocol,
//! sends a liveness frame whenever it has had nothing to write for
//! `LIVENESS_EVERY` (also while link emulation holds a message back), and
//! every link's reader notes when the last byte arrived (`Heard`): bytes
//! count as they arrive, so a large frame on a slow link is never silence.
//! A receive that has waited on a peer that sent nothing for the idle
//! timeout ends with [`NetError::Silent`](crate::NetError::Silent). (The
//! frames also say what the sender waits on: see `waits.rs`.)
//!
//! The clock of a wait starts no earlier than the wait itself: while the
//! protocol has not taken the messages already queued (the reader then
//! stops reading, see `InboxBudget`), this party is not waiting on that
//! peer, and the time does not count.

use std::io::{self, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a link's writer stays quiet before it sends a liveness frame.
/// Every party sends at this pace whatever its own idle timeout, so peers
/// with different `--idle-timeout`s understand each other.
pub(crate) const LIVENESS_EVERY: Duration = Duration::from_millis(250);

/// The shortest idle timeout: four liveness intervals, so that one late
/// frame (a busy machine) is not mistaken for a stall.
pub const MIN_IDLE_TIMEOUT: Duration = Duration::from_secs(1);

/// When the last byte from one peer arrived.
pub(crate) struct Liveness {
    start: Instant,
    /// Milliseconds from `start` to the last byte.
    last: AtomicU64,
}

impl Liveness {
    pub(crate) fn new() -> Arc<Liveness> {
        Arc::new(Liveness {
            start: Instant::now(),
            last: AtomicU64::new(0),
        })
    }

    fn heard(&self) {
        let ms = self.start.elapsed().as_millis() as u64;
        self.last.fetch_max(ms, Ordering::Relaxed);
    }

    /// How long the peer has said nothing, counted from `waiting_since`
    /// at the earliest.
    pub(crate) fn silent_since(&self, waiting_since: Instant) -> Duration {
        let last = self.start + Duration::from_millis(self.last.load(Ordering::Relaxed));
        Instant::now().saturating_duration_since(last.max(waiting_since))
    }
}

/// A link's reading side, noting every byte's arrival.
pub(crate) struct Heard<R> {
    pub(crate) inner: R,
    pub(crate) liveness: Arc<Liveness>,
}

impl<R: Read> Read for Heard<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            self.liveness.heard();
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silence_counts_from_the_last_byte_or_the_start_of_the_wait() {
        let live = Liveness::new();
        let mut r = Heard {
            inner: &b"abc"[..],
            liveness: live.clone(),
        };
        let mut buf = [0u8; 2];
        assert_eq!(r.read(&mut buf).expect("read"), 2);
        // A wait that starts later than the last byte counts from its start.
        let later = Instant::now() + Duration::from_secs(3600);
        assert_eq!(live.silent_since(later), Duration::ZERO);
        // Reading nothing (the end of the stream) is no sign of life.
        assert_eq!(r.read(&mut [0u8; 8]).expect("read"), 1);
        assert_eq!(r.read(&mut [0u8; 8]).expect("read"), 0);
        let before = live.last.load(Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(r.read(&mut [0u8; 8]).expect("read"), 0);
        assert_eq!(live.last.load(Ordering::Relaxed), before);
        assert!(live.silent_since(live.start) >= Duration::from_millis(5));
    }
}
