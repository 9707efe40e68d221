//! Helpers shared by the engine's test binaries.

#![allow(dead_code)] // each test binary uses its own subset

use huddle_circuit::{Circuit, CircuitAssembler, Op, ValueSpec};
use huddle_core::RingWidth;

/// What one party of a local run ends with.
pub struct PartyResult {
    /// The party's outputs (none where it learns nothing).
    pub outputs: Vec<huddle_circuit::BitMatrix>,
    /// What the party's network counted.
    pub accounting: huddle_net::Accounting,
}

/// A local run of the protocol named `protocol`, requested as the CLI
/// does: every party's result, or the error that best explains a failure.
pub fn local(
    protocol: &str,
    nets: Vec<huddle_net::Network>,
    circuit: &huddle_circuit::Circuit,
    inputs: &[huddle_circuit::BitMatrix],
    options: huddle_engine::RunOptions,
) -> Result<Vec<PartyResult>, String> {
    let run = request(protocol, nets.len(), circuit, options).map_err(|e| e.to_string())?;
    let report = run.local_over(nets, inputs).map_err(|e| e.to_string())?;
    Ok(parties(report))
}

/// Every party's result in `report` (a run of every party in this process).
pub fn parties(report: huddle_engine::RunReport) -> Vec<PartyResult> {
    report
        .party_outputs
        .into_iter()
        .zip(report.party_accounting)
        .map(|(outputs, accounting)| PartyResult {
            outputs,
            accounting,
        })
        .collect()
}

/// The checked run of the protocol named `protocol`.
pub fn request(
    protocol: &str,
    parties: usize,
    circuit: &huddle_circuit::Circuit,
    options: huddle_engine::RunOptions,
) -> Result<huddle_engine::Run, huddle_engine::error::RunError> {
    huddle_engine::Run::builder(protocol.parse()?)
        .parties(parties)
        .circuit(circuit.clone())
        .options(options)
        .build()
}

/// `n` gates over two inputs of n·l ring wires (P0's x, P1's y): with
/// `dot`, z_g = x_{gl}·y_{gl} + .. + x_{gl+l-1}·y_{gl+l-1} as one DOT gate,
/// else z_g = x_{gl}·y_{gl} alone (the same inputs, one multiplication).
pub fn dots_or_products(n: u32, l: u32, ring: RingWidth, dot: bool) -> Circuit {
    let inputs = vec![ValueSpec::ring("x", n * l), ValueSpec::ring("y", n * l)];
    let mut asm =
        CircuitAssembler::new(u64::from(2 * n * l + n), Some(ring), inputs).expect("valid");
    for g in 0..n {
        let (a, b): (Vec<u32>, Vec<u32>) = (0..l).map(|i| (g * l + i, n * l + g * l + i)).unzip();
        let out = [2 * n * l + g];
        if dot {
            asm.push(Op::Dot, &[a, b].concat(), &out).expect("dot");
        } else {
            asm.push(Op::Mul, &[a[0], b[0]], &out).expect("mul");
        }
    }
    asm.finish(vec![(
        ValueSpec::ring("z", n),
        (2 * n * l..2 * n * l + n).collect(),
    )])
    .expect("valid")
}

/// `m` conversions on P0's ring input of m wires: A2B (k bit outputs each)
/// or, with `inject`, A2B then B2A of bit 0.
pub fn conversions(m: u32, ring: RingWidth, inject: bool) -> Circuit {
    let mut b = huddle_circuit::builder::Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", m);
    let mut outs = Vec::new();
    for &w in &x {
        let bits = b.to_bits(w);
        if inject {
            outs.push(b.bit_to_ring(bits[0]));
        } else {
            outs.extend(bits);
        }
    }
    if inject {
        b.ring_output("y", outs);
    } else {
        b.output("y", outs);
    }
    let mut c = b.finish();
    c.set_owners(huddle_circuit::InputOwners::Explicit(vec![0]))
        .expect("owner");
    c
}

/// `circuit` compiled as for a converting protocol with AND fan-in 2.
pub fn converting_program(circuit: &Circuit) -> huddle_engine::testing::Program {
    use huddle_engine::testing::{Program, Target};
    Program::compile(
        std::borrow::Cow::Borrowed(circuit),
        Target {
            name: "test",
            max_fan_in: 2,
            conversion_fan_in: 2,
            converts: true,
            native_dot: true,
            fused_truncation: false,
        },
    )
    .expect("compiles")
}

/// The A2B adder the engine runs `circuit`'s conversions on (AND fan-in 2):
/// its ANDs and its depth.
pub fn a2b_adder(circuit: &Circuit) -> (u64, u32) {
    use huddle_engine::testing::ConversionKind;
    let program = converting_program(circuit);
    let adder = program.recombining(ConversionKind::Decompose);
    (adder.multiplications() as u64, adder.layers.len() as u32)
}

/// Asserts that a received message looks uniform when read as
/// little-endian words of `width` bytes (2, 4 or 8): each of the low `bits`
/// bits set in about half of the words (within 6 standard deviations), and
/// at least `distinct` of the distinct words uniform draws would give. A
/// message that revealed a secret, or came from a biased draw, fails.
pub fn assert_looks_uniform(what: &str, payload: &[u8], width: usize, bits: u32, distinct: f64) {
    let words: Vec<u64> = payload
        .chunks_exact(width)
        .map(|w| {
            let mut b = [0u8; 8];
            b[..width].copy_from_slice(w);
            u64::from_le_bytes(b)
        })
        .collect();
    let n = words.len() as f64;
    let sd = (0.25 / n).sqrt();
    for bit in 0..bits {
        let ones = words.iter().filter(|&&w| w >> bit & 1 == 1).count() as f64;
        assert!(
            (ones / n - 0.5).abs() < 6.0 * sd,
            "{what}: bit {bit} set in {ones} of {n}"
        );
    }
    let mut unique = words;
    unique.sort_unstable();
    unique.dedup();
    let space = 2f64.powi(8 * width as i32);
    let expected = space * -(-n / space).exp_m1();
    assert!(
        unique.len() as f64 > distinct * expected,
        "{what}: {} distinct of {n} (uniform draws: {expected:.0})",
        unique.len()
    );
}
