//! Replicated three-party computation (Araki et al.), semi-honest, following
//! `shared/specs/replicated-3pc.md` in its "Araki form": v is shared with
//! x_0 + x_1 + x_2 = 0 and party i holding (x_i, a_i = x_{i-1} - v) as
//! components (0, 1). Both domains (Boolean: + and - are XOR).
//!
//! Correlated randomness: party i keeps the key K_{i,i+1} it chose ("next")
//! and K_{i-1,i} it received ("prev"), each an AES-CTR stream that both holders
//! draw from in the same order (input values in order, then layers in order).
//!
//! Rounds: one for inputs, one per multiplication layer (one element per party
//! per gate, P_i -> P_{i+1}), one for outputs. No preprocessing; no native
//! multi-fan-in multiplication.
//!
//! **Multiplication fused with truncation by f** (`--truncation
//! probabilistic`; ABY3's idea, derived for this sharing): after the local
//! step every party i holds an additive share r_i of the product z. For a
//! truncating gate P0 sends P2 r0 + e (e from K01, which P2 lacks) instead
//! of sending P1 r0, P1 sends P2 its r1 as for any gate, and P2 learns
//! u = z + e, computes c = u^t (`Arith::shift_masked`) and sends P1
//! c + p (p from K20, which P1 lacks). With d = e^t the value c − d, which
//! is z^t or one more (as in the other protocols), is held in replicated
//! shares s0 = −p (P2, P0), s1 = −d (P0, P1), s2 = c + p (P1, P2), in the
//! Araki form (s_i − s_{i+1}, −2 s_i − s_{i+1}) at party i. The same three
//! elements as a plain product, one round more per truncating layer. P2
//! sees r1 masked by P1's part of alpha and r0 + e under e; P1 sees c + p
//! under p; P0 receives nothing for the gate.
//!
//! Conversions ([`Sharing::split`]): v = x_{i-1} − a_i holds at every party
//! i; with i = 0 the terms are t0 = x_2 (party 2's component 0) and
//! t1 = −a_0 (party 0's component 1), each input in the target domain by
//! its one holder (one round, four elements per target word).

use super::arith::Arith;
use super::convert::SplitJob;
use super::program::{Layer, Program};
use super::{agree_key, draw, Channel, ConstantRule, InputValues, Shares, Sharing};
use crate::descriptor::{Descriptor, Family, PartyRule, Security};
use crate::error::RunError;
use crate::inputs::learns;
use huddle_core::Prg;
use huddle_net::PartyId;

mod cost;

/// Replicated 3PC's row of the protocol table.
pub(crate) const DESCRIPTOR: Descriptor = Descriptor {
    name: "replicated",
    summary: "Replicated 3PC (Araki et al.), 1 element per party per multiplication",
    parties: PartyRule::Exactly(3),
    max_fan_in: Some(2),
    separate_preprocessing: false,
    preprocessing: false,
    security: Security::SemiHonest,
    rings: true,
    conversions: true,
    fused_truncation: true,
    family: Family::Sharing,
    messages: &[],
    dealer: None,
};

pub(crate) struct Replicated {
    me: PartyId,
    next: Option<Prg>,
    prev: Option<Prg>,
}

impl Replicated {
    pub(crate) fn new(me: PartyId) -> Self {
        Replicated {
            me,
            next: None,
            prev: None,
        }
    }

    fn keys(&mut self) -> (&mut Prg, &mut Prg) {
        match (&mut self.prev, &mut self.next) {
            (Some(p), Some(n)) => (p, n),
            _ => unreachable!("setup runs first"),
        }
    }

    fn neighbours(&self) -> (PartyId, PartyId) {
        ((self.me + 2) % 3, (self.me + 1) % 3)
    }

