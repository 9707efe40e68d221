//! `huddle bench library`: the seconds of one `Run::local` call of the
//! library API on inputs already in memory, for the workloads the Python
//! package's overhead is measured on (python/benches/overhead.py runs this
//! in alternation with `huddle.run_local` on the same circuit and values).
//! Only the call is timed: building the circuit and the inputs, checking
//! the outputs and the untimed warm-up calls before (a fresh process pays
//! page faults and allocator growth a long-running caller has behind it)
//! are not.

use huddle_circuit::{gen, read_circuit, BitMatrix, Circuit};
use huddle_engine::{LocalNet, Protocol, Run, RunOptions};
use serde_json::json;
use std::time::Instant;

/// A workload: its circuit, its inputs for `batch` instances and the check
/// of its outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Case {
    /// AES-128 with its key schedule (`huddle.gen.aes128()`), the FIPS-197
    /// key and plaintext on every instance.
    Aes128,
    /// One product in Z_2^64 per instance ([`MUL64`]): x_i = (i + 1)·X,
    /// y_i = (i + 1)·Y (mod 2^64; X, Y the constants below), as
    /// overhead.py computes them.
    Mul64,
}

/// The odd constants of the products' inputs.
const X: u64 = 0x9E37_79B9_7F4A_7C15;
const Y: u64 = 0xD1B5_4A32_D192_ED03;

/// One product in Z_2^64 (docs/circuit-format.md), the text overhead.py
/// loads too.
const MUL64: &str = "ring 64\n1 3\n2 1r 1r\n1 1r\n\n2 1 0 1 2 MUL\n";

const FIPS_KEY: &str = "000102030405060708090a0b0c0d0e0f";
const FIPS_PLAINTEXT: &str = "00112233445566778899aabbccddeeff";
const FIPS_CIPHERTEXT: &str = "69c4e0d86a7b0430d8cdb78070b4c55a";

pub struct Setup {
    pub case: Case,
    pub protocol: Protocol,
    pub batch: usize,
    pub repeat: usize,
    pub warmup: usize,
    pub threads: usize,
    pub json: bool,
    /// After the warm-up, one timed call per line read from stdin instead
    /// of `repeat` calls.
    pub on_request: bool,
}

pub fn run(s: Setup) -> Result<(), String> {
    let (circuit, inputs) = workload(s.case, s.batch)?;
    let hash: String = huddle_engine::circuit_hash(&circuit)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let run = Run::builder(s.protocol)
        .circuit(circuit)
        .options(RunOptions::for_protocol(s.protocol).with_threads(s.threads))
        .build()
        .map_err(|e| e.to_string())?;
    let net = LocalNet::memory();
    for _ in 0..s.warmup {
        run.local(&inputs, &net).map_err(|e| e.to_string())?;
    }
    // One timed call: its seconds and the run's own clock.
    let timed = || -> Result<(f64, f64), String> {
        let start = Instant::now();
        let report = run.local(&inputs, &net).map_err(|e| e.to_string())?;
        let seconds = start.elapsed().as_secs_f64();
        check(s.case, &inputs, &report.outputs)?;
        Ok((seconds, report.wall_seconds))
    };
    if s.on_request {
        println!(
            "{}",
            json!({ "case": case_name(s.case), "circuit_hash": hash })
        );
        for line in std::io::stdin().lines() {
            line.map_err(|e| format!("stdin: {e}"))?;
            let (seconds, wall) = timed()?;
            println!("{}", json!({ "seconds": seconds, "wall_seconds": wall }));
        }
        return Ok(());
    }
    let (mut seconds, mut wall) = (Vec::new(), Vec::new());
    for _ in 0..s.repeat {
        let (one, clock) = timed()?;
        seconds.push(one);
        wall.push(clock);
    }
    let median = crate::bench_compare::median(&seconds);
    if s.json {
        println!(
            "{}",
            json!({
                "case": case_name(s.case),
                "protocol": s.protocol.name(),
                "batch": s.batch,
                "threads": s.threads,
                "warmup": s.warmup,
                "circuit_hash": hash,
                "seconds": seconds,
                // The run's own clock (RunReport::wall_seconds) of each.
                "wall_seconds": wall,
                "median_seconds": median,
            })
        );
    } else {
        println!(
            "{:?} under {}, {} instances: Run::local {:.3} s (median of {})",
            s.case,
            s.protocol.name(),
            s.batch,
            median,
            seconds.len()
        );
    }
    Ok(())
}

fn case_name(case: Case) -> String {
    format!("{case:?}").to_lowercase()
}

/// The circuit of `case` and its input values for `batch` instances.
fn workload(case: Case, batch: usize) -> Result<(Circuit, Vec<BitMatrix>), String> {
    match case {
        Case::Aes128 => {
            let circuit = gen::generate("aes128", 128, 2)?;
            let inputs = [FIPS_KEY, FIPS_PLAINTEXT]
                .iter()
                .map(|hex| every_instance(hex, batch))
                .collect::<Result<_, _>>()?;
            Ok((circuit, inputs))
        }
        Case::Mul64 => {
            let circuit = read_circuit(MUL64.as_bytes()).map_err(|e| e.to_string())?;
            let inputs = [X, Y]
                .iter()
                .map(|&c| {
                    let words = (1..=batch as u64).map(|i| i.wrapping_mul(c)).collect();
                    BitMatrix::from_row_words(batch, 64, words).ok_or("a matrix of the wrong size")
                })
                .collect::<Result<_, _>>()?;
            Ok((circuit, inputs))
        }
    }
}

/// The 128-bit value `hex` on each of `batch` rows.
fn every_instance(hex: &str, batch: usize) -> Result<BitMatrix, String> {
    let row = huddle_circuit::hex::decode(hex, 128).map_err(|e| e.to_string())?;
    BitMatrix::from_row_words(batch, 128, row.repeat(batch))
        .ok_or_else(|| "a value of the wrong size".to_string())
}

/// Whether the run computed what `case` computes.
fn check(case: Case, inputs: &[BitMatrix], outputs: &[BitMatrix]) -> Result<(), String> {
    let right = match case {
        Case::Aes128 => {
            let want =
                huddle_circuit::hex::decode(FIPS_CIPHERTEXT, 128).map_err(|e| e.to_string())?;
            outputs[0]
                .as_words()
                .chunks(want.len())
                .all(|row| row == want)
        }
        Case::Mul64 => outputs[0]
            .as_words()
            .iter()
            .zip(inputs[0].as_words().iter().zip(inputs[1].as_words()))
            .all(|(&p, (&x, &y))| p == x.wrapping_mul(y)),
    };
    if right && outputs[0].rows() == inputs[0].rows() {
        Ok(())
    } else {
        Err(format!("{case:?}: the run's outputs are wrong"))
    }
}
