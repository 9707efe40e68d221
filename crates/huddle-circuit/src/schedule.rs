//! The one compiled form of a circuit that every interpreter walks: the
//! plaintext evaluator, the secret-sharing engine and garbling.
//!
//! Compiling a circuit into a [`Schedule`] does, once and in one place, what
//! each of them needs before it can run:
//! - **fan-in limits**: AND/ADD/MUL gates wider than the protocol's native
//!   fan-in become trees ([`crate::rewrite::limit_fan_in`]);
//! - **liveness**: gates that feed no output are dropped;
//! - **lowering**: a MAND becomes its independent 2-input ANDs (in the same
//!   round), so interpreters see one kind of multiplication;
//! - **order**: the circuit's own order, or rounds by multiplicative depth
//!   (each round's interactive gates one contiguous group, the free gates
//!   of that depth after it);
//! - **slots**: every live wire gets a slot in its domain's arena; with
//!   [`Storage::Reuse`] a slot is free again once the wire's last reader has
//!   run, so memory follows the circuit's width, not its size.
//!
//! Steps run in groups ([`Schedule::groups`]): a free gate alone, or all
//! multiplications of one round. A group's outputs get their slots before
//! any slot its inputs held is released, so no step of a group ever writes a
//! slot that the same group reads (interpreters may rely on this).

use crate::layers::{live_gates, Layering};
use crate::model::{Circuit, Domain, Op, WireId};
use huddle_core::RingWidth;
use std::borrow::Cow;
use std::ops::Range;

/// In which order steps run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// The circuit's own (topological) order, every step its own group: for
    /// local evaluation, where a wire is read soon after it is written and
    /// the working set stays small.
    Circuit,
    /// Rounds by multiplicative depth: for each depth d, the interactive
    /// gates of round d as one group, then the free gates whose outputs have
    /// depth d, each alone. Free gates of depth 0 come first. The circuit's
    /// order is kept inside each group.
    Rounds,
}

/// How wires map to slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// A slot is reused once its wire's last reader has run.
    Reuse,
    /// Every wire keeps its own slot for the whole run, for interpreters
    /// that revisit wires in several passes (garbling). Slots are still
    /// numbered densely over the live wires.
    PerWire,
}

/// What to compile for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduleOptions {
    /// The widest AND/ADD/MUL the interpreter takes natively; `None` keeps
    /// the circuit's gates as they are.
    pub max_fan_in: Option<usize>,
    /// In which order steps run.
    pub order: Order,
    /// How wires map to slots.
    pub storage: Storage,
}

impl ScheduleOptions {
    /// The plaintext evaluator's choice: circuit order, reused slots.
    pub fn local() -> Self {
        ScheduleOptions {
            max_fan_in: None,
            order: Order::Circuit,
            storage: Storage::Reuse,
        }
    }

    /// A round-based protocol with reused slots and the given native fan-in.
    pub fn rounds(max_fan_in: usize) -> Self {
        ScheduleOptions {
            max_fan_in: Some(max_fan_in),
            order: Order::Rounds,
            storage: Storage::Reuse,
        }
    }
}

/// One gate over slots. The op is never [`Op::Mand`] (lowered to ANDs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotGate {
    /// What the gate computes.
    pub op: Op,
    /// The domain of the gate's outputs (for `Copy`, also of its input).
    pub domain: Domain,
    /// Where the input slots start in [`Schedule::args`]; the output slots follow them.
    pub first: u32,
    inputs: u32,
    outputs: u32,
}

impl SlotGate {
    /// How many input slots the gate reads.
    pub fn num_inputs(&self) -> usize {
        self.inputs as usize
    }

    /// How many output slots the gate writes.
    pub fn num_outputs(&self) -> usize {
        self.outputs as usize
    }
}

/// A circuit compiled for interpretation; see the module documentation.
#[derive(Clone, Debug)]
pub struct Schedule {
    steps: Vec<SlotGate>,
    args: Vec<u32>,
    groups: Vec<Range<usize>>,
    slots: [usize; 2],
    inputs: Vec<Vec<u32>>,
    outputs: Vec<Vec<u32>>,
    ring: Option<RingWidth>,
    rounds: usize,
}

/// Free-slot stacks and high-water marks, one per domain.
struct SlotPool {
    storage: Storage,
    free: [Vec<u32>; 2],
    count: [usize; 2],
}

