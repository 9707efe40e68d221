//! huddle's engine: runs a circuit under a protocol across a `Network`.
//!
//! So far it hosts the trusted-third-party protocol, the baseline every
//! secure protocol is measured against: input owners send their inputs to
//! party 0, which evaluates in the clear and returns the outputs to every
//! party. The message sizes follow from the circuit and the batch alone, so
//! every receive is exact and every byte is accounted.

pub mod ttp;

use huddle_circuit::Circuit;

/// The value every party of a run must agree on: SHA-256 of the circuit in
/// its canonical written form.
pub fn circuit_hash(circuit: &Circuit) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut text = Vec::new();
    // Writing to memory cannot fail.
    let _ = huddle_circuit::write_circuit(circuit, &mut text);
    Sha256::digest(&text).into()
}
