//! The choices of a run beyond protocol and circuit ([`RunOptions`]): how
//! it uses threads and memory, when preprocessing runs, how products are
//! truncated, where randomness comes from ([`Randomness`]), the options of
//! garbling, and (feature `fault-injection`) a party that deviates on purpose.

use crate::error::RunError;
use crate::{fault, garble};
#[cfg(any(test, feature = "testing"))]
use huddle_core::prg::Seed;

/// Choices of a run beyond protocol and circuit. Built from
/// [`RunOptions::default`] (or [`RunOptions::for_protocol`]) with the
/// `with_*` setters, so that a field added later breaks no caller; the
/// fields are public to read. [`RunRequest::new`](crate::RunRequest::new)
/// checks them against the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunOptions {
    /// Worker threads for local computation.
    pub threads: usize,
    /// Whether `threads` is this host's `auto` choice rather than a number
    /// the user gave: the hello then offers it as a most (`Value::Least`)
    /// and every party runs the least any party offers, since all parties
    /// of a run must use one count. Auto's 1 (at most one core per party)
    /// lets each protocol add a thread that fills waits where that pays
    /// ([`FILLER_LANES`]).
    pub threads_auto: bool,
    /// Secret-sharing protocols: run every assignment of the protocol's
    /// roles to the parties at once, each on its share of the batch
    /// (Harth-Kitzerow–Carle Section V-E), so every party and every link
    /// carries the same load. One lane (thread) per assignment: n! of them;
    /// `threads` does not apply.
    pub split_roles: bool,
    /// When ASTRA's and Trio's preprocessing runs.
    pub preprocess: Preprocess,
    /// Bytes of shares a party may hold at once (secret-sharing protocols):
    /// a larger batch is evaluated in slices of this size, one after another.
    pub share_memory: usize,
    /// The one party that learns the outputs (None: every party).
    pub reveal_to: Option<usize>,
    /// Which of the garbling optimizations are on (bgw3, bgw2, bgw2-mal).
    pub garble: garble::Optimizations,
    /// Where bgw2-mal's linear preprocessing comes from.
    pub linear: garble::linear::LinearChoice,
    /// Where fresh keys and masks come from (the OS, except in tests).
    pub randomness: Randomness,
    /// A party that deviates on purpose (malicious protocols; tests and
    /// demonstrations of their checks): set only with the
    /// `fault-injection` feature ([`RunOptions::with_fault`]).
    pub(crate) fault: Option<fault::Fault>,
    /// Malicious secret-sharing protocols: also compare views (and settle
    /// verdicts) after every this many multiplication layers, so that a
    /// deviation stops the run early instead of at the end (None: once,
    /// before any output).
    pub verify_every: Option<usize>,
    /// How `DOTTR` (fixed-point products) truncates.
    pub truncation: Truncation,
    /// Secret-sharing protocols: at most this many operands per product in
    /// one round (within the protocol's own limit), in the circuit and in
    /// the conversions' circuits, which then use it where it saves rounds.
    /// Wide products cost more, so this trades rounds for bytes (None: the
    /// protocol's limit for the circuit, its preference for conversions).
    pub max_fan_in: Option<usize>,
}

/// How a fixed-point product (`DOTTR`) is truncated by the secret-sharing
/// protocols.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Truncation {
    /// ⌊v / 2^f⌋ exactly, as the plaintext evaluator: the product's bits
    /// through A2B, shifted, and back through B2A (rounds and traffic of a
    /// k-bit adder).
    #[default]
    Exact,
    /// Fused into the multiplication, no adder (ABY3-style, HK-C Figure
    /// 11; ca2pc dealer-assisted, with one message to one computing party
    /// and one round more): ⌊v / 2^f⌋ or one more, except with probability
    /// at most about |v| / 2^k when the masked product wraps around the ring.
    Probabilistic,
}

impl Truncation {
    /// The truncation its `--truncation` spelling names.
    pub fn parse(s: &str) -> Option<Truncation> {
        match s {
            "exact" => Some(Truncation::Exact),
            "probabilistic" => Some(Truncation::Probabilistic),
            _ => None,
        }
    }

    /// The `--truncation` spelling.
    pub fn name(self) -> &'static str {
        match self {
            Truncation::Exact => "exact",
            Truncation::Probabilistic => "probabilistic",
        }
    }
}

