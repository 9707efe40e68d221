//! Circuit rewrites that keep the function.

use crate::model::{Circuit, CircuitAssembler, Op, ValueSpec, WireId};
use std::borrow::Cow;

/// Splits every AND, ADD and MUL with more than two inputs into a balanced
/// tree of 2-input gates, for protocols without native multi-fan-in gates.
/// Depth grows by ceil(log2 k) - 1 per k-input gate; everything else is kept.
pub fn split_fan_in(circuit: &Circuit) -> Circuit {
    limit_fan_in(circuit, 2)
}

/// Whether a gate of `op` with `inputs` operands exceeds fan-in `max` (only
/// ANDs, additions and products are split).
fn is_wide(op: Op, inputs: usize, max: usize) -> bool {
    matches!(op, Op::And | Op::Add | Op::Mul) && inputs > max
}

/// Whether [`limit_fan_in`] would change `circuit` (else it is the same
/// circuit, and callers may keep it as it is).
pub fn exceeds_fan_in(circuit: &Circuit, max: usize) -> bool {
    let max = max.max(2);
    circuit
        .gates()
        .iter()
        .any(|g| is_wide(g.op, g.num_inputs(), max))
}

/// Splits every AND, ADD and MUL with more than `max` inputs (at least 2)
/// into a balanced tree of gates with at most `max` inputs each.
pub fn limit_fan_in(circuit: &Circuit, max: usize) -> Circuit {
    let max = max.max(2);
    let wide = |op: Op, n: usize| is_wide(op, n, max);
    // Every tree gate but the last writes a new wire.
    let extra: u64 = circuit
        .gates()
        .iter()
        .filter(|g| wide(g.op, g.num_inputs()))
        .map(|g| tree_gates(g.num_inputs(), max) as u64 - 1)
        .sum();
    rebuilt(circuit, circuit.num_wires() as u64 + extra, |asm| {
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
    })
}

/// A circuit with `circuit`'s inputs, outputs and input owners, `num_wires`
/// wires and the gates `add` pushes.
fn rebuilt(circuit: &Circuit, num_wires: u64, add: impl FnOnce(&mut CircuitAssembler)) -> Circuit {
    let spec = |name: &str, domain, wires| ValueSpec {
        name: name.to_string(),
        domain,
        wires,
    };
    let inputs = circuit
        .inputs()
        .iter()
        .map(|v| spec(&v.name, v.domain, v.wires))
        .collect();
    let mut asm = CircuitAssembler::new(num_wires, circuit.ring(), inputs)
        .expect("same inputs as a valid circuit");
    add(&mut asm);
    let outputs = circuit
        .outputs()
        .iter()
        .map(|v| {
            (
                spec(&v.name, v.domain, v.wires.len() as u32),
                v.wires.clone(),
            )
        })
        .collect();
    let mut out = asm.finish(outputs).expect("every wire written once");
    // Ownership carries over.
    let _ = out.set_owners(circuit.owners().clone());
    out
}

/// Which fixed-point gates a protocol evaluates natively; the others
/// [`lower_products`] rewrites into gates every secret-sharing protocol has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NativeProducts {
    /// `DOT` (a dot product for the communication of one multiplication).
    pub dot: bool,
    /// `DOTTR` (multiplication fused with probabilistic truncation).
    pub dot_trunc: bool,
}

/// Rewrites the `DOT` and `DOTTR` gates a protocol lacks into ordinary
/// gates with the same value (exactly: no probabilistic error):
/// - `DOT` of length l: l 2-input `MUL`s and a tree of `ADD`s of at most 16
///   inputs (one round, l multiplications);
/// - `DOTTR` by f bits: the dot product, then an exact arithmetic shift:
///   `A2B` of the sum, `B2A` of its bits f..k−1 and their weighted sum, the
///   top bit weighted −2^(k−f−1) (sign extension).
///
/// Everything else is copied; a circuit without those gates comes back as
/// it is, borrowed (no copy).
pub fn lower_products(circuit: &Circuit, native: NativeProducts) -> Cow<'_, Circuit> {
    let lowered = |op: Op| match op {
        Op::Dot => !native.dot,
        Op::DotTrunc(_) => !native.dot_trunc,
        _ => false,
    };
    if !circuit.gates().iter().any(|g| lowered(g.op)) {
        return Cow::Borrowed(circuit);
    }
    let k = circuit.ring().map_or(0, |r| r.bits());
    let mask = circuit.ring().map_or(0, |r| r.mask());
    let mut gates: Vec<(Op, Vec<WireId>, Vec<WireId>)> = Vec::new();
    let mut next = circuit.num_wires() as WireId;
    let mut fresh = || {
        next += 1;
        next - 1
    };
    for g in circuit.gates() {
        let (ins, outs) = (circuit.gate_inputs(g), circuit.gate_outputs(g));
        if !lowered(g.op) {
            gates.push((g.op, ins.to_vec(), outs.to_vec()));
            continue;
        }
        let l = ins.len() / 2;
        let (a, b) = ins.split_at(l);
        let Op::DotTrunc(f) = g.op else {
            sum_of_products(&mut gates, &mut fresh, a, b, outs[0]);
            continue;
        };
        let f = u32::from(f);
        let sum = if native.dot {
            let s = fresh();
            gates.push((Op::Dot, ins.to_vec(), vec![s]));
            s
        } else {
            let s = fresh();
            sum_of_products(&mut gates, &mut fresh, a, b, s);
            s
        };
        let bits: Vec<WireId> = (0..k).map(|_| fresh()).collect();
        gates.push((Op::BitDecompose, vec![sum], bits.clone()));
        let mut terms = Vec::with_capacity((k - f) as usize);
        for j in 0..k - f {
            let r = fresh();
            gates.push((Op::BitInject, vec![bits[(j + f) as usize]], vec![r]));
            let weight = if j == k - f - 1 {
                (1u64 << j).wrapping_neg() & mask
            } else {
                1u64 << j
            };
            if weight == 1 {
                terms.push(r);
            } else {
                let t = fresh();
                gates.push((Op::MulConst(weight), vec![r], vec![t]));
                terms.push(t);
            }
        }
        sum_tree(&mut gates, &mut fresh, terms, outs[0]);
    }
    Cow::Owned(rebuilt(circuit, u64::from(next), |asm| {
        for (op, ins, outs) in &gates {
            asm.push(*op, ins, outs)
                .expect("lowered gates are well formed");
        }
    }))
}

