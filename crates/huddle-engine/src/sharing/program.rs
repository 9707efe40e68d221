//! A circuit compiled for secret-sharing evaluation: its [`Schedule`] (rounds
//! by multiplicative depth, the protocol's fan-in, reused slots of share
//! words) as a list of local linear steps and multiplication layers, each
//! layer one round.

use crate::ttp::RunError;
use huddle_circuit::{Circuit, Domain, Op, Schedule, ScheduleOptions, SlotGate, WireId};

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
    /// A run of consecutive local steps, applied together (window by window
    /// of the slots, see `Shares::apply_linear`).
    Linear(Vec<Linear>),
    Layer(usize),
}

/// The compiled circuit.
#[derive(Clone, Debug)]
pub struct Program {
    pub slots: usize,
    /// Operand lists of sums and multiplications (the schedule's slot lists).
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
            if matches!(g.op, Op::BitDecompose | Op::BitInject | Op::Ltz) {
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
        for g in circuit.gates() {
            if matches!(g.op, Op::Dot | Op::DotTrunc(_)) {
                return Err(RunError::Input(format!(
                        "{protocol} cannot run this circuit: its {} gates (dot products, fixed-point multiplications) are \
                         evaluated only by the plaintext evaluator so far",
                        g.op.name()
                    )));
            }
        }
        let schedule = Schedule::compile(circuit, ScheduleOptions::rounds(max_fan_in));
        let mask = circuit.ring().map_or(u64::MAX, |r| r.mask());
        let mut steps = Vec::with_capacity(schedule.groups().len());
        let mut layers = Vec::new();
        for group in schedule.groups() {
            if schedule.is_round(group) {
                let mut layer = Layer {
                    gates: schedule.steps()[group.clone()]
                        .iter()
                        .map(|g| MulGate {
                            first: g.first,
                            len: g.num_inputs() as u32,
                            out: schedule.outputs_of(g)[0],
                        })
                        .collect(),
                };
                layer.gates.sort_by_key(|g| g.len);
                steps.push(Step::Layer(layers.len()));
                layers.push(layer);
            } else {
                let g = &schedule.steps()[group.start];
                let step = linear(&schedule, g, mask);
                match steps.last_mut() {
                    Some(Step::Linear(run)) => run.push(step),
                    _ => steps.push(Step::Linear(vec![step])),
                }
            }
        }
        Ok(Program {
            slots: schedule.slots(domain),
            inputs: schedule.input_slots().to_vec(),
            outputs: schedule.output_slots().to_vec(),
            pool: schedule.args().to_vec(),
            steps,
            layers,
            ring,
        })
    }
}

/// The local step of a free gate.
fn linear(schedule: &Schedule, g: &SlotGate, mask: u64) -> Linear {
    let ins = schedule.inputs_of(g);
    let out = schedule.outputs_of(g)[0];
    match g.op {
        Op::Xor => Linear::Add {
            a: ins[0],
            b: ins[1],
            out,
        },
        Op::Add if ins.len() == 2 => Linear::Add {
            a: ins[0],
            b: ins[1],
            out,
        },
        Op::Add => Linear::Sum {
            first: g.first,
            len: ins.len() as u32,
            out,
        },
        Op::Sub => Linear::Sub {
            a: ins[0],
            b: ins[1],
            out,
        },
        Op::Neg => Linear::Neg { a: ins[0], out },
        Op::Inv => Linear::AddConst {
            a: ins[0],
            c: u64::MAX,
            out,
        },
        Op::Copy => Linear::Copy { a: ins[0], out },
        Op::ConstBit(b) => Linear::Const {
            c: if b { u64::MAX } else { 0 },
            out,
        },
        Op::AddConst(c) => Linear::AddConst {
            a: ins[0],
            c: c & mask,
            out,
        },
        Op::MulConst(c) => Linear::MulConst {
            a: ins[0],
            c: c & mask,
            out,
        },
        Op::ConstRing(c) => Linear::Const { c: c & mask, out },
        other => unreachable!("{} is not linear", other.name()),
    }
}
