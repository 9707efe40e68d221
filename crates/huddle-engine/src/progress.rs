//! How far a run has come, for a progress display: the secret-sharing
//! engine counts its steps (local steps, layers, conversions) as it
//! evaluates them, the command line draws. One party per process reports
//! (the first that starts a run after [`Progress::reset`]), so the parties
//! of `huddle local` do not count three times. Counting is a relaxed atomic
//! add per step: nothing a run could notice.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

pub struct Progress {
    reporter: AtomicUsize,
    instances: AtomicU64,
    steps_total: AtomicU64,
    steps_done: AtomicU64,
}

const NOBODY: usize = usize::MAX;

static PROGRESS: Progress = Progress {
    reporter: AtomicUsize::new(NOBODY),
    instances: AtomicU64::new(0),
    steps_total: AtomicU64::new(0),
    steps_done: AtomicU64::new(0),
};

/// The process's progress counters.
pub fn progress() -> &'static Progress {
    &PROGRESS
}

/// A snapshot: the batch, and steps done of all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub instances: u64,
    pub steps_done: u64,
    pub steps_total: u64,
}

impl Progress {
    /// Forgets the last run (before starting one).
    pub fn reset(&self) {
        self.reporter.store(NOBODY, Relaxed);
        self.instances.store(0, Relaxed);
        self.steps_total.store(0, Relaxed);
        self.steps_done.store(0, Relaxed);
    }

    /// Party `party` starts a run of `instances` instances and `steps`
    /// steps in all; it reports if nobody does yet.
    pub(crate) fn start(&self, party: usize, instances: u64, steps: u64) {
        if self
            .reporter
            .compare_exchange(NOBODY, party, Relaxed, Relaxed)
            .is_ok()
        {
            self.instances.store(instances, Relaxed);
            self.steps_total.store(steps, Relaxed);
        }
    }

    /// Party `party` finished one step.
    pub(crate) fn step(&self, party: usize) {
        if self.reporter.load(Relaxed) == party {
            self.steps_done.fetch_add(1, Relaxed);
        }
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            instances: self.instances.load(Relaxed),
            steps_done: self.steps_done.load(Relaxed),
            steps_total: self.steps_total.load(Relaxed),
        }
    }
}
