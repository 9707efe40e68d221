//! huddle's engine: runs a circuit under a protocol across a `Network` of
//! parties. It hosts the trusted-third-party protocol (`ttp`, the baseline
//! every secure protocol is measured against), the secret-sharing engine
//! with its protocols and multiparty garbling ([`garble`]). Message sizes
//! follow from the circuit and the batch alone, so every receive is exact
//! and every byte is accounted.
//!
//! # Running a circuit from a program
//!
//! Build a [`Run`] ([`Run::builder`]: protocol, parties, circuit,
//! [`RunOptions`], and optionally a [`Progress`] to watch and a
//! [`CancelToken`] to stop it), then run every party in this process
//! ([`Run::local`]) or one party over links to the others ([`Run::connect`]
//! and [`Run::party`]). Either gives a [`RunReport`]: the outputs, bytes
//! per link and phase, rounds, seconds, lanes.
//!
//! ```
//! use huddle_circuit::{builder::Builder, BitMatrix, PlainEvaluator};
//! use huddle_engine::{LocalNet, Protocol, Run};
//!
//! // x AND y, x owned by party 0 and y by party 1.
//! let mut b = Builder::boolean(2);
//! let x = b.input("x", 1);
//! let y = b.input("y", 1);
//! let z = b.and(x[0], y[0]);
//! b.output("z", vec![z]);
//! let circuit = b.finish();
//!
//! let run = Run::builder(Protocol::Trio).parties(3).circuit(circuit).build()?;
//! let one = |bit| {
//!     let mut m = BitMatrix::zeros(1, 1);
//!     m.set(0, 0, bit);
//!     m
//! };
//! let inputs = [one(true), one(true)];
//! let report = run.local(&inputs, &LocalNet::memory())?;
//! let want = PlainEvaluator::new(run.circuit()).evaluate(&inputs)?;
//! assert_eq!(report.outputs, want);
//! println!("{} online rounds", report.online_rounds);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What is public
//!
//! - **A run**: [`Run`] and its [`RunBuilder`]; [`RunOptions`] with
//!   [`Preprocess`], [`Truncation`], [`Randomness`] and garbling's
//!   [`garble::Optimizations`] and [`garble::linear::LinearChoice`]; a
//!   [`Progress`] to watch ([`Snapshot`]) and a [`CancelToken`] to stop it.
//! - **Every party in this process**: [`Run::local`] over a [`LocalNet`]
//!   ([`Links`]); [`Run::local_over`] over networks the caller made, and
//!   [`Run::local_each`] for every party's own ending ([`PartyOutcome`]);
//!   a failure as the [`LocalError`] that best explains it.
//! - **One party of a run across hosts**: a [`PartyPlan`] ([`Batch`],
//!   [`OwnValue`], [`RandomRows`]), [`PartyLinks`], [`Run::handshake`],
//!   [`Run::connect`], [`Run::party`].
//! - **What a run gives**: a [`RunReport`] ([`PerPhase`]), or a
//!   [`RunError`] ([`Refusal`]) with its exit code ([`exit::Exit`]).
//! - **What a run will cost**: [`Run::cost`] (or [`RunRequest::cost`]), the
//!   exact bytes, messages and rounds per link and phase as a [`Cost`],
//!   predicted from the circuit, protocol and options without running;
//!   [`Run::predict`] and [`Run::predict_local`], the time it will take
//!   over a network profile at a host's [`Rates`] ([`Rates::calibrate`]
//!   measures them), as a [`Prediction`] with the [`Bound`] that
//!   dominates; [`Work`], the units of local work the rates price.
//! - **Which run to choose**: [`plan`], every choice a circuit and the
//!   user's requirements admit (protocol, fan-in, roles, preprocessing,
//!   threads) with its exact cost, ranked.
//! - **The protocol table**: [`protocol`] ([`Protocol`] and its
//!   [`Descriptor`](protocol::Descriptor), [`MessageType`]) and the
//!   [`RunRequest`] every party of a run agrees on.
//! - **The process**: [`keep_freed_memory`], the allocator settings huddle
//!   runs fastest with (the CLI and the Python package set them).
//! - **Facts to plan with**: [`circuit_hash`], [`check_memory`],
//!   [`MAX_BATCH`], [`MAX_PARTIES`], the memory defaults
//!   ([`default_share_memory_mib`]), [`FILLER_LANES`] and
//!   [`FILLER_MIN_SLICES`], [`CONVERSION_FAN_IN`], [`REVEAL`]; garbling's
//!   expected costs ([`garble::garbled_circuit_bytes`],
//!   [`garble::buffer_gate_bytes`], [`garble::malicious_gate_counts`]) and
//!   its trusted dealer across hosts ([`garble::deal`]).
//! - **Features**: `fault-injection` adds the `fault` module and
//!   [`RunOptions`]' `with_fault` (one party deviates on purpose; the
//!   CLI's `--corrupt`); `testing` adds the insecure
//!   `Randomness::Seeded` and the `testing` module, the internals the
//!   engine's own tests reach into. Neither is for real runs.
//!
//! Everything else (the engines, the protocols' implementations, the wire
//! encoding, the per-engine entry points) is private: [`Run`] is the
//! only way in.

