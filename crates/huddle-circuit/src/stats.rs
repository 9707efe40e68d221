//! Gate statistics of a circuit (what `huddle circuit stats` prints).

use crate::layers::Layering;
use crate::model::{Circuit, Op};
use serde::Serialize;
use std::collections::BTreeMap;

/// Counts by gate kind. Key names are part of the CLI's JSON contract.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Gate lines.
    pub gates: usize,
    /// Wires, inputs included.
    pub wires: usize,
    /// Input widths in bits.
    pub inputs: Vec<usize>,
    /// Output widths in bits.
    pub outputs: Vec<usize>,
    /// Multiplicative depth: AND, MAND, MUL and conversion gates on the deepest path.
    pub and_depth: u32,
    /// AND gate lines by fan-in (MAND gates are counted in `mand`).
    pub and_by_fanin: BTreeMap<usize, usize>,
    /// Individual ANDs: AND gates plus k for every MAND of k outputs.
    pub and_count: usize,
    /// XOR gates.
    pub xor: usize,
    /// INV gates.
    pub inv: usize,
    /// EQ gates (a constant bit).
    pub eq: usize,
    /// EQW gates (a wire copy).
    pub eqw: usize,
    /// MAND gate lines.
    pub mand: usize,
    /// Gates whose results reach no output.
    pub dead_gates: usize,
    /// Present for arithmetic and mixed circuits only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arithmetic: Option<ArithmeticStats>,
}

/// Counts of ring operations.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ArithmeticStats {
    /// k of the ring Z_2^k.
    pub ring_bits: u32,
    /// ADD gates.
    pub add: usize,
    /// SUB gates.
    pub sub: usize,
    /// NEG gates.
    pub neg: usize,
    /// MUL gates by fan-in.
    pub mul_by_fanin: BTreeMap<usize, usize>,
    /// ADDC gates (adding a constant).
    pub add_const: usize,
    /// MULC gates (multiplying by a constant).
    pub mul_const: usize,
    /// CONST gates (a constant ring element).
    pub const_ring: usize,
    /// A2B gates (bit decomposition).
    pub a2b: usize,
    /// B2A and BX2A gates (bit injection).
    pub b2a: usize,
    /// DOT gates by vector length l.
    pub dot_by_len: BTreeMap<usize, usize>,
    /// DOTTR gates (fixed-point dot products and multiplications) by l.
    pub dot_trunc_by_len: BTreeMap<usize, usize>,
    /// LTZ gates (less than zero).
    pub ltz: usize,
    /// EQZ gates (equal to zero).
    pub eqz: usize,
}

impl Stats {
    /// Counts the gates of `circuit`.
    pub fn of(circuit: &Circuit) -> Stats {
        let mut s = Stats {
            gates: circuit.gates().len(),
            wires: circuit.num_wires(),
            inputs: (0..circuit.inputs().len())
                .map(|i| circuit.input_bits(i))
                .collect(),
            outputs: (0..circuit.outputs().len())
                .map(|i| circuit.output_bits(i))
                .collect(),
            and_depth: Layering::of(circuit).depth,
            and_by_fanin: BTreeMap::new(),
            and_count: 0,
            xor: 0,
            inv: 0,
            eq: 0,
            eqw: 0,
            mand: 0,
            dead_gates: crate::layers::live_gates(circuit)
                .iter()
                .filter(|l| !**l)
                .count(),
            arithmetic: None,
        };
        let mut a = ArithmeticStats {
            ring_bits: circuit.ring().map_or(0, |r| r.bits()),
            ..Default::default()
        };
        for g in circuit.gates() {
            match g.op {
                Op::Xor => s.xor += 1,
                Op::Inv => s.inv += 1,
                Op::ConstBit(_) => s.eq += 1,
                Op::Copy => s.eqw += 1,
                Op::And => {
                    *s.and_by_fanin.entry(g.num_inputs()).or_default() += 1;
                    s.and_count += 1;
                }
                Op::Mand => {
                    s.mand += 1;
                    s.and_count += g.num_outputs();
                }
                Op::Add => a.add += 1,
                Op::Sub => a.sub += 1,
                Op::Neg => a.neg += 1,
                Op::Mul => *a.mul_by_fanin.entry(g.num_inputs()).or_default() += 1,
                Op::AddConst(_) => a.add_const += 1,
                Op::MulConst(_) => a.mul_const += 1,
                Op::ConstRing(_) => a.const_ring += 1,
                Op::BitDecompose => a.a2b += 1,
                Op::BitInject | Op::BitMul => a.b2a += 1,
                Op::Dot => *a.dot_by_len.entry(g.num_inputs() / 2).or_default() += 1,
                Op::DotTrunc(_) => *a.dot_trunc_by_len.entry(g.num_inputs() / 2).or_default() += 1,
                Op::Ltz => a.ltz += 1,
                Op::Eqz => a.eqz += 1,
            }
        }
        if circuit.ring().is_some() {
            s.arithmetic = Some(a);
        }
        s
    }
}
