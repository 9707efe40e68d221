//! Building circuits in code: declare the inputs, combine wires with gate
//! methods, name the outputs, and `finish` yields a checked [`Circuit`] with
//! the outputs on the last wires (the Bristol Fashion convention).
//!
//! Inputs may be declared at any point, before or after gates: `finish`
//! gives them the first wires, in the order they were declared.
//!
//! Multi-input ANDs respect the builder's fan-in budget: `and_all` of more
//! wires than the budget becomes a balanced tree of gates of at most that
//! many inputs, so one generator serves every fan-in.

use crate::model::{Circuit, CircuitAssembler, Op, ValueSpec, WireId, MAX_FAN_IN, MAX_INJECT_BITS};
use crate::reference::apply;
use huddle_core::RingWidth;
use std::collections::HashMap;

/// How [`Builder::compare_lt`] reads two ring values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// Signed values whose difference fits the ring (|a − b| < 2^(k−1)):
    /// the sign of a − b, one LTZ.
    Bounded,
    /// Any two signed k-bit values.
    Signed,
    /// Any two unsigned k-bit values.
    Unsigned,
}

/// A circuit under construction.
pub struct Builder {
    ring: Option<RingWidth>,
    max_fan_in: usize,
    /// The input values in declaration order, with their first wire.
    inputs: Vec<(ValueSpec, WireId)>,
    gates: Vec<(Op, Vec<WireId>, Vec<WireId>)>,
    outputs: Vec<(ValueSpec, Vec<WireId>)>,
    next: WireId,
    constants: [Option<WireId>; 2],
    /// The value of every constant wire: gates of constants only are
    /// folded into constants (a comparison of public values costs nothing).
    known: HashMap<WireId, u64>,
}

impl Builder {
    /// A Boolean circuit whose ANDs take at most `max_fan_in` inputs (2..=16).
    pub fn boolean(max_fan_in: usize) -> Self {
        Builder {
            ring: None,
            max_fan_in: max_fan_in.clamp(2, MAX_FAN_IN),
            inputs: Vec::new(),
            gates: Vec::new(),
            outputs: Vec::new(),
            next: 0,
            constants: [None, None],
            known: HashMap::new(),
        }
    }

    /// A circuit over Z_2^k (it may also use Boolean wires).
    pub fn arithmetic(ring: RingWidth, max_fan_in: usize) -> Self {
        Builder {
            ring: Some(ring),
            ..Builder::boolean(max_fan_in)
        }
    }

    /// The largest AND fan-in the builder emits (2..=16).
    pub fn max_fan_in(&self) -> usize {
        self.max_fan_in
    }

    fn declare(&mut self, spec: ValueSpec) -> Vec<WireId> {
        let first = self.next;
        self.next += spec.wires;
        self.inputs.push((spec, first));
        (first..self.next).collect()
    }

    /// Sets the ring of a builder that has none yet (a circuit whose first
    /// ring value appears after it was started).
    pub(crate) fn set_ring(&mut self, ring: RingWidth) {
        debug_assert!(self.ring.is_none_or(|r| r == ring), "one ring per circuit");
        self.ring = Some(ring);
    }

    /// The value of `wire` if it is a constant (a bit as 0 or 1).
    pub(crate) fn known(&self, wire: WireId) -> Option<u64> {
        self.known.get(&wire).copied()
    }

    /// A Boolean input value of `bits` wires, least significant bit first.
    pub fn input(&mut self, name: &str, bits: u32) -> Vec<WireId> {
        self.declare(ValueSpec::bits(name, bits))
    }

    /// An arithmetic input value of `elements` ring wires.
    pub fn ring_input(&mut self, name: &str, elements: u32) -> Vec<WireId> {
        assert!(self.ring.is_some(), "ring inputs need Builder::arithmetic");
        self.declare(ValueSpec::ring(name, elements))
    }