#![warn(missing_docs, unreachable_pub)]

mod builder;
mod cancel;
mod cost;
mod descriptor;
pub mod error;
pub mod exit;
#[cfg(feature = "fault-injection")]
pub mod fault;
#[cfg(not(feature = "fault-injection"))]
mod fault;
pub mod garble;
mod inputs;
mod local;
mod memory;
mod options;
mod party;
pub mod plan;
mod predict;
mod progress;
pub mod protocol;
mod report;
mod run;
mod seats;
mod settings;
mod sharing;
mod start;
#[cfg(feature = "testing")]
pub mod testing;
mod time;
mod transport;
mod ttp;

pub use builder::{Run, RunBuilder};
pub use cancel::CancelToken;
pub use cost::{Cost, Work};
pub use error::{Refusal, RunError};
pub use fault::MessageType;
pub use inputs::{OwnValue, RandomRows, MAX_BATCH};
pub use local::{Links, LocalNet, PartyOutcome};
pub use memory::{check_memory, keep_freed_memory};
pub use options::{
    Preprocess, Randomness, RunOptions, Truncation, DEFAULT_GARBLE_MEMORY_MIB,
    DEFAULT_SHARE_MEMORY_MIB, FILLER_LANES, FILLER_MIN_SLICES,
};
pub use party::{connect_undecided, settled_batch, Batch, PartyLinks, PartyPlan, BATCH};
pub use progress::{Progress, Snapshot};
pub use protocol::{default_share_memory_mib, Protocol, RunRequest, MAX_PARTIES};
pub use report::{PerPhase, RunReport};
pub use run::LocalError;
pub use sharing::program::CONVERSION_FAN_IN;
pub use time::{Bound, Prediction, Rates, RatesError, TransportRates, TransportsRates, WorkRates};
pub use transport::REVEAL;

use huddle_circuit::Circuit;

/// The value every party of a run must agree on: SHA-256 of the circuit in
/// its canonical binary form ([`huddle_circuit::write_canonical`]).
pub fn circuit_hash(circuit: &Circuit) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    // The form streams into the hash; writing to a hash cannot fail.
    let mut hasher = Sha256::new();
    let _ = huddle_circuit::write_canonical(circuit, &mut hasher);
    hasher.finalize().into()
}

/// SHA-256 of a compiled program held as circuit and interface: of both in
/// their canonical form ([`huddle_circuit::program::write_canonical_parts`]),
/// equal for the same program built in any process.
pub fn program_hash(circuit: &Circuit, interface: &huddle_circuit::program::Interface) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    let _ = huddle_circuit::program::write_canonical_parts(circuit, interface, &mut hasher);
    hasher.finalize().into()
}
