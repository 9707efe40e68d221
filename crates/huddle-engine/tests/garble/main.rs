//! Multiparty garbling (BGW3_opt, BGW2_opt, BGW2_opt^mal): every public
//! circuit and random circuits for several party counts, equal to the
//! plaintext evaluator at every party; the exact bytes of every link and
//! phase (the garbled circuit is 4 · #AND · (t + 1) · 16 bytes per party,
//! plus 2 rows per buffer gate in the malicious variant); the round counts;
//! refusals; corrupted messages (abort or the right output, never a wrong
//! one).
//!
//! One test binary, a module per subject; here the runs they share.

#[path = "../common/mod.rs"]
mod common;

mod communication;
mod correctness;
mod dealer;
mod optimizations;
mod refusals;
mod secrecy;
mod tampering;

use common::local;
use huddle_circuit::random::random_inputs;
use huddle_circuit::{BitMatrix, Circuit, PlainEvaluator};
use huddle_core::Prg;
use huddle_engine::garble::{Optimizations, Variant};
use huddle_engine::RunOptions;
use huddle_net::{memory_networks, Accounting, NetProfile};
use std::time::Duration;

/// The semi-honest variants (the optimization switches apply to these).
const SEMI_HONEST: [(&str, Variant); 2] = [("bgw3", Variant::Bgw3), ("bgw2", Variant::Bgw2)];
/// Every variant.
const VARIANTS: [(&str, Variant); 3] = [
    ("bgw3", Variant::Bgw3),
    ("bgw2", Variant::Bgw2),
    ("bgw2-mal", Variant::Bgw2Mal),
];

fn run(
    protocol: &str,
    n: usize,
    circuit: &Circuit,
    inputs: &[BitMatrix],
) -> (Vec<Vec<BitMatrix>>, Accounting) {
    run_with(protocol, n, circuit, inputs, Optimizations::default())
}

fn run_with(
    protocol: &str,
    n: usize,
    circuit: &Circuit,
    inputs: &[BitMatrix],
    garble: Optimizations,
) -> (Vec<Vec<BitMatrix>>, Accounting) {
    let options = RunOptions::default().with_garble(garble);
    run_options(protocol, n, circuit, inputs, options)
}

fn run_options(
    protocol: &str,
    n: usize,
    circuit: &Circuit,
    inputs: &[BitMatrix],
    options: RunOptions,
) -> (Vec<Vec<BitMatrix>>, Accounting) {
    let nets = memory_networks(n, &NetProfile::lan(), Duration::from_secs(60));
    let results = local(protocol, nets, circuit, inputs, options)
        .unwrap_or_else(|e| panic!("{protocol}, {n} parties: {e}"));
    let mut acc = Accounting::default();
    for r in &results {
        acc.merge(&r.accounting);
    }
    (results.into_iter().map(|r| r.outputs).collect(), acc)
}

fn check(protocol: &str, n: usize, name: &str, circuit: &Circuit, instances: usize, prg: &mut Prg) {
    let inputs = random_inputs(circuit, prg, instances);
    let want = PlainEvaluator::new(circuit)
        .evaluate(&inputs)
        .expect("plaintext");
    let (outs, _) = run(protocol, n, circuit, &inputs);
    for (p, got) in outs.iter().enumerate() {
        assert!(
            got == &want,
            "{protocol}, {n} parties, {name}: party {p} differs from the plaintext evaluator"
        );
    }
}
