//! A deliberately plain evaluator: one instance, one gate at a time, one
//! `u64` per wire. It exists only to check the fast bitsliced evaluator
//! against an implementation simple enough to trust by reading.

use crate::model::{Circuit, Domain, Op};
use huddle_core::RingWidth;

/// Evaluates one instance. `inputs[i]` holds input value i as words (bit j
/// of the value is bit j % 64 of word j / 64); outputs come back the same way.
pub fn evaluate_one(circuit: &Circuit, inputs: &[Vec<u64>]) -> Vec<Vec<u64>> {
    let k = circuit.ring().map_or(0, |r| r.bits() as usize);
    let mask = circuit.ring().map_or(0, |r| r.mask());
    let bit = |words: &[u64], j: usize| (words[j / 64] >> (j % 64)) & 1;
    let field = |words: &[u64], j: usize| (words[j * k / 64] >> (j * k % 64)) & mask;
    let mut w = vec![0u64; circuit.num_wires()];
    for (v, words) in circuit.inputs().iter().zip(inputs) {
        for j in 0..v.wires as usize {
            w[v.first_wire as usize + j] = match v.domain {
                Domain::Bit => bit(words, j),
                Domain::Ring => field(words, j),
            };
        }
    }
    for g in circuit.gates() {
        let ins: Vec<u64> = circuit
            .gate_inputs(g)
            .iter()
            .map(|&i| w[i as usize])
            .collect();
        let outs = circuit.gate_outputs(g);
        for (&o, v) in outs
            .iter()
            .zip(apply(g.op, &ins, outs.len(), circuit.ring()))
        {
            w[o as usize] = v;
        }
    }
    circuit
        .outputs()
        .iter()
        .map(|v| {
            let per_wire = if v.domain == Domain::Ring { k } else { 1 };
            let mut words = vec![0u64; (v.wires.len() * per_wire).div_ceil(64)];
            for (j, &wire) in v.wires.iter().enumerate() {
                let pos = j * per_wire;
                words[pos / 64] |= w[wire as usize] << (pos % 64);
            }
            words
        })
        .collect()
}

/// The outputs of one gate `op` on the values `ins` (bits 0 or 1, ring
/// elements reduced): the semantics every evaluator must agree with.
pub fn apply(op: Op, ins: &[u64], outputs: usize, ring: Option<RingWidth>) -> Vec<u64> {
    let mask = ring.map_or(0, |r| r.mask());
    let all_bits = |x: &[u64]| x.iter().fold(1, |a, b| a & b);
    match op {
        Op::Xor => vec![ins[0] ^ ins[1]],
        Op::Inv => vec![ins[0] ^ 1],
        Op::ConstBit(b) => vec![u64::from(b)],
        Op::Copy => vec![ins[0]],
        Op::And | Op::BitInject => vec![all_bits(ins)],
        Op::Mand => (0..outputs).map(|i| ins[i] & ins[outputs + i]).collect(),
        Op::Add => vec![ins.iter().fold(0u64, |a, b| a.wrapping_add(*b)) & mask],
        Op::Sub => vec![ins[0].wrapping_sub(ins[1]) & mask],
        Op::Neg => vec![ins[0].wrapping_neg() & mask],
        Op::Mul => vec![ins.iter().fold(1u64, |a, b| a.wrapping_mul(*b)) & mask],
        Op::AddConst(c) => vec![ins[0].wrapping_add(c) & mask],
        Op::MulConst(c) => vec![ins[0].wrapping_mul(c) & mask],
        Op::ConstRing(c) => vec![c & mask],
        Op::BitDecompose => (0..outputs).map(|j| (ins[0] >> j) & 1).collect(),
        Op::BitMul => {
            let (x, bits) = ins.split_last().expect("BX2A has a ring input");
            vec![x * all_bits(bits)]
        }
        Op::Eqz => vec![u64::from(ins[0] == 0)],
        Op::Dot | Op::DotTrunc(_) => vec![dot(op, ins, ring)],
        Op::Ltz => {
            let top = ring.map_or(0, |r| r.bits() - 1);
            vec![(ins[0] >> top) & 1]
        }
    }
}

/// DOT or DOTTR of one instance: `ins` holds a_1..a_l then b_1..b_l.
pub(crate) fn dot(op: Op, ins: &[u64], ring: Option<RingWidth>) -> u64 {
    let (a, b) = ins.split_at(ins.len() / 2);
    let sum = a
        .iter()
        .zip(b)
        .fold(0u64, |s, (x, y)| s.wrapping_add(x.wrapping_mul(*y)));
    match (op, ring) {
        (Op::DotTrunc(f), Some(r)) => r.truncate(sum, u32::from(f)),
        (_, Some(r)) => r.reduce(sum),
        (_, None) => sum,
    }
}
