//! How far a run has come, for a progress display: the secret-sharing
//! engine counts its steps (local steps, layers, conversions) as it
//! evaluates them, per party, into the [`Progress`] handle of its run, and
//! whoever watches draws the slowest party's count: in a run with every
//! party in one process a party that runs ahead (a dealer, a helper that
//! only preprocesses) does not show the run as done while the others still
//! compute. Counting is a relaxed atomic add per step: nothing a run could
//! notice. Each run has its own handle, so runs at once in one process
//! count apart.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// Parties counted (the secret-sharing protocols have at most 4).
const COUNTED: usize = 8;

/// A party not in the run.
const ABSENT: u64 = u64::MAX;

/// A run's progress counters, shared between the run and whoever watches
/// it: cloning gives another handle to the same counters. Give one to
/// [`RunBuilder::progress`](crate::RunBuilder::progress) and read it with
/// [`Progress::snapshot`] from any thread while the run lasts.
#[derive(Clone, Debug, Default)]
pub struct Progress(Arc<Counters>);

#[derive(Debug)]
struct Counters {
    instances: AtomicU64,
    steps_total: AtomicU64,
    /// Steps done per party id; `ABSENT` for parties not in the run.
    done: [AtomicU64; COUNTED],
    /// Lanes the secret-sharing engine chose for the run (0: none yet).
    lanes: AtomicU64,
}

impl Default for Counters {
    fn default() -> Self {
        Counters {
            instances: AtomicU64::new(0),
            steps_total: AtomicU64::new(0),
            done: [const { AtomicU64::new(ABSENT) }; COUNTED],
            lanes: AtomicU64::new(0),
        }
    }
}

/// A snapshot: the batch, and the slowest party's steps done of all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// Instances the run evaluates (0 before a party has started).
    pub instances: u64,
    /// Steps the slowest counted party has done.
    pub steps_done: u64,
    /// Steps of the whole run (0 before a party has started, and for the
    /// protocols that do not count steps: the TTP and garbling).
    pub steps_total: u64,
}

impl Progress {
    /// Fresh counters: no party started.
    pub fn new() -> Progress {
        Progress::default()
    }

    /// The lanes a party of the run evaluates (`--threads auto` may choose
    /// fewer or more than the thread count; every party chooses alike).
    pub(crate) fn set_lanes(&self, lanes: usize) {
        self.0.lanes.store(lanes as u64, Relaxed);
    }

    /// The lanes of the run's secret-sharing engine, once a party chose
    /// them (None for the protocols that run no lanes).
    pub fn lanes(&self) -> Option<usize> {
        match self.0.lanes.load(Relaxed) {
            0 => None,
            n => Some(n as usize),
        }
    }

    /// Party `party` starts a run of `instances` instances and `steps`
    /// steps in all.
    pub(crate) fn start(&self, party: usize, instances: u64, steps: u64) {
        if let Some(d) = self.0.done.get(party) {
            self.0.instances.store(instances, Relaxed);
            self.0.steps_total.store(steps, Relaxed);
            d.store(0, Relaxed);
        }
    }

    /// Party `party` finished one step.
    pub(crate) fn step(&self, party: usize) {
        if let Some(d) = self.0.done.get(party) {
            d.fetch_add(1, Relaxed);
        }
    }

    /// The counters now.
    pub fn snapshot(&self) -> Snapshot {
        let slowest = self
            .0
            .done
            .iter()
            .map(|d| d.load(Relaxed))
            .filter(|&d| d != ABSENT)
            .min()
            .unwrap_or(0);
        Snapshot {
            instances: self.0.instances.load(Relaxed),
            steps_done: slowest,
            steps_total: self.0.steps_total.load(Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slowest_party_sets_the_pace() {
        let p = Progress::new();
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
        p.start(99, 1, 1); // beyond the counted parties: ignored
        p.step(99);
        assert_eq!(p.snapshot().steps_done, 1);
    }

    #[test]
    fn handles_of_two_runs_count_apart() {
        let (a, b) = (Progress::new(), Progress::new());
        let watcher = a.clone();
        a.start(0, 4, 3);
        a.set_lanes(3);
        a.step(0);
        assert_eq!(watcher.snapshot().steps_done, 1, "a clone sees the run");
        assert_eq!(watcher.lanes(), Some(3));
        assert_eq!(b.snapshot(), Progress::new().snapshot(), "the other run");
        assert_eq!(b.lanes(), None);
    }
}
