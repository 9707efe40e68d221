//! AES-128 among three parties in this process, under Trio: party 0 holds
//! the key, party 1 the plaintext, party 2 nothing. Prints the ciphertext
//! of the FIPS-197 example vector, checked against the plaintext evaluator.
//!
//! `cargo run --example aes_three_parties -p huddle-engine`

use huddle_circuit::aes::{aes, SboxDepth};
use huddle_circuit::{hex, BitMatrix, PlainEvaluator};
use huddle_engine::{LocalNet, Protocol, Run};
use std::error::Error;

/// One instance of a `bits`-bit value given in hex (byte 0 leftmost).
fn value(text: &str, bits: usize) -> Result<BitMatrix, Box<dyn Error>> {
    let words = hex::decode(text, bits)?;
    BitMatrix::from_row_words(1, bits, words).ok_or_else(|| "a value of the wrong size".into())
}

fn main() -> Result<(), Box<dyn Error>> {
    let circuit = aes(128, false, SboxDepth::Four)?;
    let inputs = [
        value("000102030405060708090a0b0c0d0e0f", 128)?, // the key: party 0's
        value("00112233445566778899aabbccddeeff", 128)?, // the plaintext: party 1's
    ];
    let run = Run::builder(Protocol::Trio)
        .parties(3)
        .circuit(circuit)
        .build()?;
    let report = run.local(&inputs, &LocalNet::memory())?;
    let want = PlainEvaluator::new(run.circuit()).evaluate(&inputs)?;
    if report.outputs != want {
        return Err("the parties' ciphertext differs from the plaintext evaluator's".into());
    }
    let ciphertext = hex::encode(report.outputs[0].row(0), 128);
    if ciphertext != "69c4e0d86a7b0430d8cdb78070b4c55a" {
        return Err(format!("{ciphertext} is not FIPS-197's ciphertext").into());
    }
    let online: u64 = report.bytes["online"].values().sum();
    println!("ciphertext {ciphertext} (checked against the plaintext evaluator and FIPS-197)");
    println!(
        "{} parties, protocol {}: {} online rounds, {online} bytes online, {:.3} s",
        report.parties, report.protocol, report.online_rounds, report.wall_seconds
    );
    Ok(())
}