impl SlotPool {
    fn take(&mut self, d: Domain) -> u32 {
        let i = d as usize;
        self.free[i].pop().unwrap_or_else(|| {
            self.count[i] += 1;
            (self.count[i] - 1) as u32
        })
    }

    fn give(&mut self, d: Domain, slot: u32) {
        if self.storage == Storage::Reuse {
            self.free[d as usize].push(slot);
        }
    }
}

/// A wire's last reader: the group index, or one of these.
// Group indices and gate numbers are u32 (as wire ids are): these tables
// are a large circuit's biggest while it compiles.
const NEVER_READ: u32 = u32::MAX;
const READ_AT_END: u32 = u32::MAX - 1;
const RELEASED: u32 = u32::MAX - 2;

impl Schedule {
    /// Compiles `circuit` for `options` (see the module documentation for
    /// the steps).
    pub fn compile(circuit: &Circuit, options: ScheduleOptions) -> Schedule {
        let c: Cow<Circuit> = match options.max_fan_in {
            Some(k) if crate::rewrite::exceeds_fan_in(circuit, k) => {
                Cow::Owned(crate::rewrite::limit_fan_in(circuit, k))
            }
            _ => Cow::Borrowed(circuit),
        };
        let c = c.as_ref();
        let (order, groups, rounds) = order_and_group(c, options.order);
        // Only reused slots are ever given back: with a slot per wire, the
        // last readers (a pass over every gate in layer order, each visit
        // a cache miss on a large circuit) are not needed.
        let reuse = options.storage == Storage::Reuse;
        let mut last_read = if reuse {
            last_readers(c, &order, &groups)
        } else {
            Vec::new()
        };
        let mut pool = SlotPool {
            storage: options.storage,
            free: [Vec::new(), Vec::new()],
            count: [0, 0],
        };
        let mut slot_of = vec![u32::MAX; c.num_wires()];
        // Every input wire gets its own slot, read or not (input sharing
        // writes every wire); unread ones are free once the inputs are in.
        let inputs: Vec<Vec<u32>> = c
            .inputs()
            .iter()
            .map(|v| {
                (v.first_wire..v.first_wire + v.wires)
                    .map(|w| {
                        slot_of[w as usize] = pool.take(v.domain);
                        slot_of[w as usize]
                    })
                    .collect()
            })
            .collect();
        if reuse {
            for v in c.inputs() {
                for w in v.first_wire..v.first_wire + v.wires {
                    if last_read[w as usize] == NEVER_READ {
                        pool.give(v.domain, slot_of[w as usize]);
                    }
                }
            }
        }
        let mut schedule = Schedule {
            steps: Vec::with_capacity(order.len()),
            // Lowering a MAND keeps its operand count: at most the circuit's.
            args: Vec::with_capacity(c.num_operands()),
            groups: Vec::with_capacity(groups.len()),
            slots: [0, 0],
            inputs,
            outputs: Vec::new(),
            ring: c.ring(),
            rounds,
        };
        for (gi, group) in groups.iter().enumerate() {
            let gates = &order[group.clone()];
            for &g in gates {
                for &w in c.gate_outputs(&c.gates()[g as usize]) {
                    slot_of[w as usize] = pool.take(c.domain(w));
                }
            }
            let start = schedule.steps.len();
            for &g in gates {
                schedule.push_lowered(c, &c.gates()[g as usize], &slot_of);
            }
            schedule.groups.push(start..schedule.steps.len());
            if !reuse {
                continue;
            }
            let gi = gi as u32;
            for &g in gates {
                let gate = &c.gates()[g as usize];
                for &w in c.gate_inputs(gate) {
                    if last_read[w as usize] == gi {
                        last_read[w as usize] = RELEASED; // once, even if read twice
                        pool.give(c.domain(w), slot_of[w as usize]);
                    }
                }
                // Outputs nobody reads (unused bits of an A2B) are free at once.
                for &w in c.gate_outputs(gate) {
                    if last_read[w as usize] == NEVER_READ {
                        pool.give(c.domain(w), slot_of[w as usize]);
                    }
                }
            }
        }
        schedule.outputs = c
            .outputs()
            .iter()
            .map(|v| v.wires.iter().map(|&w| slot_of[w as usize]).collect())
            .collect();
        schedule.slots = pool.count;
        schedule
    }