    /// A layer with truncating gates, from each party's additive share `r`
    /// of every product (see the module documentation): plain gates are
    /// reshared as usual; a truncating gate's u = z + e goes to P2 (P0
    /// sends r0 + e, P1 its r1 as for a plain gate), P2 sends P1 c + p with
    /// c = u^t, and the output is c - e^t. `draws`: alpha's second draw, e
    /// (at P0, P1) and p (at P0, P2).
    #[inline(always)]
    fn multiply_truncating<R: Arith>(
        &mut self,
        ch: &mut Channel,
        program: &Program,
        layer: &Layer,
        s: &mut Shares,
        r: Vec<u64>,
        draws: [Vec<u64>; 3],
    ) -> Result<(), RunError> {
        let me = self.me;
        let w = s.w;
        let mask = program.ring.map_or(u64::MAX, |k| k.mask());
        let [from_next, e, p] = draws;
        // The words of the plain gates, then of the truncating ones.
        let words = |trunc: bool| -> Vec<usize> {
            let gates = layer.gates.iter().enumerate();
            gates
                .filter(|(_, g)| (g.trunc > 0) == trunc)
                .flat_map(|(gi, _)| gi * w..(gi + 1) * w)
                .collect()
        };
        let (plain, trunc) = (words(false), words(true));
        let pick = |v: &[u64], at: &[usize]| -> Vec<u64> { at.iter().map(|&k| v[k]).collect() };
        let mut received = vec![0u64; r.len()]; // from prev, plain gates
        let mut c_plus_p = Vec::new(); // at P1 and P2, truncating gates
        match me {
            0 => {
                ch.send(1, &pick(&r, &plain))?;
                let masked: Vec<u64> = trunc.iter().map(|&k| R::add(r[k], e[k])).collect();
                ch.send(2, &masked)?;
                let theirs = ch.recv(2, plain.len())?;
                for (i, &k) in plain.iter().enumerate() {
                    received[k] = theirs[i];
                }
            }
            1 => {
                ch.send(2, &r)?;
                let theirs = ch.recv(0, plain.len())?;
                for (i, &k) in plain.iter().enumerate() {
                    received[k] = theirs[i];
                }
                c_plus_p = ch.recv(2, trunc.len())?.into_vec();
            }
            _ => {
                ch.send(0, &pick(&r, &plain))?;
                let r1 = ch.recv(1, r.len())?;
                let r0e = ch.recv(0, trunc.len())?;
                for &k in &plain {
                    received[k] = r1[k];
                }
                // c = (r0 + e + r1 + r2)^t; P1 gets c + p.
                let mut t = 0;
                for (gi, g) in layer.gates.iter().enumerate() {
                    if g.trunc == 0 {
                        continue;
                    }
                    for k in gi * w..(gi + 1) * w {
                        let u = R::add(R::add(r0e[t], r1[k]), r[k]);
                        c_plus_p.push(R::add(R::shift_masked(u, mask, g.trunc), p[k]));
                        t += 1;
                    }
                }
                ch.send(1, &c_plus_p)?;
            }
        }
        // Outputs. Plain gates as in `multiply`. A truncating gate's value
        // c - d (d = e^t) in replicated shares s0 = -p (P2, P0), s1 = -d
        // (P0, P1), s2 = c + p (P1, P2), each party i's in the Araki form
        // (s_i - s_{i+1}, -2 s_i - s_{i+1}).
        let mut t = 0;
        for (gi, g) in layer.gates.iter().enumerate() {
            let base = gi * w;
            if g.trunc == 0 {
                let (mine, rp) = (&r[base..base + w], &received[base..base + w]);
                s.write(g.out, |j| reshared::<R>(rp[j], mine[j]));
                continue;
            }
            let f = g.trunc;
            let at = t;
            t += w;
            let araki =
                |si: u64, snext: u64| (R::sub(si, snext), R::sub(R::neg(R::add(si, si)), snext));
            match me {
                0 => s.write(g.out, |j| {
                    let d = R::shift_masked(e[base + j], mask, f);
                    araki(R::neg(p[base + j]), R::neg(d))
                }),
                1 => s.write(g.out, |j| {
                    let d = R::shift_masked(e[base + j], mask, f);
                    araki(R::neg(d), c_plus_p[at + j])
                }),
                _ => s.write(g.out, |j| araki(c_plus_p[at + j], R::neg(p[base + j]))),
            }
        }
        for v in [r, from_next, e, p, received, c_plus_p] {
            ch.recycle(v);
        }
        Ok(())
    }
}

/// Party i's new components from r_{i-1} (received) and its own r_i.
#[inline(always)]
fn reshared<R: Arith>(prev: u64, mine: u64) -> (u64, u64) {
    (R::sub(prev, mine), R::sub(R::neg(R::add(prev, prev)), mine))
}

