//! `huddle.gen`: huddle-circuit's generators, each a thin call (the kinds
//! and their limits are huddle_circuit's; errors keep its messages).

use crate::circuit::Circuit;
use crate::errors::input;
use huddle_circuit::aggregates::TableSpec;
use huddle_circuit::random::{random_circuit, RandomCircuitSpec};
use huddle_circuit::{apps, gen};
use huddle_core::{Prg, RingWidth};
use pyo3::prelude::*;

fn boolean(kind: &str, bits: u32, fanin: usize) -> PyResult<Circuit> {
    gen::generate(kind, bits, fanin)
        .map(Circuit::new)
        .map_err(input)
}

/// A Boolean circuit by the name `huddle circuit gen` takes: adder-ripple,
/// adder-sklansky, mult-schoolbook, mult-wallace, mult-counter, cmp-lt,
/// cmp-gt, cmp-eq, and-tree (of `bits`-bit values), aes128, aes192,
/// aes256 (+ "-expanded": the round keys as the input), sha256. `fanin` is
/// the widest AND (for AES it picks the S-box: 2 depth 4, 3 depth 3, 4 or
/// more depth 2).
#[pyfunction]
#[pyo3(name = "boolean", signature = (kind, bits = 64, fanin = 2))]
fn boolean_circuit(kind: &str, bits: u32, fanin: usize) -> PyResult<Circuit> {
    boolean(kind, bits, fanin)
}

/// aes128(fanin=2) -> Circuit
///
/// AES-128 with its key schedule: inputs key and plaintext (128 bits each),
/// output the ciphertext; values as the FIPS-197 hex vectors read them.
#[pyfunction]
#[pyo3(signature = (fanin = 2))]
fn aes128(fanin: usize) -> PyResult<Circuit> {
    boolean("aes128", 128, fanin)
}

/// sha256(fanin=2) -> Circuit
///
/// The SHA-256 compression function on one 512-bit block.
#[pyfunction]
#[pyo3(signature = (fanin = 2))]
fn sha256(fanin: usize) -> PyResult<Circuit> {
    boolean("sha256", 256, fanin)
}

/// Sum of two unsigned `bits`-bit values, `bits` + 1 bits wide:
/// ripple-carry (AND-depth `bits`) without `fanin`, else a Sklansky adder with ANDs of up to
/// `fanin` inputs (logarithmic depth).
#[pyfunction]
#[pyo3(signature = (bits, fanin = None))]
fn adder(bits: u32, fanin: Option<usize>) -> PyResult<Circuit> {
    match fanin {
        None => boolean("adder-ripple", bits, 2),
        Some(f) => boolean("adder-sklansky", bits, f),
    }
}

/// One bit: x < y, x > y or x == y ("lt", "gt", "eq") of two unsigned
/// `bits`-bit values.
#[pyfunction]
#[pyo3(signature = (bits, op = "lt", fanin = 2))]
fn comparator(bits: u32, op: &str, fanin: usize) -> PyResult<Circuit> {
    match op {
        "lt" | "gt" | "eq" => boolean(&format!("cmp-{op}"), bits, fanin),
        other => Err(input(format!(
            "unknown comparison `{other}` (lt, gt or eq)"
        ))),
    }
}

/// An application over Z_2^bits (bits 8, 16, 32 or 64): vecmat (size n),
/// auction (bidders), eq and lt (pairs), max, min, argmax, argmin,
/// max-pairwise (values), edit-distance (length, or [la, lb]), perceptron
/// ([inputs, hidden, outputs], fixed point with `frac` fractional bits).
#[pyfunction]
#[pyo3(signature = (kind, size, bits = 64, frac = 16))]
fn application(kind: &str, size: Vec<u32>, bits: u32, frac: u8) -> PyResult<Circuit> {
    apps::generate(kind, bits, &size, frac)
        .map(Circuit::new)
        .map_err(input)
}

/// Aggregates over one table per party of at most `rows` rows of
/// `bits`-bit values, each with a validity bit per row (only `rows` is
/// public): `kinds` is a comma list of table-count, table-sum, table-max,
/// table-mean, table-count-above (with `threshold`), table-histogram
/// (with `bounds`). Inputs: x0..x{P-1}, then valid0..valid{P-1}.
#[pyfunction]
#[pyo3(signature = (kinds, rows, parties = 3, bits = 32, signed = false, threshold = None, bounds = Vec::new()))]
fn table(
    kinds: &str,
    rows: u32,
    parties: u32,
    bits: u32,
    signed: bool,
    threshold: Option<i64>,
    bounds: Vec<i64>,
) -> PyResult<Circuit> {
    let spec = TableSpec {
        rows,
        parties,
        bits,
        signed,
        threshold,
        bounds,
    };
    huddle_circuit::aggregates::generate(kinds, &spec)
        .map(Circuit::new)
        .map_err(input)
}

/// A seeded random circuit for tests: Boolean with input values of
/// `inputs` bits each (ring None); arithmetic over Z_2^ring with input
/// values of `inputs` elements each; mixed (Boolean and ring gates with
/// conversions) when `boolean_inputs` bits are given too (then `inputs`
/// is one ring value's elements). The same arguments give the same circuit.
#[pyfunction]
#[pyo3(signature = (gates, inputs, ring = None, boolean_inputs = None, max_fanin = 2, seed = 0))]
fn random(
    gates: usize,
    inputs: Vec<u32>,
    ring: Option<u32>,
    boolean_inputs: Option<u32>,
    max_fanin: usize,
    seed: u64,
) -> PyResult<Circuit> {
    if !(2..=16).contains(&max_fanin) || gates == 0 || inputs.is_empty() || inputs.contains(&0) {
        return Err(input(
            "random circuits take gates >= 1, non-empty input widths >= 1 and max_fanin 2 to 16",
        ));
    }
    let ring = match ring {
        None => None,
        Some(k) => Some(
            RingWidth::from_bits(k)
                .ok_or_else(|| input(format!("a ring is 8, 16, 32 or 64 bits wide, not {k}")))?,
        ),
    };
    let spec = match (ring, boolean_inputs) {
        (None, None) => RandomCircuitSpec::boolean(&inputs, gates, max_fanin),
        (Some(r), None) => RandomCircuitSpec::arithmetic(r, &inputs, gates, max_fanin),
        (Some(r), Some(b)) if inputs.len() == 1 => {
            RandomCircuitSpec::mixed(r, b, inputs[0], gates, max_fanin)
        }
        _ => {
            return Err(input(
                "a mixed random circuit takes a ring and one ring input width",
            ))
        }
    };
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    Ok(Circuit::new(random_circuit(
        &spec,
        &mut Prg::from_seed(key),
    )))
}

/// The `huddle.gen` submodule.
pub(crate) fn module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    let m = PyModule::new(py, "gen")?;
    m.add("__doc__", "Generated circuits: AES, SHA-256, adders, comparators, applications, table aggregates, random circuits for tests.")?;
    for f in [
        wrap_pyfunction!(boolean_circuit, &m)?,
        wrap_pyfunction!(aes128, &m)?,
        wrap_pyfunction!(sha256, &m)?,
        wrap_pyfunction!(adder, &m)?,
        wrap_pyfunction!(comparator, &m)?,
        wrap_pyfunction!(application, &m)?,
        wrap_pyfunction!(table, &m)?,
        wrap_pyfunction!(random, &m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(m)
}