    /// Appends `gate` as steps over slots; a MAND becomes its 2-input ANDs.
    fn push_lowered(&mut self, c: &Circuit, gate: &crate::model::Gate, slot_of: &[u32]) {
        let (ins, outs) = (c.gate_inputs(gate), c.gate_outputs(gate));
        let domain = outs.first().map_or(Domain::Bit, |&w| c.domain(w));
        let mut push = |op: Op, ins: &[WireId], outs: &[WireId]| {
            let first = self.args.len() as u32;
            self.args
                .extend(ins.iter().chain(outs).map(|&w| slot_of[w as usize]));
            self.steps.push(SlotGate {
                op,
                domain,
                first,
                inputs: ins.len() as u32,
                outputs: outs.len() as u32,
            });
        };
        if gate.op == Op::Mand {
            let k = outs.len();
            for j in 0..k {
                push(Op::And, &[ins[j], ins[k + j]], &outs[j..j + 1]);
            }
        } else {
            push(gate.op, ins, outs);
        }
    }

    /// The steps in the order they run.
    pub fn steps(&self) -> &[SlotGate] {
        &self.steps
    }

    /// The slot lists of all steps; [`SlotGate::first`] indexes it.
    pub fn args(&self) -> &[u32] {
        &self.args
    }

    /// The argument list, for a consumer that keeps it after the steps.
    pub fn into_args(self) -> Vec<u32> {
        self.args
    }

    /// The input slots of a step.
    pub fn inputs_of(&self, s: &SlotGate) -> &[u32] {
        &self.args[s.first as usize..][..s.num_inputs()]
    }

    /// The output slots of a step.
    pub fn outputs_of(&self, s: &SlotGate) -> &[u32] {
        &self.args[s.first as usize + s.num_inputs()..][..s.num_outputs()]
    }

    /// Step ranges that run as one: a free gate alone or one round's
    /// multiplications (with [`Order::Circuit`], every step alone).
    pub fn groups(&self) -> &[Range<usize>] {
        &self.groups
    }

    /// Whether a group is a round of interactive gates.
    pub fn is_round(&self, group: &Range<usize>) -> bool {
        self.steps[group.start].op.is_interactive()
    }

    /// Rounds of interactive gates the circuit needs (its multiplicative
    /// depth after fan-in limits, counting only live gates).
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// Slots the arena of a domain needs at once.
    pub fn slots(&self, domain: Domain) -> usize {
        self.slots[domain as usize]
    }

    /// Per input value, the slot of each of its wires.
    pub fn input_slots(&self) -> &[Vec<u32>] {
        &self.inputs
    }

    /// Per output value, the slot of each of its wires.
    pub fn output_slots(&self) -> &[Vec<u32>] {
        &self.outputs
    }

    /// The ring of the arithmetic slots, if the circuit has any.
    pub fn ring(&self) -> Option<RingWidth> {
        self.ring
    }
}

/// The live gates in run order, the groups as ranges of that order, and the
/// number of rounds.
fn order_and_group(c: &Circuit, order: Order) -> (Vec<u32>, Vec<Range<usize>>, usize) {
    let live = live_gates(c);
    let layering = Layering::of(c);
    let interactive = |g: u32| c.gates()[g as usize].op.is_interactive();
    let gates: Vec<u32> = (0..c.gates().len() as u32)
        .filter(|&g| live[g as usize])
        .collect();
    let rounds = gates
        .iter()
        .filter(|&&g| interactive(g))
        .map(|&g| layering.gate_layer[g as usize] as usize)
        .max()
        .unwrap_or(0);
    if order == Order::Circuit {
        let groups = (0..gates.len()).map(|i| i..i + 1).collect();
        return (gates, groups, rounds);
    }
    // Round d's multiplications before the free gates of depth d; stable,
    // so every gate still follows its inputs. The keys are small integers:
    // a counting sort (a comparison sort was a tenth of a large circuit's
    // start).
    let key = |g: u32| 2 * layering.gate_layer[g as usize] as usize + usize::from(!interactive(g));
    let mut starts = vec![0usize; gates.iter().map(|&g| key(g)).max().map_or(0, |k| k + 2)];
    for &g in &gates {
        starts[key(g) + 1] += 1;
    }
    for k in 1..starts.len() {
        starts[k] += starts[k - 1];
    }
    let mut sorted = vec![0u32; gates.len()];
    for &g in &gates {
        let at = &mut starts[key(g)];
        sorted[*at] = g;
        *at += 1;
    }
    let gates = sorted;
    let mut groups: Vec<Range<usize>> = Vec::new();
    for (i, &g) in gates.iter().enumerate() {
        match groups.last_mut() {
            Some(r) if interactive(g) && interactive(gates[r.start]) => {
                if layering.gate_layer[gates[r.start] as usize] == layering.gate_layer[g as usize] {
                    r.end = i + 1;
                } else {
                    groups.push(i..i + 1);
                }
            }
            _ => groups.push(i..i + 1),
        }
    }
    (gates, groups, rounds)
}

