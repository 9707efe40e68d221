//! Seeded random circuits for tests: Boolean, arithmetic and mixed, with
//! multi-fan-in gates. Later layers reuse them in their conformance suites.

use crate::model::{
    Circuit, CircuitAssembler, Domain, Op, ValueSpec, WireId, MAX_FAN_IN, MAX_INJECT_BITS,
};
use huddle_core::{BitMatrix, Prg, RingWidth};

/// What to generate.
#[derive(Clone, Debug)]
pub struct RandomCircuitSpec {
    /// The input values.
    pub inputs: Vec<ValueSpec>,
    /// How many gates to generate.
    pub gates: usize,
    /// Set for arithmetic or mixed circuits.
    pub ring: Option<RingWidth>,
    /// Largest AND/ADD/MUL fan-in to use (2..=16).
    pub max_fan_in: usize,
    /// Wires per output value; one Boolean and (with a ring) one ring output value.
    pub output_wires: usize,
    /// Whether Boolean gates and conversions may appear (false: a purely arithmetic circuit).
    pub boolean_ops: bool,
}

impl RandomCircuitSpec {
    /// A Boolean circuit with one input value of each width in `input_bits`.
    pub fn boolean(input_bits: &[u32], gates: usize, max_fan_in: usize) -> Self {
        RandomCircuitSpec {
            inputs: input_bits
                .iter()
                .enumerate()
                .map(|(i, &b)| ValueSpec::bits(format!("input{i}"), b))
                .collect(),
            gates,
            ring: None,
            max_fan_in,
            output_wires: 16,
            boolean_ops: true,
        }
    }

    /// A purely arithmetic circuit over `ring`: ADD, SUB, NEG, MUL, DOT, constants.
    pub fn arithmetic(
        ring: RingWidth,
        input_wires: &[u32],
        gates: usize,
        max_fan_in: usize,
    ) -> Self {
        RandomCircuitSpec {
            inputs: input_wires
                .iter()
                .enumerate()
                .map(|(i, &w)| ValueSpec::ring(format!("input{i}"), w))
                .collect(),
            gates,
            ring: Some(ring),
            max_fan_in,
            output_wires: 8,
            boolean_ops: false,
        }
    }

    /// A mixed circuit over `ring`: one Boolean and one ring input value,
    /// Boolean, arithmetic and conversion gates.
    pub fn mixed(
        ring: RingWidth,
        input_bits: u32,
        input_ring_wires: u32,
        gates: usize,
        max_fan_in: usize,
    ) -> Self {
        RandomCircuitSpec {
            inputs: vec![
                ValueSpec::bits("input0", input_bits),
                ValueSpec::ring("input1", input_ring_wires),
            ],
            gates,
            ring: Some(ring),
            max_fan_in,
            output_wires: 8,
            boolean_ops: true,
        }
    }
}

