//! How far a run has come, for a progress display: the secret-sharing
//! engine counts its steps (local steps, layers, conversions) as it
//! evaluates them, per party, and the command line draws the slowest
//! party's count: in `huddle local` a party that runs ahead (a dealer, a
//! helper that only preprocesses) does not show the run as done while the
//! others still compute. Counting is a relaxed atomic add per step:
//! nothing a run could notice.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Parties counted (the secret-sharing protocols have at most 4).
const COUNTED: usize = 8;

/// A party not in the run.
const ABSENT: u64 = u64::MAX;

pub struct Progress {
    instances: AtomicU64,
    steps_total: AtomicU64,
    /// Steps done per party id; `ABSENT` for parties not in the run.
    done: [AtomicU64; COUNTED],
    /// Lanes the secret-sharing engine chose for the last run (0: none).
    lanes: AtomicU64,
}

static PROGRESS: Progress = Progress {
    instances: AtomicU64::new(0),
    steps_total: AtomicU64::new(0),
    done: [const { AtomicU64::new(ABSENT) }; COUNTED],
    lanes: AtomicU64::new(0),
};

/// The process's progress counters.
pub fn progress() -> &'static Progress {
    &PROGRESS
}

/// A snapshot: the batch, and the slowest party's steps done of all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub instances: u64,
    pub steps_done: u64,
    pub steps_total: u64,
}

impl Progress {
    /// Forgets the last run (before starting one).
    pub fn reset(&self) {
        self.instances.store(0, Relaxed);
        self.steps_total.store(0, Relaxed);
        for d in &self.done {
            d.store(ABSENT, Relaxed);
        }
        self.lanes.store(0, Relaxed);
    }

    /// The lanes a party of the run evaluates (`--threads auto` may choose
    /// fewer or more than the thread count; every party chooses alike).
    pub(crate) fn set_lanes(&self, lanes: usize) {
        self.lanes.store(lanes as u64, Relaxed);
    }

    /// The lanes of the last secret-sharing run since [`Progress::reset`],
    /// if there was one.
    pub fn lanes(&self) -> Option<usize> {
        match self.lanes.load(Relaxed) {
            0 => None,
            n => Some(n as usize),
        }
    }

    /// Party `party` starts a run of `instances` instances and `steps`
    /// steps in all.
    pub(crate) fn start(&self, party: usize, instances: u64, steps: u64) {
        if let Some(d) = self.done.get(party) {
            self.instances.store(instances, Relaxed);
            self.steps_total.store(steps, Relaxed);
            d.store(0, Relaxed);
        }
    }

    /// Party `party` finished one step.
    pub(crate) fn step(&self, party: usize) {
        if let Some(d) = self.done.get(party) {
            d.fetch_add(1, Relaxed);
        }
    }

    pub fn snapshot(&self) -> Snapshot {
        let slowest = self
            .done
            .iter()
            .map(|d| d.load(Relaxed))
            .filter(|&d| d != ABSENT)
            .min()
            .unwrap_or(0);
        Snapshot {
            instances: self.instances.load(Relaxed),
            steps_done: slowest,
            steps_total: self.steps_total.load(Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slowest_party_sets_the_pace() {
        let p = Progress {
            instances: AtomicU64::new(0),
            steps_total: AtomicU64::new(0),
            done: [const { AtomicU64::new(ABSENT) }; COUNTED],
            lanes: AtomicU64::new(0),
        };
        assert_eq!(p.snapshot().steps_done, 0, "no run yet");
        assert_eq!(p.lanes(), None, "no run yet");
        p.set_lanes(2);
        assert_eq!(p.lanes(), Some(2));
        for party in 0..3 {
            p.start(party, 10, 5);
        }
        for _ in 0..5 {
            p.step(2); // a dealer runs ahead
        }
        p.step(0);
        p.step(1);
        p.step(1);
        let s = p.snapshot();
        assert_eq!((s.instances, s.steps_done, s.steps_total), (10, 1, 5));
        p.reset();
        assert_eq!(p.snapshot().steps_done, 0);
        assert_eq!(p.lanes(), None, "forgotten with the run");
        p.start(99, 1, 1); // beyond the counted parties: ignored
        p.step(99);
        assert_eq!(p.snapshot().steps_done, 0);
    }
}