impl Sharing for Replicated {
    fn descriptor(&self) -> &'static Descriptor {
        &DESCRIPTOR
    }

    /// Every party receives in every plain multiplication layer, so none gets
    /// more than a step ahead; but P0 receives nothing for a truncating
    /// layer, nor a conversion term's holder for its term.
    fn may_run_ahead(&self, program: &Program) -> bool {
        !program.conversions.is_empty()
            || program
                .layers
                .iter()
                .any(|l| l.gates.iter().any(|g| g.trunc > 0))
    }

    /// a_i = x_{i-1} - v, so v + c has a_i - c.
    fn constant_rule(&self) -> ConstantRule {
        ConstantRule::Sub(1)
    }

    fn setup(&mut self, ch: &mut Channel) -> Result<(), RunError> {
        let (prev, next) = self.neighbours();
        // P_i chooses K_{i,i+1}; sends first, then receives, so nobody waits on a cycle.
        self.next = Some(agree_key(ch, next, true)?);
        self.prev = Some(agree_key(ch, prev, false)?);
        Ok(())
    }

    fn share_inputs<R: Arith>(
        &mut self,
        ch: &mut Channel,
        inputs: &InputValues,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let me = self.me;
        let (prev, next) = self.neighbours();
        let w = s.w;
        let (k_prev, k_next) = self.keys();
        let (mut to_prev, mut to_next) = (Vec::new(), Vec::new());
        for (idx, slots) in inputs.slots.iter().enumerate() {
            let dealer = inputs.owners[idx];
            let n = slots.len() * w;
            if dealer == me {
                let v = inputs.own[idx]
                    .as_deref()
                    .expect("the owner has its values");
                let x_prev = draw(k_prev, n); // x_{d-1}, from K_{d-1,d}
                let x_next = draw(k_next, n); // x_{d+1}, from K_{d,d+1}
                for (j, &slot) in slots.iter().enumerate() {
                    let r = j * w..(j + 1) * w;
                    let (xp, xn, v) = (&x_prev[r.clone()], &x_next[r.clone()], &v[r]);
                    let x_me: Vec<u64> = xp
                        .iter()
                        .zip(xn)
                        .map(|(&p, &n)| R::neg(R::add(p, n)))
                        .collect();
                    let a_me: Vec<u64> = xp.iter().zip(v).map(|(&p, &v)| R::sub(p, v)).collect();
                    to_prev.extend(xn.iter().zip(v).map(|(&n, &v)| R::sub(n, v)));
                    to_next.extend(x_me.iter().zip(v).map(|(&x, &v)| R::sub(x, v)));
                    s.set(0, slot, &x_me);
                    s.set(1, slot, &a_me);
                }
            } else {
                // P_{d-1} holds K_{d-1,d} as "next"; P_{d+1} holds K_{d,d+1} as "prev".
                let from_prev = dealer == prev;
                let x = draw(
                    if from_prev {
                        &mut *k_prev
                    } else {
                        &mut *k_next
                    },
                    n,
                );
                s.set_slots(0, slots, &x);
            }
        }
        ch.send(prev, &to_prev)?;
        ch.send(next, &to_next)?;
        for from in [prev, next] {
            inputs.receive(ch, from, 1, s)?;
        }
        Ok(())
    }

    /// r_i = 3^-1 (a_i b_i - x_i y_i + alpha_i) to P_{i+1}; with r_{i-1}
    /// received, the product share is (r_{i-1} - r_i, -2 r_{i-1} - r_i).
    #[inline(always)]
    fn multiply<R: Arith>(
        &mut self,
        ch: &mut Channel,
        program: &Program,
        layer: &Layer,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let me = self.me;
        let (prev, next) = self.neighbours();
        let w = s.w;
        let n = layer.gates.len() * w;
        let truncates = layer.gates.iter().any(|g| g.trunc > 0);
        let (k_prev, k_next) = self.keys();
        // alpha_i = F(K_{i-1,i}) - F(K_{i,i+1}): a zero-sharing.
        let mut r = ch.draw(k_prev, n);
        let from_next = ch.draw(k_next, n);
        // A truncating layer also draws e from K01 and p from K20 (see the
        // module documentation), after alpha.
        let (e, p) = if truncates {
            match me {
                0 => (ch.draw(k_next, n), ch.draw(k_prev, n)),
                1 => (ch.draw(k_prev, n), Vec::new()),
                _ => (Vec::new(), ch.draw(k_next, n)),
            }
        } else {
            (Vec::new(), Vec::new())
        };
        // A dot product sums the local terms of its pairs before resharing.
        for (gi, g) in layer.gates.iter().enumerate() {
            let out = &mut r[gi * w..(gi + 1) * w];
            let fnext = &from_next[gi * w..(gi + 1) * w];
            for j in 0..w {
                out[j] = R::sub(out[j], fnext[j]); // alpha
            }
            for (u, v) in program.pairs(g) {
                let (x, y) = (s.get(0, u), s.get(0, v));
                let (a, b) = (s.get(1, u), s.get(1, v));
                for j in 0..w {
                    let local = R::sub(R::mul(a[j], b[j]), R::mul(x[j], y[j]));
                    out[j] = R::add(out[j], local);
                }
            }
            for o in out.iter_mut() {
                *o = R::mul(R::INV3, *o);
            }
        }
        if truncates {
            return self.multiply_truncating::<R>(ch, program, layer, s, r, [from_next, e, p]);
        }
        ch.send(next, &r)?;
        let theirs = ch.recv(prev, n)?;
        for (gi, g) in layer.gates.iter().enumerate() {
            let (mine, rp) = (&r[gi * w..(gi + 1) * w], &theirs[gi * w..(gi + 1) * w]);
            s.write(g.out, |j| reshared::<R>(rp[j], mine[j]));
        }
        ch.recycle(r);
        ch.recycle(from_next);
        ch.recycle(theirs);
        Ok(())
    }

    fn native_dot(&self) -> bool {
        true
    }

    fn split<F: Arith, T: Arith>(
        &mut self,
        ch: &mut Channel,
        job: &SplitJob,
        src: &Shares,
        dst: &mut Shares,
    ) -> Result<(), RunError> {
        let me = self.me;
        // t0 = x_2 at P2, t1 = -a_0 at P0, in the target layout.
        // Term t from component t of the holder.
        let term = |ch: &mut Channel, t: usize, f: fn(u64) -> u64| {
            job.term(ch, t, |slot, out| {
                for (o, &x) in out.iter_mut().zip(src.get(t, slot)) {
                    *o = f(x);
                }
            })
        };
        let t0 = (me == 2).then(|| term(ch, 0, |x| x));
        let t1 = (me == 0).then(|| term(ch, 1, F::neg));
        let slots = [job.terms[0].to_vec(), job.terms[1].to_vec()];
        let terms = InputValues {
            owners: vec![2, 0],
            slots: &slots,
            own: vec![t0.map(Into::into), t1.map(Into::into)],
            reveal_to: None,
        };
        self.share_inputs::<T>(ch, &terms, dst)
    }

    /// P_i sends x_i to P_{i+1}; P_i outputs x_{i-1} - a_i. To one party
    /// P_j only P_{j-1} sends.
    fn reveal<R: Arith>(
        &mut self,
        ch: &mut Channel,
        slots: &[u32],
        s: &Shares,
        to: Option<PartyId>,
    ) -> Result<Option<Vec<u64>>, RunError> {
        let (prev, next) = self.neighbours();
        let w = s.w;
        if learns(next, to) {
            ch.send(next, &s.concat(0, slots))?;
        }
        if !learns(self.me, to) {
            return Ok(None);
        }
        let theirs = ch.recv(prev, slots.len() * w)?;
        Ok(Some(
            slots
                .iter()
                .enumerate()
                .flat_map(|(k, &sl)| {
                    let t = &theirs[k * w..(k + 1) * w];
                    t.iter()
                        .zip(s.get(1, sl))
                        .map(|(&x, &a)| R::sub(x, a))
                        .collect::<Vec<_>>()
                })
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sharing::program::Target;
    use huddle_circuit::builder::Builder;
    use huddle_circuit::Op;
    use huddle_core::RingWidth;
    use std::borrow::Cow;

    fn compiled(circuit: &huddle_circuit::Circuit, fused_truncation: bool) -> Program {
        Program::compile(
            Cow::Borrowed(circuit),
            Target {
                name: "replicated",
                max_fan_in: 2,
                conversion_fan_in: 2,
                converts: true,
                native_dot: true,
                fused_truncation,
            },
        )
        .expect("compiles")
    }

    /// Slices are sized without messages sent ahead only where no party can
    /// get more than a step ahead: plain products, not truncating ones.
    #[test]
    fn only_truncating_layers_or_conversions_let_a_party_run_ahead() {
        let mut b = Builder::arithmetic(RingWidth::W32, 2);
        let x = b.ring_input("x", 2);
        let mut v = x[0];
        for _ in 0..8 {
            v = b.ring_op(Op::Mul, &[v, x[1]]);
        }
        b.ring_output("v", vec![v]);
        let plain = b.finish();
        let mut b = Builder::arithmetic(RingWidth::W32, 2);
        let x = b.ring_input("x", 2);
        let mut v = x[0];
        for _ in 0..8 {
            v = b.fixed_mul(v, x[1], 8);
        }
        b.ring_output("v", vec![v]);
        let truncating = b.finish();
        let mut b = Builder::boolean(2);
        let x = b.input("x", 2);
        let a = b.and(x[0], x[1]);
        b.output("a", vec![a]);
        let boolean = b.finish();
        let p = Replicated::new(0);
        assert!(!p.may_run_ahead(&compiled(&plain, true)));
        assert!(!p.may_run_ahead(&compiled(&boolean, true)));
        assert!(p.may_run_ahead(&compiled(&truncating, true)));
    }
}