/// out = a_1·b_1 + .. + a_l·b_l with 2-input MULs and an ADD tree.
fn sum_of_products(
    gates: &mut Vec<(Op, Vec<WireId>, Vec<WireId>)>,
    fresh: &mut impl FnMut() -> WireId,
    a: &[WireId],
    b: &[WireId],
    out: WireId,
) {
    if let ([x], [y]) = (a, b) {
        gates.push((Op::Mul, vec![*x, *y], vec![out]));
        return;
    }
    let products = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| {
            let p = fresh();
            gates.push((Op::Mul, vec![x, y], vec![p]));
            p
        })
        .collect();
    sum_tree(gates, fresh, products, out);
}

/// out = the sum of `terms` (at least one) by ADDs of at most 16 inputs.
fn sum_tree(
    gates: &mut Vec<(Op, Vec<WireId>, Vec<WireId>)>,
    fresh: &mut impl FnMut() -> WireId,
    mut terms: Vec<WireId>,
    out: WireId,
) {
    const WIDEST: usize = crate::model::MAX_FAN_IN;
    if terms.len() == 1 {
        gates.push((Op::Copy, terms, vec![out]));
        return;
    }
    while terms.len() > WIDEST {
        terms = terms
            .chunks(WIDEST)
            .map(|group| match group {
                [one] => *one,
                _ => {
                    let s = fresh();
                    gates.push((Op::Add, group.to_vec(), vec![s]));
                    s
                }
            })
            .collect();
    }
    if terms.len() == 1 {
        gates.push((Op::Copy, terms, vec![out]));
    } else {
        gates.push((Op::Add, terms, vec![out]));
    }
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
    use huddle_core::{BitMatrix, Prg, RingWidth};

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

    #[test]
    fn lowering_products_keeps_the_function_exactly() {
        let mut prg = Prg::from_seed([5; 16]);
        for round in 0..24 {
            let ring = RingWidth::ALL[round % 4];
            let c = random_circuit(&RandomCircuitSpec::mixed(ring, 9, 4, 250, 8), &mut prg);
            let native = NativeProducts {
                dot: round % 3 == 0,
                dot_trunc: false,
            };
            let l = lower_products(&c, native);
            assert!(l.gates().iter().all(|g| match g.op {
                Op::Dot => native.dot,
                Op::DotTrunc(_) => false,
                _ => true,
            }));
            let inputs = random_inputs(&c, &mut prg, 200);
            assert_eq!(
                PlainEvaluator::new(&c).evaluate(&inputs),
                PlainEvaluator::new(&l).evaluate(&inputs),
                "round {round}"
            );
        }
        // Nothing to lower: the same circuit.
        let c = random_circuit(&RandomCircuitSpec::boolean(&[8, 8], 50, 4), &mut prg);
        let l = lower_products(&c, NativeProducts::default());
        assert!(matches!(l, Cow::Borrowed(_)));
        assert_eq!(l.gates().len(), c.gates().len());
    }

    #[test]
    fn lowered_truncation_is_the_arithmetic_shift_at_the_extremes() {
        for ring in RingWidth::ALL {
            let k = ring.bits();
            for f in [1u8, (k / 2) as u8, (k - 1) as u8] {
                let mut b = crate::builder::Builder::arithmetic(ring, 2);
                let x = b.ring_input("x", 1);
                let y = b.ring_input("y", 1);
                let p = b.fixed_mul(x[0], y[0], f);
                b.ring_output("p", vec![p]);
                let c = b.finish();
                let l = lower_products(&c, NativeProducts::default());
                let m = ring.mask();
                let half = 1u64 << (k - 1);
                for (x, y) in [
                    (0, 0),
                    (m, 1),
                    (half, 1),
                    (half - 1, 1),
                    (m, m),
                    (half, m),
                    (1, 1 << f),
                    (m, 1 << f),
                ] {
                    let mut rows = Vec::new();
                    for v in [x, y] {
                        let mut mat = BitMatrix::zeros(1, k as usize);
                        mat.row_mut(0)[0] = v & m;
                        rows.push(mat);
                    }
                    let got = PlainEvaluator::new(&l)
                        .evaluate(&rows)
                        .expect("valid inputs");
                    let want = ring.truncate(x.wrapping_mul(y) & m, u32::from(f));
                    assert_eq!(got[0].row(0)[0], want, "{ring} f {f}: {x} * {y}");
                }
            }
        }
    }
}