/// Where a party's fresh randomness (keys, masks, a dealer's secret) comes
/// from. Every draw goes through [`Randomness::draw`], so a test can make a
/// whole run, masks included, replay exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Randomness {
    /// The operating system's entropy source: every real run.
    #[default]
    Os,
    /// Everything follows from this seed. No security at all (anyone with
    /// the seed knows every mask): it exists only in builds with the
    /// `testing` feature, which tests enable and the CLI never does.
    #[cfg(any(test, feature = "testing"))]
    Seeded(Seed),
}

impl Randomness {
    /// A fresh generator for `party`'s draw number `draw` (draws of one
    /// party must differ in `draw`; with `Os` they are independent anyway).
    // Only the seeded source reads `party` and `draw`.
    #[cfg_attr(not(any(test, feature = "testing")), allow(unused_variables))]
    pub fn draw(self, party: huddle_net::PartyId, draw: u64) -> Result<huddle_core::Prg, RunError> {
        match self {
            Randomness::Os => {
                huddle_core::Prg::from_entropy().map_err(|e| RunError::Entropy(e.to_string()))
            }
            #[cfg(any(test, feature = "testing"))]
            Randomness::Seeded(seed) => {
                let mut key = seed;
                for (k, b) in key.iter_mut().zip(
                    (party as u64)
                        .to_le_bytes()
                        .into_iter()
                        .chain(draw.to_le_bytes()),
                ) {
                    *k ^= b;
                }
                // One AES step, so nearby (party, draw) pairs give unrelated keys.
                Ok(huddle_core::Prg::from_seed(
                    huddle_core::Prg::from_seed(key).next_seed(),
                ))
            }
        }
    }
}

/// Draw numbers of the engine's own call sites (see [`Randomness::draw`]).
pub(crate) mod draws {
    /// A garbling party's masks and keys.
    pub(crate) const GARBLING: u64 = 1;
    /// The trusted dealer's secret key (drawn as party 0's).
    pub(crate) const DEALER: u64 = 2;
    /// The id of one deal.
    pub(crate) const DEAL_ID: u64 = 3;
    /// Pairwise keys of the secret-sharing protocols: this plus lane and key counter.
    pub(crate) const SHARING_KEYS: u64 = 1 << 32;
}

/// Default bound on the shares a party of a secret-sharing protocol holds
/// at once, in MiB. Each slice of a batch repeats the circuit's rounds, and
/// a slice's arena and messages stay resident and recycled between them.
/// Measured on loopback TCP on 2 cores: slices of 8 to 32 MiB ran faster
/// than one of 512 MiB, and 64 MiB as fast as 32 or faster on every
/// workload measured, far below the peers' memory
/// (docs/perf/2026-11-25-figures-from-doc-comments.md,
/// docs/perf/2026-11-26-vaes-256.md). Over a high-latency link a large batch
/// wants a larger value (`--share-memory`).
pub const DEFAULT_SHARE_MEMORY_MIB: usize = 64;

/// Garbling's default (garbled rows and keys at once): its instances are
/// large (8 MB for SHA-256) and a party's memory then stays within the peer
/// framework's (MP-SPDZ's shamir-bmr) at 20 SHA-256 blocks.
pub const DEFAULT_GARBLE_MEMORY_MIB: usize = 32;

impl RunOptions {
    /// Whether this is `--threads auto` settled on at most one core per
    /// party: the secret-sharing engine then runs one lane or
    /// [`FILLER_LANES`] by the batch ([`FILLER_MIN_SLICES`]).
    pub(crate) fn one_core_auto(&self) -> bool {
        self.threads_auto && self.threads == 1
    }

    /// Threads for the protocols that run no lanes of slices (the TTP,
    /// garbling): auto's one core per party gets [`FILLER_LANES`],
    /// whose waits fill each other.
    pub(crate) fn worker_threads(&self) -> usize {
        if self.one_core_auto() {
            FILLER_LANES
        } else {
            self.threads
        }
    }
}

/// Setters, one per field: each returns the options with that field set
/// (see the field for what it means).
impl RunOptions {
    /// Worker threads for local computation (at least 1).
    #[must_use]
    pub fn with_threads(self, threads: usize) -> RunOptions {
        RunOptions { threads, ..self }
    }

    /// Whether `threads` is this host's `auto` choice (see the field).
    #[must_use]
    pub fn with_threads_auto(self, threads_auto: bool) -> RunOptions {
        RunOptions {
            threads_auto,
            ..self
        }
    }

    /// Runs every assignment of roles at once (secret-sharing protocols; see the field).
    #[must_use]
    pub fn with_split_roles(self, split_roles: bool) -> RunOptions {
        RunOptions {
            split_roles,
            ..self
        }
    }