    fn gate(&mut self, op: Op, ins: &[WireId]) -> WireId {
        // A gate of constants only is a constant (COPY keeps its wire).
        let all_known = !ins.is_empty() && ins.iter().all(|w| self.known.contains_key(w));
        if all_known && op != Op::Copy {
            let values: Vec<u64> = ins.iter().map(|w| self.known[w]).collect();
            let v = apply(op, &values, 1, self.ring)[0];
            return match op {
                Op::Xor | Op::Inv | Op::And | Op::Ltz | Op::Eqz => self.constant(v == 1),
                _ => self.gate(Op::ConstRing(v), &[]),
            };
        }
        let out = self.next;
        self.next += 1;
        self.gates.push((op, ins.to_vec(), vec![out]));
        match op {
            Op::ConstBit(b) => {
                self.known.insert(out, u64::from(b));
            }
            Op::ConstRing(c) => {
                self.known.insert(out, c);
            }
            _ => {}
        }
        out
    }

    /// a XOR b: free.
    pub fn xor(&mut self, a: WireId, b: WireId) -> WireId {
        self.gate(Op::Xor, &[a, b])
    }

    /// NOT a: free.
    pub fn not(&mut self, a: WireId) -> WireId {
        self.gate(Op::Inv, &[a])
    }

    /// a AND b: one 2-input AND (folded away if both are constants).
    pub fn and(&mut self, a: WireId, b: WireId) -> WireId {
        self.gate(Op::And, &[a, b])
    }

    /// a OR b = NOT(NOT a AND NOT b): one AND.
    pub fn or(&mut self, a: WireId, b: WireId) -> WireId {
        let (na, nb) = (self.not(a), self.not(b));
        let both = self.and(na, nb);
        self.not(both)
    }

    /// The constant bit `value` (one EQ gate, shared by all users).
    pub fn constant(&mut self, value: bool) -> WireId {
        if let Some(w) = self.constants[usize::from(value)] {
            return w;
        }
        let w = self.gate(Op::ConstBit(value), &[]);
        self.constants[usize::from(value)] = Some(w);
        w
    }

    /// XOR of all `wires` (0 for none): free in every protocol.
    pub fn xor_all(&mut self, wires: &[WireId]) -> WireId {
        match wires {
            [] => self.constant(false),
            [w] => *w,
            [first, rest @ ..] => rest.iter().fold(*first, |acc, &w| self.xor(acc, w)),
        }
    }

    /// AND of all `wires` (1 for none): one gate if they fit the fan-in
    /// budget, else a balanced tree of gates of at most `max_fan_in` inputs
    /// (depth ceil(log_l n)).
    pub fn and_all(&mut self, wires: &[WireId]) -> WireId {
        match wires {
            [] => self.constant(true),
            [w] => *w,
            _ => {
                let mut level = wires.to_vec();
                while level.len() > 1 {
                    level = level
                        .chunks(self.max_fan_in)
                        .map(|group| match group {
                            [w] => *w,
                            _ => self.gate(Op::And, group),
                        })
                        .collect();
                }
                level[0]
            }
        }
    }

    /// Instantiates the Boolean circuit `sub` as a component: `args[i]` feeds
    /// its input value i; returns the wires of each of its output values.
    /// ANDs wider than this builder's budget become trees.
    pub fn call(&mut self, sub: &Circuit, args: &[&[WireId]]) -> Vec<Vec<WireId>> {
        assert!(sub.is_boolean(), "only Boolean circuits are components");
        assert_eq!(args.len(), sub.inputs().len(), "one argument per input");
        let mut map: Vec<WireId> = vec![WireId::MAX; sub.num_wires()];
        for (value, arg) in sub.inputs().iter().zip(args) {
            assert_eq!(arg.len(), value.wires as usize, "argument width");
            for (j, &w) in arg.iter().enumerate() {
                map[value.first_wire as usize + j] = w;
            }
        }
        for g in sub.gates() {
            let ins: Vec<WireId> = sub
                .gate_inputs(g)
                .iter()
                .map(|&w| map[w as usize])
                .collect();
            let outs = sub.gate_outputs(g);
            match g.op {
                Op::Xor => map[outs[0] as usize] = self.xor(ins[0], ins[1]),
                Op::Inv => map[outs[0] as usize] = self.not(ins[0]),
                Op::Copy => map[outs[0] as usize] = ins[0],
                Op::ConstBit(v) => map[outs[0] as usize] = self.constant(v),
                Op::And => map[outs[0] as usize] = self.and_all(&ins),
                Op::Mand => {
                    let k = outs.len();
                    for (i, &o) in outs.iter().enumerate() {
                        map[o as usize] = self.and(ins[i], ins[k + i]);
                    }
                }
                other => unreachable!("{} in a Boolean circuit", other.name()),
            }
        }
        sub.outputs()
            .iter()
            .map(|v| v.wires.iter().map(|&w| map[w as usize]).collect())
            .collect()
    }

