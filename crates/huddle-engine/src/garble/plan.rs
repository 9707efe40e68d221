//! The circuit as garbling sees it ([`Plan`]): the `Schedule` compiled with
//! fan-in 2 in AND rounds and one slot per wire (every wire's keys and λ are
//! revisited in every phase), dead gates dropped, and for the malicious
//! variant a buffer gate behind every output that no AND gate drives; and
//! the sizes that follow from it. Every phase reads the plan and none
//! changes it, so it sits below all of them.

use crate::error::RunError;
use huddle_circuit::{Circuit, Domain, Op, Schedule, ScheduleOptions, Storage};
use huddle_net::PartyId;

/// The circuit as garbling sees it: 2-input ANDs and free gates.
#[derive(Clone, Copy, Debug)]
pub(super) enum Step {
    Xor(u32, u32, u32),
    Inv(u32, u32),
    Copy(u32, u32),
    Const(u32),
    And(u32, u32, u32),
    /// A garbled buffer gate (malicious variant): input, output.
    Buffer(u32, u32),
}

pub(super) struct Plan {
    pub(super) steps: Vec<Step>,
    pub(super) wires: usize,
    pub(super) ands: usize,
    /// Garbled buffer gates (the last steps; malicious variant only).
    pub(super) buffers: usize,
    /// Per AND gate: whether its output is a circuit output (its λ is 0
    /// in the malicious variant).
    pub(super) and_is_output: Vec<bool>,
    /// (owner, wires) per input value.
    pub(super) inputs: Vec<(PartyId, Vec<u32>)>,
    pub(super) consts: Vec<(u32, bool)>,
    pub(super) outputs: Vec<Vec<u32>>,
    /// Step ranges of independent AND gates (one AND layer each), which
    /// the evaluator decrypts together.
    pub(super) and_batches: Vec<std::ops::Range<usize>>,
    /// The wires whose keys are drawn at random (no free gate drives them).
    pub(super) fresh_keys: Vec<u32>,
    /// The AND gates in step order, (input, input, output): every phase
    /// walks them, and most steps of a circuit are free.
    pub(super) and_list: Vec<(u32, u32, u32)>,
}

impl Plan {
    /// The circuit in garbling steps; `buffered` adds a buffer gate for each
    /// output wire that no AND gate drives and points the output there.
    pub(super) fn new(circuit: &Circuit, parties: usize, buffered: bool) -> Result<Plan, RunError> {
        if !circuit.is_boolean() {
            return Err(RunError::Input(
                "garbling runs Boolean circuits only".into(),
            ));
        }
        // Every wire keeps its slot (its keys and λ are revisited in every
        // phase); the AND rounds are the layers the evaluator decrypts together.
        let schedule = Schedule::compile(
            circuit,
            ScheduleOptions {
                storage: Storage::PerWire,
                ..ScheduleOptions::rounds(2)
            },
        );
        let mut steps = Vec::with_capacity(schedule.steps().len());
        let mut consts = Vec::new();
        for g in schedule.steps() {
            let (i, o) = (schedule.inputs_of(g), schedule.outputs_of(g));
            steps.push(match g.op {
                Op::Xor => Step::Xor(i[0], i[1], o[0]),
                Op::Inv => Step::Inv(i[0], o[0]),
                Op::Copy => Step::Copy(i[0], o[0]),
                Op::ConstBit(v) => {
                    consts.push((o[0], v));
                    Step::Const(o[0])
                }
                Op::And => Step::And(i[0], i[1], o[0]),
                other => {
                    return Err(RunError::Input(format!(
                        "garbling runs Boolean circuits only, not {}",
                        other.name()
                    )))
                }
            });
        }
        let ands = steps.iter().filter(|s| matches!(s, Step::And(..))).count();
        let and_batches = schedule
            .groups()
            .iter()
            .filter(|g| schedule.is_round(g))
            .cloned()
            .collect();
        let inputs = schedule
            .input_slots()
            .iter()
            .enumerate()
            .map(|(i, slots)| (circuit.owner(i, parties), slots.clone()))
            .collect();
        let mut outputs: Vec<Vec<u32>> = schedule.output_slots().to_vec();
        let mut wires = schedule.slots(Domain::Bit);
        let mut is_and_output = vec![false; wires];
        for s in &steps {
            if let Step::And(_, _, o) = *s {
                is_and_output[o as usize] = true;
            }
        }
        let mut buffers = 0;
        if buffered {
            let mut buffer_of: std::collections::HashMap<u32, u32> = Default::default();
            for w in outputs.iter_mut().flatten() {
                if is_and_output[*w as usize] {
                    continue;
                }
                let out = *buffer_of.entry(*w).or_insert_with(|| {
                    steps.push(Step::Buffer(*w, wires as u32));
                    wires += 1;
                    buffers += 1;
                    wires as u32 - 1
                });
                *w = out;
            }
        }
        let output_set: std::collections::HashSet<u32> =
            outputs.iter().flatten().copied().collect();
        let and_is_output = steps
            .iter()
            .filter_map(|s| match *s {
                Step::And(_, _, o) => Some(output_set.contains(&o)),
                _ => None,
            })
            .collect();
        let mut free_output = vec![false; wires];
        for s in &steps {
            if let Step::Xor(_, _, o) | Step::Inv(_, o) | Step::Copy(_, o) = *s {
                free_output[o as usize] = true;
            }
        }
        let fresh_keys = (0..wires as u32)
            .filter(|&w| !free_output[w as usize])
            .collect();
        let and_list = steps
            .iter()
            .filter_map(|s| match *s {
                Step::And(a, b, o) => Some((a, b, o)),
                _ => None,
            })
            .collect();
        Ok(Plan {
            steps,
            wires,
            ands,
            buffers,
            and_is_output,
            inputs,
            consts,
            outputs,
            and_batches,
            fresh_keys,
            and_list,
        })
    }

    pub(super) fn input_wires_of(&self, p: PartyId) -> usize {
        self.inputs
            .iter()
            .filter(|(o, _)| *o == p)
            .map(|(_, w)| w.len())
            .sum()
    }

    pub(super) fn all_input_wires(&self) -> usize {
        self.inputs.iter().map(|(_, w)| w.len()).sum()
    }

    pub(super) fn output_wires(&self) -> usize {
        self.outputs.iter().map(Vec::len).sum()
    }

    /// Garbled gates: the AND gates and the buffer gates.
    pub(super) fn garbled_gates(&self) -> usize {
        self.ands + self.buffers
    }

    /// Steps of the evaluator's walk over one instance: every free gate
    /// and every AND layer (buffer gates are garbled gates).
    pub(super) fn walk_steps(&self) -> usize {
        self.steps.len() - self.garbled_gates() + self.and_batches.len()
    }
}

/// Size of the garbled circuit: 4 rows of one 16-byte key per contributor
/// for every AND gate.
pub fn garbled_circuit_bytes(ands: usize, contributors: usize) -> usize {
    4 * ands * contributors * 16
}

/// What the malicious variant adds: 2 rows per buffer gate.
pub fn buffer_gate_bytes(buffers: usize, contributors: usize) -> usize {
    2 * buffers * contributors * 16
}

/// (AND gates, buffer gates) the malicious variant garbles for `circuit`.
pub fn malicious_gate_counts(circuit: &Circuit) -> Result<(usize, usize), RunError> {
    let plan = Plan::new(circuit, 3, true)?;
    Ok((plan.ands, plan.buffers))
}

/// The AND gates of a plan in step order: (input, input, output).
pub(super) fn and_gates(plan: &Plan) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
    plan.and_list.iter().copied()
}