/// For every wire, the group that reads it last ([`READ_AT_END`] for
/// outputs, [`NEVER_READ`] for wires nobody reads).
fn last_readers(c: &Circuit, order: &[u32], groups: &[Range<usize>]) -> Vec<u32> {
    let mut last = vec![NEVER_READ; c.num_wires()];
    for (i, group) in groups.iter().enumerate() {
        for &g in &order[group.clone()] {
            for &w in c.gate_inputs(&c.gates()[g as usize]) {
                last[w as usize] = i as u32;
            }
        }
    }
    for v in c.outputs() {
        for &w in &v.wires {
            last[w as usize] = READ_AT_END;
        }
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{random_circuit, RandomCircuitSpec};
    use crate::reference::evaluate_one;
    use huddle_core::Prg;

    /// Runs a schedule on one instance, one u64 per slot: the simplest
    /// interpreter, to check slots and order against the reference evaluator.
    fn interpret(s: &Schedule, inputs: &[Vec<u64>], c: &Circuit) -> Vec<Vec<u64>> {
        let mask = s.ring().map_or(1, |r| r.mask());
        let k = s.ring().map_or(0, |r| r.bits() as usize);
        let mut arena = [
            vec![0u64; s.slots(Domain::Bit)],
            vec![0u64; s.slots(Domain::Ring)],
        ];
        for ((v, words), slots) in c.inputs().iter().zip(inputs).zip(s.input_slots()) {
            for (j, &slot) in slots.iter().enumerate() {
                arena[v.domain as usize][slot as usize] = match v.domain {
                    Domain::Bit => (words[j / 64] >> (j % 64)) & 1,
                    Domain::Ring => (words[j * k / 64] >> (j * k % 64)) & mask,
                };
            }
        }
        for group in s.groups() {
            // A group reads before it writes: compute every result first.
            let mut results = Vec::new();
            let mut reads = Vec::new();
            for st in &s.steps()[group.clone()] {
                let ins = s.inputs_of(st);
                let outs = s.outputs_of(st);
                let in_domain = |j: usize| match st.op {
                    Op::BitDecompose | Op::Ltz | Op::Eqz => Domain::Ring,
                    Op::BitMul if j + 1 == ins.len() => Domain::Ring,
                    Op::BitInject | Op::BitMul => Domain::Bit,
                    _ => st.domain,
                };
                reads.extend(ins.iter().enumerate().map(|(j, &i)| (in_domain(j), i)));
                let x: Vec<u64> = ins
                    .iter()
                    .enumerate()
                    .map(|(j, &i)| arena[in_domain(j) as usize][i as usize])
                    .collect();
                let vals = crate::reference::apply(st.op, &x, outs.len(), s.ring());
                for (&o, v) in outs.iter().zip(vals) {
                    results.push((st.domain, o, v));
                }
            }
            let written: Vec<(Domain, u32)> = results.iter().map(|&(d, o, _)| (d, o)).collect();
            let mut distinct = written.clone();
            distinct.sort_by_key(|&(d, o)| (d as usize, o));
            distinct.dedup();
            assert_eq!(distinct.len(), written.len(), "a group writes a slot twice");
            assert!(
                written.iter().all(|w| !reads.contains(w)),
                "a group writes a slot it reads"
            );
            for (d, o, v) in results {
                arena[d as usize][o as usize] = v;
            }
        }
        c.outputs()
            .iter()
            .zip(s.output_slots())
            .map(|(v, slots)| {
                let bits = if v.domain == Domain::Bit { 1 } else { k };
                let mut words = vec![0u64; (slots.len() * bits).div_ceil(64)];
                for (j, &slot) in slots.iter().enumerate() {
                    let x = arena[v.domain as usize][slot as usize];
                    words[j * bits / 64] |= x << (j * bits % 64);
                }
                words
            })
            .collect()
    }

    fn random_words(c: &Circuit, prg: &mut Prg) -> Vec<Vec<u64>> {
        (0..c.inputs().len())
            .map(|i| {
                let bits = c.input_bits(i);
                let mut w: Vec<u64> = (0..bits.div_ceil(64)).map(|_| prg.next_u64()).collect();
                if !bits.is_multiple_of(64) {
                    *w.last_mut().expect("bits > 0") &= (1u64 << (bits % 64)) - 1;
                }
                w
            })
            .collect()
    }

    #[test]
    fn every_order_and_storage_computes_what_the_reference_does() {
        let mut prg = Prg::from_seed([3; 16]);
        let specs = [
            RandomCircuitSpec::boolean(&[24, 17], 400, 6),
            RandomCircuitSpec::arithmetic(RingWidth::W16, &[5, 3], 300, 4),
            RandomCircuitSpec::mixed(RingWidth::W32, 12, 4, 400, 5),
        ];
        for spec in &specs {
            for _ in 0..6 {
                let c = random_circuit(spec, &mut prg);
                for order in [Order::Circuit, Order::Rounds] {
                    for storage in [Storage::Reuse, Storage::PerWire] {
                        for max_fan_in in [None, Some(2), Some(3)] {
                            let options = ScheduleOptions {
                                max_fan_in,
                                order,
                                storage,
                            };
                            let s = Schedule::compile(&c, options);
                            for _ in 0..4 {
                                let x = random_words(&c, &mut prg);
                                assert_eq!(
                                    interpret(&s, &x, &c),
                                    evaluate_one(&c, &x),
                                    "{options:?}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn rounds_are_contiguous_ascending_and_match_the_depth() {
        let mut prg = Prg::from_seed([4; 16]);
        for _ in 0..10 {
            let c = random_circuit(&RandomCircuitSpec::boolean(&[32, 32], 600, 8), &mut prg);
            for fan_in in [2, 4, 8] {
                let s = Schedule::compile(&c, ScheduleOptions::rounds(fan_in));
                let limited = crate::rewrite::limit_fan_in(&c, fan_in);
                let rounds: Vec<&Range<usize>> =
                    s.groups().iter().filter(|g| s.is_round(g)).collect();
                // One group per round: no two round groups are at the same depth.
                assert_eq!(rounds.len(), s.rounds());
                assert!(s.rounds() as u32 <= Layering::of(&limited).depth.max(1));
                for g in s.groups() {
                    let round = s.is_round(g);
                    assert!(s.steps()[g.clone()]
                        .iter()
                        .all(|st| st.op.is_interactive() == round));
                    assert!(round || g.len() == 1);
                    for st in &s.steps()[g.clone()] {
                        assert!(st.num_inputs() <= fan_in.max(2) || !st.op.is_interactive());
                        assert_ne!(st.op, Op::Mand);
                    }
                }
            }
        }
    }

    #[test]
    fn dead_gates_are_dropped_and_slots_follow_the_width() {
        // A chain of 1000 ANDs, each read once: reuse needs a handful of slots,
        // per-wire storage one per wire; a dead branch costs nothing.
        // Bristol Fashion: inputs x0..x2 (wires 0-2), an AND (wire 3) that
        // nothing reads, then an AND chain on wires 4..=1003 (the output).
        let mut text = String::from("1001 1004\n1 3\n1 1\n\n2 1 0 2 3 AND\n2 1 0 1 4 AND\n");
        for w in 4..1003 {
            text.push_str(&format!("2 1 {w} 1 {} AND\n", w + 1));
        }
        let c = crate::read_circuit(text.as_bytes()).expect("valid");
        let reuse = Schedule::compile(&c, ScheduleOptions::rounds(2));
        let ands = |s: &Schedule| s.steps().iter().filter(|st| st.op == Op::And).count();
        assert_eq!(c.gates().len(), 1001);
        assert_eq!(ands(&reuse), 1000);
        assert_eq!(reuse.rounds(), 1000);
        assert!(
            reuse.slots(Domain::Bit) <= 4,
            "{}",
            reuse.slots(Domain::Bit)
        );
        let per_wire = Schedule::compile(
            &c,
            ScheduleOptions {
                storage: Storage::PerWire,
                ..ScheduleOptions::rounds(2)
            },
        );
        assert_eq!(ands(&per_wire), 1000);
        let written = per_wire
            .steps()
            .iter()
            .map(SlotGate::num_outputs)
            .sum::<usize>();
        assert_eq!(per_wire.slots(Domain::Bit), 3 + written);
    }
}