    /// A ring operation (ADD, SUB, MUL, NEG, ...) on ring wires.
    pub fn ring_op(&mut self, op: Op, ins: &[WireId]) -> WireId {
        assert!(self.ring.is_some(), "ring gates need Builder::arithmetic");
        self.gate(op, ins)
    }

    /// a_1·b_1 + .. + a_l·b_l as one DOT gate (`a` and `b` of equal length).
    pub fn dot(&mut self, a: &[WireId], b: &[WireId]) -> WireId {
        assert_eq!(a.len(), b.len(), "a dot product of vectors of equal length");
        self.ring_op(Op::Dot, &[a, b].concat())
    }

    /// The fixed-point dot product with `f` fractional bits: the sum of the
    /// products truncated by f (one DOTTR gate).
    pub fn fixed_dot(&mut self, a: &[WireId], b: &[WireId], f: u8) -> WireId {
        assert_eq!(a.len(), b.len(), "a dot product of vectors of equal length");
        self.ring_op(Op::DotTrunc(f), &[a, b].concat())
    }

    /// The fixed-point product a·b with `f` fractional bits.
    pub fn fixed_mul(&mut self, a: WireId, b: WireId, f: u8) -> WireId {
        self.fixed_dot(&[a], &[b], f)
    }

    /// The ring constant of the fixed-point number `x` with `f` fractional bits.
    pub fn fixed_constant(&mut self, x: f64, f: u8) -> WireId {
        let ring = self.ring.expect("fixed point needs Builder::arithmetic");
        self.ring_op(Op::ConstRing(to_fixed(x, f, ring)), &[])
    }

    /// The k bits of the ring element a, least significant first (one A2B gate).
    pub fn to_bits(&mut self, a: WireId) -> Vec<WireId> {
        let ring = self.ring.expect("A2B needs Builder::arithmetic");
        let first = self.next;
        self.next += ring.bits();
        let outs: Vec<WireId> = (first..self.next).collect();
        self.gates.push((Op::BitDecompose, vec![a], outs.clone()));
        outs
    }

    /// The bit a < 0 (a read as a signed number).
    pub fn ltz(&mut self, a: WireId) -> WireId {
        self.ring_op(Op::Ltz, &[a])
    }

    /// The bit a < b for signed a and b whose difference fits the ring
    /// (|a − b| < 2^(k−1)).
    pub fn lt(&mut self, a: WireId, b: WireId) -> WireId {
        let d = self.ring_op(Op::Sub, &[a, b]);
        self.ltz(d)
    }

    /// The ring element 0 or 1 of a bit.
    pub fn bit_to_ring(&mut self, bit: WireId) -> WireId {
        self.ring_op(Op::BitInject, &[bit])
    }

    /// Ohata–Nuida's MSNZB: the one-hot vector of the most significant 1
    /// of `bits` (least significant first; all 0 if none): z_j = x_j AND
    /// NOT x_i for every i > j, each one AND of up to n − j inputs (a tree
    /// where the fan-in is smaller: ⌈log_l n⌉ rounds, 2 for 16 bits at l =
    /// 4..9).
    pub fn msnzb(&mut self, bits: &[WireId]) -> Vec<WireId> {
        let above: Vec<WireId> = bits.iter().map(|&x| self.not(x)).collect();
        (0..bits.len())
            .map(|j| {
                let mut ins = vec![bits[j]];
                ins.extend_from_slice(&above[j + 1..]);
                self.and_all(&ins)
            })
            .collect()
    }

    /// The bit a = 0 (one EQZ gate).
    pub fn eqz(&mut self, a: WireId) -> WireId {
        self.ring_op(Op::Eqz, &[a])
    }

    /// The bit a = b: EQZ of the difference (Ohata–Nuida's Equality).
    pub fn eq(&mut self, a: WireId, b: WireId) -> WireId {
        let d = self.ring_op(Op::Sub, &[a, b]);
        self.eqz(d)
    }

