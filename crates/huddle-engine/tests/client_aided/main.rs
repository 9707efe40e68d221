//! Client-aided 2PC (`ca2pc`, Ohata–Nuida): exact communication of N-input
//! AND and MULT (N = 2..9) per link and phase, the dealer's view (it
//! receives nothing at all), what the computing parties receive, and the
//! requests it refuses.
//!
//! One test binary, a module per subject:
//! - `communication`: bytes per link and phase and rounds of products
//!   (paper Tables 1 and 2), wide products, preprocessing order,
//!   conversions, shared operands and arithmetic blinding;
//! - `roles`: who may own inputs and learn outputs (never the dealer), and
//!   that every word a computing party receives looks uniform;
//! - `truncation_views`: recorded runs of one truncated product: the
//!   rounding is independent of what the output's learner holds, the opener
//!   learns the one stated comparison, and each output follows exactly from
//!   the dealer's r;
//! - `truncation_results`: truncated outputs against the plaintext in every
//!   ring and setting, and the rates of rounding up and wrapping.
//!
//! This file holds what several of them use: the N-input product circuit
//! and a checked run of it.

use huddle_circuit::builder::Builder;
use huddle_circuit::random::random_inputs;
use huddle_circuit::{Circuit, Op, PlainEvaluator};
use huddle_core::{Prg, RingWidth};
use huddle_engine::RunOptions;
use huddle_net::{memory_networks, Accounting, NetProfile};
use std::time::Duration;

#[path = "../common/mod.rs"]
mod common;
mod communication;
mod roles;
mod truncation_results;
mod truncation_views;

use common::local;

/// One N-input product of x_i = a_i + b_i (a from P0, b from P1): Boolean
/// (AND of XORs) or over `ring` (MULT of sums).
fn n_input_product(n: usize, ring: Option<RingWidth>) -> Circuit {
    let mut b = match ring {
        Some(r) => Builder::arithmetic(r, 9),
        None => Builder::boolean(9),
    };
    let (x, y) = match ring {
        Some(_) => (b.ring_input("a", n as u32), b.ring_input("b", n as u32)),
        None => (b.input("a", n as u32), b.input("b", n as u32)),
    };
    let sums: Vec<_> = x
        .iter()
        .zip(&y)
        .map(|(&p, &q)| match ring {
            Some(_) => b.ring_op(Op::Add, &[p, q]),
            None => b.xor(p, q),
        })
        .collect();
    match ring {
        Some(_) => {
            let z = b.ring_op(Op::Mul, &sums);
            b.ring_output("z", vec![z]);
        }
        None => {
            let z = b.and_all(&sums);
            b.output("z", vec![z]);
        }
    }
    b.finish()
}

fn run(
    c: &Circuit,
    instances: usize,
    seed: u8,
) -> (Vec<Vec<huddle_circuit::BitMatrix>>, Accounting) {
    run_with(c, instances, seed, RunOptions::default())
}

fn run_with(
    c: &Circuit,
    instances: usize,
    seed: u8,
    options: RunOptions,
) -> (Vec<Vec<huddle_circuit::BitMatrix>>, Accounting) {
    let mut prg = Prg::from_seed([seed; 16]);
    let inputs = random_inputs(c, &mut prg, instances);
    let want = PlainEvaluator::new(c).evaluate(&inputs).expect("plain");
    let nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
    let results = local("ca2pc", nets, c, &inputs, options).expect("ca2pc");
    let mut acc = Accounting::default();
    for r in &results {
        acc.merge(&r.accounting);
    }
    let outputs: Vec<_> = results.into_iter().map(|r| r.outputs).collect();
    assert_eq!(outputs[0], want);
    assert_eq!(outputs[1], want);
    assert!(outputs[2].is_empty(), "the dealer learned outputs");
    (outputs, acc)
}
