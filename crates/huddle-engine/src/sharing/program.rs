//! A circuit compiled for secret-sharing evaluation: every live wire gets a
//! slot of share words, slots are reused once a wire is dead (so memory
//! follows the circuit's width, not its size), and the gates become a list of
//! local linear steps and multiplication layers, each layer one round.

use crate::ttp::RunError;
use huddle_circuit::rewrite::limit_fan_in;
use huddle_circuit::{layers::live_gates, Circuit, Domain, Layering, Op, WireId};

/// A local step: every party applies it to each of its share components.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linear {
    Add {
        a: u32,
        b: u32,
        out: u32,
    },
    /// Sum of `len` slots listed in the pool from `first`.
    Sum {
        first: u32,
        len: u32,
        out: u32,
    },
    Sub {
        a: u32,
        b: u32,
        out: u32,
    },
    Neg {
        a: u32,
        out: u32,
    },
    Copy {
        a: u32,
        out: u32,
    },
    /// out = a + c for a public c (only some components change; protocol-specific).
    AddConst {
        a: u32,
        c: u64,
        out: u32,
    },
    MulConst {
        a: u32,
        c: u64,
        out: u32,
    },
    /// out = the public constant c.
    Const {
        c: u64,
        out: u32,
    },
}

/// One multiplication: the product of the `len` slots listed in the pool from `first`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MulGate {
    pub first: u32,
    pub len: u32,
    pub out: u32,
}

/// All multiplications of one round, ordered by fan-in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layer {
    pub gates: Vec<MulGate>,
}

impl Layer {
    /// The gates of each fan-in: (fan-in, gates), ascending.
    pub fn by_fan_in(&self) -> Vec<(usize, &[MulGate])> {
        let mut groups = Vec::new();
        let mut start = 0;
        for i in 1..=self.gates.len() {
            if i == self.gates.len() || self.gates[i].len != self.gates[start].len {
                groups.push((self.gates[start].len as usize, &self.gates[start..i]));
                start = i;
            }
        }
        groups
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Linear(Linear),
    Layer(usize),
}

/// The compiled circuit.
#[derive(Clone, Debug)]
pub struct Program {
    pub slots: usize,
    /// Operand lists of sums and multiplications.
    pub pool: Vec<u32>,
    /// Per input value, the slot of each of its wires.
    pub inputs: Vec<Vec<u32>>,
    /// Per output value, the slot of each of its wires.
    pub outputs: Vec<Vec<u32>>,
    pub steps: Vec<Step>,
    pub layers: Vec<Layer>,
    /// Whether the circuit is over a ring (else Boolean).
    pub ring: bool,
}

impl Program {
    pub fn operands(&self, g: &MulGate) -> &[u32] {
        &self.pool[g.first as usize..][..g.len as usize]
    }

    /// Multiplications in the whole program.
    pub fn multiplications(&self) -> usize {
        self.layers.iter().map(|l| l.gates.len()).sum()
    }