    /// The product of 1 to [`MAX_INJECT_BITS`] bits as a ring element
    /// (one B2A gate; BC2A for two bits).
    pub fn bits_to_ring(&mut self, bits: &[WireId]) -> WireId {
        assert!(
            (1..=MAX_INJECT_BITS).contains(&bits.len()),
            "B2A takes 1 to 3 bits"
        );
        self.ring_op(Op::BitInject, bits)
    }

    /// x if all of 1 to [`MAX_INJECT_BITS`] bits are 1, else 0 (one BX2A
    /// gate; Ohata–Nuida's BCX2A for two bits).
    pub fn bits_times(&mut self, bits: &[WireId], x: WireId) -> WireId {
        assert!(
            (1..=MAX_INJECT_BITS).contains(&bits.len()),
            "BX2A takes 1 to 3 bits"
        );
        self.ring_op(Op::BitMul, &[bits, &[x]].concat())
    }

    /// The bit a < b, for values as `how` says: [`Comparison::Bounded`] is
    /// [`Builder::lt`]; the full-range ones add the signs of a and b (three
    /// LTZ side by side) and one AND.
    pub fn compare_lt(&mut self, a: WireId, b: WireId, how: Comparison) -> WireId {
        let below = self.lt(a, b);
        let signed = match how {
            Comparison::Bounded => return below,
            Comparison::Signed => true,
            Comparison::Unsigned => false,
        };
        let (sa, sb) = (self.ltz(a), self.ltz(b));
        let differ = self.xor(sa, sb);
        // Top bits differ: a < b iff a is the negative one (signed), iff b
        // has the top bit (unsigned); else the difference's sign is right.
        let sign = if signed { sa } else { sb };
        let wrong = self.xor(below, sign);
        let fix = self.and(differ, wrong);
        self.xor(below, fix)
    }

    /// The largest (or smallest, `max` false) of `values` and its index
    /// (the first such), as ring elements: a tournament of groups of up to
    /// [`MAX_INJECT_BITS`] + 1, each group in one round of comparisons, all
    /// pairs side by side, and one round of BX2A selecting the winner
    /// (Ohata–Nuida's 3-Max and 3-Argmax: 4 rounds for three values on
    /// ca2pc; groups of four keep that for four).
    pub fn extreme(&mut self, values: &[WireId], max: bool, how: Comparison) -> (WireId, WireId) {
        assert!(!values.is_empty(), "the extreme of no values");
        let mut field: Vec<(WireId, Option<WireId>)> = values.iter().map(|&v| (v, None)).collect();
        let mut level = 0;
        while field.len() > 1 {
            let group = MAX_INJECT_BITS + 1;
            field = field
                .chunks(group)
                .enumerate()
                .map(|(c, members)| {
                    self.extreme_group(members, (c * group) as u64, level, max, how)
                })
                .collect();
            level += 1;
        }
        let (best, index) = field[0];
        let index = index.unwrap_or_else(|| self.ring_op(Op::ConstRing(0), &[]));
        (best, index)
    }

    /// [`Builder::extreme`] the classic way (the baseline of Ohata–Nuida,
    /// their reference \[4\]): one pair at a time, the running winner x'
    /// replaced by the next value y if x' < y (x' + [x' < y]·(y − x')), so
    /// the comparisons run one after another.
    pub fn extreme_pairwise(
        &mut self,
        values: &[WireId],
        max: bool,
        how: Comparison,
    ) -> (WireId, WireId) {
        assert!(!values.is_empty(), "the extreme of no values");
        let (mut best, mut index) = (values[0], self.ring_op(Op::ConstRing(0), &[]));
        let ring = self.ring.expect("ring values");
        for (i, &y) in values.iter().enumerate().skip(1) {
            let replace = if max {
                self.compare_lt(best, y, how)
            } else {
                self.compare_lt(y, best, how)
            };
            let step = self.ring_op(Op::Sub, &[y, best]);
            let step = self.bits_times(&[replace], step);
            best = self.ring_op(Op::Add, &[best, step]);
            let at = self.ring_op(Op::ConstRing(i as u64 & ring.mask()), &[]);
            let jump = self.ring_op(Op::Sub, &[at, index]);
            let jump = self.bits_times(&[replace], jump);
            index = self.ring_op(Op::Add, &[index, jump]);
        }
        (best, index)
    }