    /// When the preprocessing of the protocols that have a separate one runs.
    #[must_use]
    pub fn with_preprocess(self, preprocess: Preprocess) -> RunOptions {
        RunOptions { preprocess, ..self }
    }

    /// Bytes of shares a party may hold at once.
    #[must_use]
    pub fn with_share_memory(self, share_memory: usize) -> RunOptions {
        RunOptions {
            share_memory,
            ..self
        }
    }

    /// The one party that learns the outputs (None: every party).
    #[must_use]
    pub fn with_reveal_to(self, reveal_to: Option<usize>) -> RunOptions {
        RunOptions { reveal_to, ..self }
    }

    /// The garbling optimizations (bgw3, bgw2, bgw2-mal).
    #[must_use]
    pub fn with_garble(self, garble: garble::Optimizations) -> RunOptions {
        RunOptions { garble, ..self }
    }

    /// Where bgw2-mal's linear preprocessing comes from.
    #[must_use]
    pub fn with_linear(self, linear: garble::linear::LinearChoice) -> RunOptions {
        RunOptions { linear, ..self }
    }

    /// Where fresh keys and masks come from.
    #[must_use]
    pub fn with_randomness(self, randomness: Randomness) -> RunOptions {
        RunOptions { randomness, ..self }
    }

    /// A party that deviates on purpose (malicious secret-sharing
    /// protocols), to test and demonstrate their checks. Only with the
    /// `fault-injection` feature (the CLI's `--corrupt`; `testing` implies it).
    #[cfg(feature = "fault-injection")]
    #[must_use]
    pub fn with_fault(self, fault: Option<fault::Fault>) -> RunOptions {
        RunOptions { fault, ..self }
    }

    /// Compare views after every this many multiplication layers (malicious secret-sharing protocols).
    #[must_use]
    pub fn with_verify_every(self, verify_every: Option<usize>) -> RunOptions {
        RunOptions {
            verify_every,
            ..self
        }
    }

    /// How `DOTTR` truncates.
    #[must_use]
    pub fn with_truncation(self, truncation: Truncation) -> RunOptions {
        RunOptions { truncation, ..self }
    }

    /// At most this many operands per product in one round (secret-sharing protocols).
    #[must_use]
    pub fn with_max_fan_in(self, max_fan_in: Option<usize>) -> RunOptions {
        RunOptions { max_fan_in, ..self }
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            threads: 1,
            threads_auto: false,
            split_roles: false,
            preprocess: Preprocess::Interleaved,
            share_memory: DEFAULT_SHARE_MEMORY_MIB << 20,
            reveal_to: None,
            garble: garble::Optimizations::default(),
            linear: garble::linear::LinearChoice::Auto,
            randomness: Randomness::Os,
            fault: None,
            verify_every: None,
            truncation: Truncation::Exact,
            max_fan_in: None,
        }
    }
}

/// How the function-dependent preprocessing of ASTRA and Trio is scheduled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Preprocess {
    /// All preprocessing messages are sent and received before the inputs.
    Separate,
    /// Each layer's preprocessing goes out with that layer.
    #[default]
    Interleaved,
}

impl Preprocess {
    /// The schedule its `--preprocess` spelling names.
    pub fn parse(s: &str) -> Option<Preprocess> {
        match s {
            "separate" => Some(Preprocess::Separate),
            "interleaved" => Some(Preprocess::Interleaved),
            _ => None,
        }
    }

    /// The `--preprocess` spelling.
    pub fn name(self) -> &'static str {
        match self {
            Preprocess::Separate => "separate",
            Preprocess::Interleaved => "interleaved",
        }
    }
}

/// `--threads auto` on a host with at most one core per party (threads 1,
/// `threads_auto`) runs [`FILLER_LANES`] lanes only
/// for a batch of at least this many slices. The second lane fills the
/// other's waits for messages, but doubles the memory a party touches,
/// and every page of it costs a page fault in the run's first slice, a
/// cost that only a batch of many slices amortizes. Measured with four Quad
/// parties on 2 cores: one lane is faster below 8 slices, alike at 8 and
/// slower above (docs/perf/2026-11-28-threads-auto-one-lane.md).
pub const FILLER_MIN_SLICES: usize = 8;

/// Lanes of `--threads auto` where each party has at most one core (see
/// [`FILLER_MIN_SLICES`]).
pub const FILLER_LANES: usize = 2;
