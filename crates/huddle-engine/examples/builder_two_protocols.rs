//! A circuit built in code with `huddle_circuit`'s `Builder`, run under two
//! protocols: replicated secret sharing and bgw3 garbling, three parties in
//! this process. For pairs of 8-bit values x (party 0's) and y (party
//! 1's): whether x = y, and x AND y. Prints each instance's outputs and
//! each protocol's cost, checked against the plaintext evaluator.
//!
//! `cargo run --example builder_two_protocols -p huddle-engine`

use huddle_circuit::builder::Builder;
use huddle_circuit::{BitMatrix, Circuit, PlainEvaluator};
use huddle_engine::{LocalNet, Protocol, Run};
use std::error::Error;

fn circuit() -> Circuit {
    let mut b = Builder::boolean(2);
    let x = b.input("x", 8);
    let y = b.input("y", 8);
    // x = y: every bit the same.
    let same: Vec<_> = x
        .iter()
        .zip(&y)
        .map(|(&a, &c)| {
            let differ = b.xor(a, c);
            b.not(differ)
        })
        .collect();
    let equal = b.and_all(&same);
    b.output("equal", vec![equal]);
    let both: Vec<_> = x.iter().zip(&y).map(|(&a, &c)| b.and(a, c)).collect();
    b.output("x_and_y", both);
    b.finish()
}

/// One instance per value, `bits` bits each.
fn column(values: &[u64], bits: usize) -> BitMatrix {
    let mut m = BitMatrix::zeros(values.len(), bits);
    for (r, &v) in values.iter().enumerate() {
        m.row_mut(r)[0] = v;
    }
    m
}

fn main() -> Result<(), Box<dyn Error>> {
    let circuit = circuit();
    let x = [7, 200, 42, 255];
    let y = [7, 100, 43, 15];
    let inputs = [column(&x, 8), column(&y, 8)];
    let want = PlainEvaluator::new(&circuit).evaluate(&inputs)?;
    for protocol in [Protocol::Replicated, Protocol::Bgw3] {
        let run = Run::builder(protocol)
            .parties(3)
            .circuit(circuit.clone())
            .build()?;
        let report = run.local(&inputs, &LocalNet::memory())?;
        if report.outputs != want {
            return Err(
                format!("{protocol}: the outputs differ from the plaintext evaluator's").into(),
            );
        }
        let total: u64 = report.bytes.values().flat_map(|l| l.values()).sum();
        println!(
            "{protocol}: {} online rounds, {total} bytes in all (checked against the plaintext evaluator)",
            report.online_rounds
        );
        for (r, (a, b)) in x.iter().zip(&y).enumerate() {
            let equal = report.outputs[0].get(r, 0);
            let and = report.outputs[1].row(r)[0];
            println!("  x = {a:3}, y = {b:3}: equal {equal:5}, x AND y = {and:3}");
        }
    }
    Ok(())
}
