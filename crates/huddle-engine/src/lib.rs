//! huddle's engine: runs a circuit under a protocol across a `Network`.
//!
//! It hosts the trusted-third-party protocol ([`ttp`], the baseline every
//! secure protocol is measured against), the secret-sharing engine
//! ([`sharing`]) with its protocols and multiparty garbling ([`garble`]).
//! Message sizes follow from the circuit and the batch alone, so every
//! receive is exact and every byte is accounted.

pub mod error;
pub mod exit;
pub mod fault;
pub mod garble;
pub mod inputs;
mod memory;
mod options;
pub mod progress;
pub mod protocol;
mod run;
pub mod settings;
pub mod sharing;
pub mod transport;
pub mod ttp;

pub use memory::check_memory;
pub use options::{
    Preprocess, Randomness, RunOptions, Truncation, DEFAULT_GARBLE_MEMORY_MIB,
    DEFAULT_SHARE_MEMORY_MIB,
};
pub use protocol::{default_share_memory_mib, Protocol, RunRequest, MAX_PARTIES};
pub use run::{check_request, run, run_local, run_party, LocalError, PartyResult};

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
