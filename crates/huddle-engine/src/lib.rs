//! huddle's engine: runs a circuit under a protocol across a `Network`.
//!
//! So far it hosts the trusted-third-party protocol, the baseline every
//! secure protocol is measured against: input owners send their inputs to
//! party 0, which evaluates in the clear and returns the outputs to every
//! party. The message sizes follow from the circuit and the batch alone, so
//! every receive is exact and every byte is accounted.

pub mod replicated;
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

use huddle_circuit::BitMatrix;
use huddle_net::Network;

/// A protocol this build can run, with the number of parties it needs (None: any).
pub struct ProtocolInfo {
    pub name: &'static str,
    pub parties: Option<usize>,
    pub summary: &'static str,
}

pub const PROTOCOLS: &[ProtocolInfo] = &[
    ProtocolInfo {
        name: "ttp",
        parties: None,
        summary: "trusted third party: party 0 evaluates in the clear (baseline, not secure)",
    },
    ProtocolInfo {
        name: "replicated",
        parties: Some(3),
        summary: "Replicated 3PC (Araki et al.), semi-honest, Boolean circuits",
    },
];

pub fn protocol(name: &str) -> Option<&'static ProtocolInfo> {
    PROTOCOLS.iter().find(|p| p.name == name)
}

/// Runs one party of protocol `name`; `own_inputs` as in [`ttp::run`].
pub fn run(
    name: &str,
    net: &mut Network,
    circuit: &Circuit,
    instances: usize,
    own_inputs: &[(usize, BitMatrix)],
    threads: usize,
) -> Result<Vec<BitMatrix>, ttp::RunError> {
    match name {
        "ttp" => ttp::run(net, circuit, instances, own_inputs, threads),
        "replicated" => replicated::run(net, circuit, instances, own_inputs),
        other => Err(ttp::RunError::Input(format!("unknown protocol `{other}`"))),
    }
}