    /// Compiles `circuit` for a protocol whose multiplications take at most
    /// `max_fan_in` inputs (wider gates become trees). `protocol` names the
    /// protocol in errors.
    pub fn compile(
        circuit: &Circuit,
        max_fan_in: usize,
        protocol: &str,
    ) -> Result<Program, RunError> {
        let ring = circuit.ring().is_some();
        let domain = if ring { Domain::Ring } else { Domain::Bit };
        for g in circuit.gates() {
            if matches!(g.op, Op::BitDecompose | Op::BitInject) {
                return Err(RunError::Input(format!(
                    "{protocol} cannot run this circuit: it mixes Boolean and arithmetic wires \
                     ({} gates need share conversions, which huddle does not implement yet)",
                    g.op.name()
                )));
            }
        }
        if (0..circuit.num_wires()).any(|w| circuit.domain(w as WireId) != domain) {
            return Err(RunError::Input(format!(
                "{protocol} cannot run this circuit: it mixes Boolean and arithmetic wires"
            )));
        }
        let c = limit_fan_in(circuit, max_fan_in);
        let live = live_gates(&c);
        let layering = Layering::of(&c);
        // Groups of gates that run as one step: a free gate alone, or all
        // interactive gates of one round.
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut group_layer = u32::MAX;
        for gi in layering.schedule(&c).into_iter().filter(|&g| live[g]) {
            let g = &c.gates()[gi];
            if g.op.is_interactive() {
                if group_layer != layering.gate_layer[gi] {
                    groups.push(Vec::new());
                    group_layer = layering.gate_layer[gi];
                }
                groups.last_mut().expect("pushed above").push(gi);
            } else {
                groups.push(vec![gi]);
                group_layer = u32::MAX;
            }
        }
        // The last group that reads each wire; outputs are read at the end.
        const NEVER: usize = usize::MAX;
        const END: usize = usize::MAX - 1;
        let mut last_use = vec![NEVER; c.num_wires()];
        for (i, group) in groups.iter().enumerate() {
            for &gi in group {
                for &w in c.gate_inputs(&c.gates()[gi]) {
                    last_use[w as usize] = i;
                }
            }
        }
        for v in c.outputs() {
            for &w in &v.wires {
                last_use[w as usize] = END;
            }
        }
        let mut slots = Slots::default();
        let mut slot_of = vec![u32::MAX; c.num_wires()];
        let inputs: Vec<Vec<u32>> = c
            .inputs()
            .iter()
            .map(|v| {
                (v.first_wire..v.first_wire + v.wires)
                    .map(|w| {
                        let s = slots.alloc();
                        slot_of[w as usize] = s;
                        s
                    })
                    .collect()
            })
            .collect();
        // Input wires nobody reads are free again once the inputs are in.
        for v in c.inputs() {
            for w in v.first_wire..v.first_wire + v.wires {
                if last_use[w as usize] == NEVER {
                    slots.free(slot_of[w as usize]);
                }
            }
        }
        let mut program = Program {
            slots: 0,
            pool: Vec::new(),
            inputs,
            outputs: Vec::new(),
            steps: Vec::new(),
            layers: Vec::new(),
            ring,
        };
        let mask = circuit.ring().map_or(u64::MAX, |r| r.mask());
        for (i, group) in groups.iter().enumerate() {
            for &gi in group {
                for &w in c.gate_outputs(&c.gates()[gi]) {
                    slot_of[w as usize] = slots.alloc();
                }
            }
            if c.gates()[group[0]].op.is_interactive() {
                let mut layer = Layer::default();
                for &gi in group {
                    let g = &c.gates()[gi];
                    let (ins, outs) = (c.gate_inputs(g), c.gate_outputs(g));
                    let mut push = |program: &mut Program, operands: &[WireId], out: WireId| {
                        let first = program.pool.len() as u32;
                        program
                            .pool
                            .extend(operands.iter().map(|&w| slot_of[w as usize]));
                        layer.gates.push(MulGate {
                            first,
                            len: operands.len() as u32,
                            out: slot_of[out as usize],
                        });
                    };
                    match g.op {
                        Op::And | Op::Mul => push(&mut program, ins, outs[0]),
                        Op::Mand => {
                            let k = outs.len();
                            for j in 0..k {
                                push(&mut program, &[ins[j], ins[k + j]], outs[j]);
                            }
                        }
                        other => unreachable!("{} is not a multiplication", other.name()),
                    }
                }
                layer.gates.sort_by_key(|g| g.len);
                program.steps.push(Step::Layer(program.layers.len()));
                program.layers.push(layer);
            } else {
                let g = &c.gates()[group[0]];
                let (ins, outs) = (c.gate_inputs(g), c.gate_outputs(g));
                let s = |w: WireId| slot_of[w as usize];
                let out = s(outs[0]);
                let step = match g.op {
                    Op::Xor => Linear::Add {
                        a: s(ins[0]),
                        b: s(ins[1]),
                        out,
                    },
                    Op::Add if ins.len() == 2 => Linear::Add {
                        a: s(ins[0]),
                        b: s(ins[1]),
                        out,
                    },
                    Op::Add => {
                        let first = program.pool.len() as u32;
                        program.pool.extend(ins.iter().map(|&w| s(w)));
                        Linear::Sum {
                            first,
                            len: ins.len() as u32,
                            out,
                        }
                    }
                    Op::Sub => Linear::Sub {
                        a: s(ins[0]),
                        b: s(ins[1]),
                        out,
                    },
                    Op::Neg => Linear::Neg { a: s(ins[0]), out },
                    Op::Inv => Linear::AddConst {
                        a: s(ins[0]),
                        c: u64::MAX,
                        out,
                    },
                    Op::Copy => Linear::Copy { a: s(ins[0]), out },
                    Op::ConstBit(b) => Linear::Const {
                        c: if b { u64::MAX } else { 0 },
                        out,
                    },
                    Op::AddConst(c) => Linear::AddConst {
                        a: s(ins[0]),
                        c: c & mask,
                        out,
                    },
                    Op::MulConst(c) => Linear::MulConst {
                        a: s(ins[0]),
                        c: c & mask,
                        out,
                    },
                    Op::ConstRing(c) => Linear::Const { c: c & mask, out },
                    other => unreachable!("{} is not linear", other.name()),
                };
                program.steps.push(Step::Linear(step));
            }
            for &gi in group {
                let g = &c.gates()[gi];
                for &w in c.gate_inputs(g) {
                    if last_use[w as usize] == i {
                        last_use[w as usize] = NEVER - 2; // freed once, even if read twice
                        slots.free(slot_of[w as usize]);
                    }
                }
                for &w in c.gate_outputs(g) {
                    if last_use[w as usize] == NEVER {
                        slots.free(slot_of[w as usize]);
                    }
                }
            }
        }
        program.outputs = c
            .outputs()
            .iter()
            .map(|v| v.wires.iter().map(|&w| slot_of[w as usize]).collect())
            .collect();
        program.slots = slots.high_water as usize;
        Ok(program)
    }
}

#[derive(Default)]
struct Slots {
    free: Vec<u32>,
    high_water: u32,
}

impl Slots {
    fn alloc(&mut self) -> u32 {
        self.free.pop().unwrap_or_else(|| {
            self.high_water += 1;
            self.high_water - 1
        })
    }

    fn free(&mut self, s: u32) {
        self.free.push(s);
    }
}
