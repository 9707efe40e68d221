//! Helpers shared by the engine's test binaries.

#![allow(dead_code)] // each test binary uses its own subset

/// A local run of the protocol named `protocol`, requested as the CLI does.
pub fn local(
    protocol: &str,
    nets: Vec<huddle_net::Network>,
    circuit: &huddle_circuit::Circuit,
    inputs: &[huddle_circuit::BitMatrix],
    options: huddle_engine::RunOptions,
) -> Result<Vec<huddle_engine::PartyResult>, String> {
    let request = request(protocol, nets.len(), circuit, options).map_err(|e| e.to_string())?;
    huddle_engine::run_local(&request, nets, circuit, inputs).map_err(|e| e.to_string())
}

/// The checked request for the protocol named `protocol`.
pub fn request(
    protocol: &str,
    parties: usize,
    circuit: &huddle_circuit::Circuit,
    options: huddle_engine::RunOptions,
) -> Result<huddle_engine::RunRequest, huddle_engine::ttp::RunError> {
    huddle_engine::check_request(protocol.parse()?, parties, circuit, options)
}