    /// One group of [`Builder::extreme`]: member i wins if it beats every
    /// later member (or ties) and every earlier one strictly. Members'
    /// indices are `first + i` at level 0 (public, so a B2A and a public
    /// multiple suffice), later the ring wires they carry.
    fn extreme_group(
        &mut self,
        members: &[(WireId, Option<WireId>)],
        first: u64,
        level: usize,
        max: bool,
        how: Comparison,
    ) -> (WireId, Option<WireId>) {
        if members.len() == 1 {
            let (v, index) = members[0];
            return (
                v,
                index.or_else(|| Some(self.ring_op(Op::ConstRing(first), &[]))),
            );
        }
        let n = members.len();
        // keeps[i][j] (i < j): member i is kept over member j.
        let mut keeps = vec![vec![None; n]; n];
        for i in 0..n {
            for j in i + 1..n {
                let (xi, xj) = (members[i].0, members[j].0);
                let loses = if max {
                    self.compare_lt(xi, xj, how)
                } else {
                    self.compare_lt(xj, xi, how)
                };
                keeps[i][j] = Some(self.not(loses));
            }
        }
        let (mut values, mut indices) = (Vec::new(), Vec::new());
        for i in 0..n {
            let wins: Vec<WireId> = (0..n)
                .filter(|&j| j != i)
                .map(|j| match keeps[i][j] {
                    Some(keep) => keep,
                    None => {
                        let earlier_kept = keeps[j][i].expect("pairs i < j are compared");
                        self.not(earlier_kept)
                    }
                })
                .collect();
            values.push(self.bits_times(&wins, members[i].0));
            match members[i].1 {
                Some(index) => indices.push(self.bits_times(&wins, index)),
                None if level == 0 && first + i as u64 == 0 => {}
                None => {
                    let chosen = self.bits_to_ring(&wins);
                    let ring = self.ring.expect("ring values");
                    let at = (first + i as u64) & ring.mask();
                    indices.push(self.ring_op(Op::MulConst(at), &[chosen]));
                }
            }
        }
        let sum = |b: &mut Builder, terms: Vec<WireId>| match terms[..] {
            [] => b.ring_op(Op::ConstRing(0), &[]),
            [one] => one,
            _ => b.ring_op(Op::Add, &terms),
        };
        let value = sum(self, values);
        let index = sum(self, indices);
        (value, Some(index))
    }

    /// max(a, b) for signed a and b as [`Builder::lt`] bounds them:
    /// b + relu(a − b).
    pub fn max(&mut self, a: WireId, b: WireId) -> WireId {
        let d = self.ring_op(Op::Sub, &[a, b]);
        let excess = self.relu(d);
        self.ring_op(Op::Add, &[b, excess])
    }

    /// ReLU: max(a, 0) = a·[a ≥ 0].
    pub fn relu(&mut self, a: WireId) -> WireId {
        let negative = self.ltz(a);
        let keep = self.not(negative);
        let keep = self.bit_to_ring(keep);
        self.ring_op(Op::Mul, &[a, keep])
    }

    /// Names `wires` as the next output value (Boolean).
    pub fn output(&mut self, name: &str, wires: Vec<WireId>) {
        self.outputs
            .push((ValueSpec::bits(name, wires.len() as u32), wires));
    }

    /// Names `wires` as the next output value (ring elements).
    pub fn ring_output(&mut self, name: &str, wires: Vec<WireId>) {
        self.outputs
            .push((ValueSpec::ring(name, wires.len() as u32), wires));
    }