/// Generates a well-formed random circuit. Gates favour recent wires so the
/// circuit gets deep, and every op the spec allows appears.
pub fn random_circuit(spec: &RandomCircuitSpec, prg: &mut Prg) -> Circuit {
    let mut rand = |n: usize| (prg.next_u64() % n.max(1) as u64) as usize;
    let mut wires: [Vec<WireId>; 2] = [Vec::new(), Vec::new()];
    let mut next: WireId = 0;
    for v in &spec.inputs {
        for _ in 0..v.wires {
            wires[v.domain as usize].push(next);
            next += 1;
        }
    }
    let k = spec.ring.map_or(0, |r| r.bits() as usize);
    let mut gates: Vec<(Op, Vec<WireId>, Vec<WireId>)> = Vec::with_capacity(spec.gates);
    for _ in 0..spec.gates {
        let have_bits = !wires[0].is_empty();
        let have_ring = !wires[1].is_empty();
        let choice = if !spec.boolean_ops {
            // The ring gates 6..=14 and DOT.
            match rand(10) {
                9 => 17,
                c => 6 + c,
            }
        } else {
            rand(if spec.ring.is_some() { 22 } else { 6 })
        };
        let fan = 2 + rand(spec.max_fan_in.clamp(2, MAX_FAN_IN) - 1);
        let op = match choice {
            0 | 1 if have_bits => Op::Xor,
            2 if have_bits => Op::Inv,
            3 if have_bits => Op::And,
            4 if have_bits => Op::Mand,
            5 => Op::ConstBit(rand(2) == 1),
            6 | 7 if have_ring => Op::Add,
            8 if have_ring => Op::Sub,
            9 if have_ring => Op::Neg,
            10 | 11 if have_ring => Op::Mul,
            12 if have_ring => Op::AddConst(prg_const(&mut rand, spec.ring)),
            13 if have_ring => Op::MulConst(prg_const(&mut rand, spec.ring)),
            14 => Op::ConstRing(prg_const(&mut rand, spec.ring)),
            15 if have_ring => Op::BitDecompose,
            16 if have_bits => Op::BitInject,
            17 if have_ring => Op::Dot,
            18 if have_ring => Op::DotTrunc(1 + rand(k - 1) as u8),
            19 if have_ring => Op::Ltz,
            20 if have_ring => Op::Eqz,
            21 if have_ring && have_bits => Op::BitMul,
            _ => Op::ConstBit(false),
        };
        let pick = |d: Domain, rand: &mut dyn FnMut(usize) -> usize| {
            let pool = &wires[d as usize];
            // Half the time one of the 8 newest wires, to build depth.
            let i = if rand(2) == 0 {
                pool.len() - 1 - rand(pool.len().min(8))
            } else {
                rand(pool.len())
            };
            pool[i]
        };
        let (ins, n_out): (Vec<WireId>, usize) = match op {
            Op::Xor => ((0..2).map(|_| pick(Domain::Bit, &mut rand)).collect(), 1),
            Op::Inv => (vec![pick(Domain::Bit, &mut rand)], 1),
            Op::BitInject => (
                (0..1 + rand(MAX_INJECT_BITS))
                    .map(|_| pick(Domain::Bit, &mut rand))
                    .collect(),
                1,
            ),
            Op::BitMul => {
                let mut ins: Vec<WireId> = (0..1 + rand(MAX_INJECT_BITS))
                    .map(|_| pick(Domain::Bit, &mut rand))
                    .collect();
                ins.push(pick(Domain::Ring, &mut rand));
                (ins, 1)
            }
            Op::And => ((0..fan).map(|_| pick(Domain::Bit, &mut rand)).collect(), 1),
            Op::Mand => {
                let pairs = 1 + rand(4);
                (
                    (0..2 * pairs)
                        .map(|_| pick(Domain::Bit, &mut rand))
                        .collect(),
                    pairs,
                )
            }
            Op::Add | Op::Mul => ((0..fan).map(|_| pick(Domain::Ring, &mut rand)).collect(), 1),
            Op::Sub => ((0..2).map(|_| pick(Domain::Ring, &mut rand)).collect(), 1),
            Op::Neg | Op::AddConst(_) | Op::MulConst(_) | Op::Ltz | Op::Eqz => {
                (vec![pick(Domain::Ring, &mut rand)], 1)
            }
            Op::Dot | Op::DotTrunc(_) => (
                (0..2 * (1 + rand(6)))
                    .map(|_| pick(Domain::Ring, &mut rand))
                    .collect(),
                1,
            ),
            Op::BitDecompose => (vec![pick(Domain::Ring, &mut rand)], k),
            Op::ConstBit(_) | Op::ConstRing(_) | Op::Copy => (Vec::new(), 1),
        };
        let out_domain = match op {
            Op::Xor
            | Op::Inv
            | Op::And
            | Op::Mand
            | Op::ConstBit(_)
            | Op::BitDecompose
            | Op::Ltz
            | Op::Eqz => Domain::Bit,
            _ => Domain::Ring,
        };
        let outs: Vec<WireId> = (0..n_out as WireId).map(|i| next + i).collect();
        next += n_out as WireId;
        wires[out_domain as usize].extend(&outs);
        gates.push((op, ins, outs));
    }
    let mut asm = CircuitAssembler::new(u64::from(next), spec.ring, spec.inputs.clone())
        .expect("generator keeps inputs within wires");
    for (op, ins, outs) in &gates {
        asm.push(*op, ins, outs)
            .expect("generator emits only well-formed gates");
    }
    let mut outputs = Vec::new();
    for (d, name) in [(Domain::Bit, "bits"), (Domain::Ring, "ring")] {
        let pool = &wires[d as usize];
        if !pool.is_empty() {
            let take = pool.len().min(spec.output_wires);
            outputs.push((
                ValueSpec {
                    name: name.into(),
                    domain: d,
                    wires: take as u32,
                },
                pool[pool.len() - take..].to_vec(),
            ));
        }
    }
    asm.finish(outputs)
        .expect("generator writes every wire once")
}

fn prg_const(rand: &mut impl FnMut(usize) -> usize, ring: Option<RingWidth>) -> u64 {
    let mask = ring.map_or(1, RingWidth::mask);
    ((rand(usize::MAX) as u64) ^ ((rand(usize::MAX) as u64) << 32)) & mask
}

/// `instances` random instances of every input value of `circuit`, one
/// matrix per input value (rows are instances), padding bits zero.
pub fn random_inputs(circuit: &Circuit, prg: &mut Prg, instances: usize) -> Vec<BitMatrix> {
    (0..circuit.inputs().len())
        .map(|i| {
            let bits = circuit.input_bits(i);
            let mut m = BitMatrix::zeros(instances, bits);
            for r in 0..instances {
                let row = m.row_mut(r);
                prg.fill_u64(row);
                if !bits.is_multiple_of(64) {
                    let last = row.len() - 1;
                    row[last] &= (1u64 << (bits % 64)) - 1;
                }
            }
            m
        })
        .collect()
}
