//! Circuit rewrites that keep the function.

use crate::model::{Circuit, CircuitAssembler, Op, ValueSpec, WireId};

/// Splits every AND, ADD and MUL with more than two inputs into a balanced
/// tree of 2-input gates, for protocols without native multi-fan-in gates.
/// Depth grows by ceil(log2 k) - 1 per k-input gate; everything else is kept.
pub fn split_fan_in(circuit: &Circuit) -> Circuit {
    limit_fan_in(circuit, 2)
}

/// Splits every AND, ADD and MUL with more than `max` inputs (at least 2)
/// into a balanced tree of gates with at most `max` inputs each.
pub fn limit_fan_in(circuit: &Circuit, max: usize) -> Circuit {
    let max = max.max(2);
    let wide = |op: Op, n: usize| matches!(op, Op::And | Op::Add | Op::Mul) && n > max;
    // Every tree gate but the last writes a new wire.
    let extra: u64 = circuit
        .gates()
        .iter()
        .filter(|g| wide(g.op, g.num_inputs()))
        .map(|g| tree_gates(g.num_inputs(), max) as u64 - 1)
        .sum();
    let inputs: Vec<ValueSpec> = circuit
        .inputs()
        .iter()
        .map(|v| ValueSpec {
            name: v.name.clone(),
            domain: v.domain,
            wires: v.wires,
        })
        .collect();
    let mut asm = CircuitAssembler::new(circuit.num_wires() as u64 + extra, circuit.ring(), inputs)
        .expect("same inputs as a valid circuit");
    let mut next = circuit.num_wires() as WireId;
    for g in circuit.gates() {
        let (ins, outs) = (circuit.gate_inputs(g), circuit.gate_outputs(g));
        if !wide(g.op, ins.len()) {
            asm.push(g.op, ins, outs)
                .expect("copied from a valid circuit");
            continue;
        }
        // Group neighbours level by level; the last group writes the original output.
        let mut level: Vec<WireId> = ins.to_vec();
        while level.len() > 1 {
            let mut up = Vec::with_capacity(level.len().div_ceil(max));
            let last_level = level.len() <= max;
            for group in level.chunks(max) {
                if let [a] = group {
                    up.push(*a);
                    continue;
                }
                let out = if last_level { outs[0] } else { next };
                if !last_level {
                    next += 1;
                }
                asm.push(g.op, group, &[out])
                    .expect("tree gates are well formed");
                up.push(out);
            }
            level = up;
        }
    }
    let outputs = circuit
        .outputs()
        .iter()
        .map(|v| {
            (
                ValueSpec {
                    name: v.name.clone(),
                    domain: v.domain,
                    wires: v.wires.len() as u32,
                },
                v.wires.clone(),
            )
        })
        .collect();
    let mut out = asm.finish(outputs).expect("every wire written once");
    // Ownership carries over.
    let _ = out.set_owners(circuit.owners().clone());
    out
}

/// Gates in the tree that reduces `k` operands in groups of at most `max`.
fn tree_gates(mut k: usize, max: usize) -> usize {
    let mut gates = 0;
    while k > 1 {
        gates += k / max + usize::from(k % max > 1);
        k = k.div_ceil(max);
    }
    gates
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{random_circuit, random_inputs, RandomCircuitSpec};
    use crate::{Layering, PlainEvaluator, Stats};
    use huddle_core::{Prg, RingWidth};

    #[test]
    fn splitting_keeps_the_function_and_leaves_only_two_input_gates() {
        let mut prg = Prg::from_seed([4; 16]);
        for round in 0..20 {
            let spec = if round % 2 == 0 {
                RandomCircuitSpec::boolean(&[9, 40], 300, 16)
            } else {
                RandomCircuitSpec::mixed(RingWidth::ALL[round % 4], 9, 3, 300, 16)
            };
            let c = random_circuit(&spec, &mut prg);
            let s = split_fan_in(&c);
            assert!(s
                .gates()
                .iter()
                .all(|g| !matches!(g.op, Op::And | Op::Add | Op::Mul) || g.num_inputs() == 2));
            assert!(Layering::of(&s).depth >= Layering::of(&c).depth);
            let inputs = random_inputs(&c, &mut prg, 300);
            assert_eq!(
                PlainEvaluator::new(&c).evaluate(&inputs),
                PlainEvaluator::new(&s).evaluate(&inputs)
            );
        }
        // Limiting to 4 inputs keeps the function and leaves gates of at most 4 inputs.
        for round in 0..10 {
            let spec = RandomCircuitSpec::mixed(RingWidth::ALL[round % 4], 9, 3, 300, 16);
            let c = random_circuit(&spec, &mut prg);
            let s = limit_fan_in(&c, 4);
            assert!(s
                .gates()
                .iter()
                .all(|g| !matches!(g.op, Op::And | Op::Add | Op::Mul)
                    || (2..=4).contains(&g.num_inputs())));
            let inputs = random_inputs(&c, &mut prg, 100);
            assert_eq!(
                PlainEvaluator::new(&c).evaluate(&inputs),
                PlainEvaluator::new(&s).evaluate(&inputs)
            );
        }
        // An 8-input AND becomes 7 gates of depth 3.
        let mut asm = CircuitAssembler::new(9, None, vec![ValueSpec::bits("x", 8)]).expect("valid");
        asm.push(Op::And, &[0, 1, 2, 3, 4, 5, 6, 7], &[8])
            .expect("and8");
        let c = asm
            .finish(vec![(ValueSpec::bits("y", 1), vec![8])])
            .expect("valid");
        let s = split_fan_in(&c);
        assert_eq!(Stats::of(&s).and_by_fanin.get(&2), Some(&7));
        assert_eq!(Layering::of(&s).depth, 3);
    }
}
