//! The trusted dealer's side of a bgw2-mal run whose parties are on other
//! hosts (`huddle deal`): per party, the linear preprocessing the run will
//! ask for, recorded in the order [`linear_round`] asks for it.

use super::linear::{DealtHeader, Recorder, Recording, TrustedDealer};
use super::offline::linear_round;
use super::options::Variant;
use super::plan::Plan;
use crate::error::RunError;
use huddle_circuit::Circuit;
use huddle_core::Gf128;

/// The trusted dealer's material for every party of a bgw2-mal run whose
/// parties are on other hosts: file p holds only party p's shares (and the
/// secrets party p owns), for exactly this circuit, party count,
/// key-contributor count and number of instances.
pub fn deal(
    circuit: &Circuit,
    parties: usize,
    instances: usize,
    options: crate::RunOptions,
) -> Result<Vec<Vec<u8>>, RunError> {
    let variant = Variant::Bgw2Mal;
    variant.check_parties(parties)?;
    let plan = Plan::new(circuit, parties, true)?;
    let contributors = options.garble.contributors(variant, parties);
    let dealer = TrustedDealer::new(variant.threshold(parties), options.randomness)?;
    let mut deal = [0u8; 16];
    options
        .randomness
        .draw(0, crate::options::draws::DEAL_ID)?
        .fill_bytes(&mut deal);
    (0..parties)
        .map(|p| {
            let mut line = dealer.line(p);
            let mut recording = Recording::default();
            let mut recorder = Recorder {
                inner: &mut line,
                recording: &mut recording,
            };
            for _ in 0..instances {
                let mut lambda = vec![Gf128::ZERO; plan.wires];
                let mut own = Vec::new();
                linear_round(&mut recorder, &plan, p, contributors, &mut lambda, &mut own)?;
            }
            Ok(recording.encode(&DealtHeader {
                party: p,
                parties,
                instances,
                contributors,
                circuit: crate::circuit_hash(circuit),
                deal,
            }))
        })
        .collect()
}