    /// The finished circuit: gates that reach no output are dropped, wires
    /// renumbered densely, and the outputs copied onto the last wires.
    pub fn finish(mut self) -> Circuit {
        let outputs = std::mem::take(&mut self.outputs);
        // Liveness, from the outputs back.
        let mut live = vec![false; self.next as usize];
        for (_, wires) in &outputs {
            for &w in wires {
                live[w as usize] = true;
            }
        }
        let mut keep = vec![false; self.gates.len()];
        for (i, (_, ins, outs)) in self.gates.iter().enumerate().rev() {
            if outs.iter().any(|&w| live[w as usize]) {
                keep[i] = true;
                for &w in ins {
                    live[w as usize] = true;
                }
            }
        }
        // Inputs get the first wires in declaration order; kept gates the
        // next ones in order.
        let mut renumber: Vec<WireId> = vec![0; self.next as usize];
        let mut next: WireId = 0;
        for (spec, first) in &self.inputs {
            for w in *first..*first + spec.wires {
                renumber[w as usize] = next;
                next += 1;
            }
        }
        let mut gates = Vec::with_capacity(self.gates.len());
        for ((op, ins, outs), kept) in std::mem::take(&mut self.gates).into_iter().zip(keep) {
            if !kept {
                continue;
            }
            let ins: Vec<WireId> = ins.iter().map(|&w| renumber[w as usize]).collect();
            let outs: Vec<WireId> = outs
                .iter()
                .map(|&w| {
                    renumber[w as usize] = next;
                    next += 1;
                    next - 1
                })
                .collect();
            gates.push((op, ins, outs));
        }
        let mut copied = Vec::with_capacity(outputs.len());
        for (spec, wires) in outputs {
            let new: Vec<WireId> = wires
                .iter()
                .map(|&w| {
                    gates.push((Op::Copy, vec![renumber[w as usize]], vec![next]));
                    next += 1;
                    next - 1
                })
                .collect();
            copied.push((spec, new));
        }
        let inputs = self.inputs.into_iter().map(|(spec, _)| spec).collect();
        let mut asm = CircuitAssembler::new(u64::from(next), self.ring, inputs)
            .expect("the builder's inputs fit its wires");
        asm.reserve(gates.len());
        for (op, ins, outs) in &gates {
            if let Err(e) = asm.push(*op, ins, outs) {
                panic!("the builder made an invalid {} gate: {e}", op.name());
            }
        }
        asm.finish(copied)
            .unwrap_or_else(|e| panic!("the builder made an invalid circuit: {e}"))
    }

    /// Domain of a value for callers mixing domains.
    pub fn ring(&self) -> Option<RingWidth> {
        self.ring
    }
}

/// The ring element of the fixed-point number `x` with `f` fractional bits:
/// x·2^f rounded to the nearest integer, two's complement mod 2^k (values
/// outside the ring's signed range wrap; beyond i64 they saturate first).
pub fn to_fixed(x: f64, f: u8, ring: RingWidth) -> u64 {
    ring.reduce((x * 2f64.powi(i32::from(f))).round() as i64 as u64)
}

/// The number the ring element `v` stands for with `f` fractional bits.
pub fn from_fixed(v: u64, f: u8, ring: RingWidth) -> f64 {
    ring.signed(v) as f64 / 2f64.powi(i32::from(f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Stats;

    #[test]
    fn gates_of_constants_fold_into_constants() {
        let ring = RingWidth::W16;
        let mut b = Builder::arithmetic(ring, 2);
        let x = b.ring_input("x", 1)[0];
        let (three, five) = (
            b.ring_op(Op::ConstRing(3), &[]),
            b.ring_op(Op::ConstRing(5), &[]),
        );
        // Public comparisons, sums and selections cost nothing ...
        let below = b.lt(three, five);
        let sum = b.ring_op(Op::Add, &[three, five]);
        let picked = b.bits_times(&[below], sum);
        // ... and a secret operand keeps its gate.
        let secret = b.lt(x, five);
        b.ring_output("picked", vec![picked]);
        b.output("secret", vec![secret]);
        let c = b.finish();
        let a = Stats::of(&c).arithmetic.expect("ring stats");
        assert_eq!((a.ltz, a.b2a, a.add), (1, 0, 0));
        let out = crate::PlainEvaluator::new(&c)
            .evaluate_hex(&["0001"])
            .expect("evaluates");
        assert_eq!(out, vec!["0008".to_string(), "1".to_string()]);
    }

    #[test]
    fn inputs_declared_after_gates_take_the_first_wires() {
        let mut b = Builder::boolean(2);
        let x = b.input("x", 1)[0];
        let nx = b.not(x);
        let y = b.input("y", 2);
        let both = b.and(nx, y[1]);
        b.output("z", vec![both]);
        let c = b.finish();
        let firsts: Vec<WireId> = c.inputs().iter().map(|v| v.first_wire).collect();
        assert_eq!(firsts, vec![0, 1]);
        let out = crate::PlainEvaluator::new(&c)
            .evaluate_hex(&["0", "2"])
            .expect("evaluates");
        assert_eq!(out, vec!["1".to_string()]);
    }
}
