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
//! Conversions ([`Sharing::split`]): v = x_{i-1} − a_i holds at every party
//! i; with i = 0 the terms are t0 = x_2 (party 2's component 0) and
//! t1 = −a_0 (party 0's component 1), each input in the target domain by
//! its one holder (one round, four elements per target word).

use super::arith::Arith;
use super::convert::SplitJob;
use super::program::{Layer, Program};
use super::{agree_key, draw, learns, Channel, ConstantRule, InputValues, Shares, Sharing};
use crate::ttp::RunError;
use huddle_core::Prg;
use huddle_net::PartyId;

pub struct Replicated {
    me: PartyId,
    next: Option<Prg>,
    prev: Option<Prg>,
}

impl Replicated {
    pub fn new(me: PartyId) -> Self {
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
}

impl Sharing for Replicated {
    fn name(&self) -> &'static str {
        "replicated"
    }

    fn parties(&self) -> usize {
        3
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
                let v = inputs.own[idx].as_ref().expect("the owner has its values");
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
    fn multiply<R: Arith>(
        &mut self,
        ch: &mut Channel,
        program: &Program,
        layer: &Layer,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let (prev, next) = self.neighbours();
        let w = s.w;
        let n = layer.gates.len() * w;
        let (k_prev, k_next) = self.keys();
        // alpha_i = F(K_{i-1,i}) - F(K_{i,i+1}): a zero-sharing.
        let mut r = ch.draw(k_prev, n);
        let from_next = ch.draw(k_next, n);
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
        ch.send(next, &r)?;
        let theirs = ch.recv(prev, n)?;
        for (gi, g) in layer.gates.iter().enumerate() {
            let (mine, rp) = (&r[gi * w..(gi + 1) * w], &theirs[gi * w..(gi + 1) * w]);
            s.write(g.out, |j| {
                let (p, m) = (rp[j], mine[j]);
                (R::sub(p, m), R::sub(R::neg(R::add(p, p)), m))
            });
        }
        for v in [r, from_next, theirs] {
            ch.recycle(v);
        }
        Ok(())
    }

    fn converts(&self) -> bool {
        true
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
        let t0 = (me == 2).then(|| job.relayout(&job.gather(src, 0)));
        let t1 = (me == 0).then(|| {
            let minus_a: Vec<u64> = job.gather(src, 1).iter().map(|&a| F::neg(a)).collect();
            job.relayout(&minus_a)
        });
        let slots = [job.terms[0].to_vec(), job.terms[1].to_vec()];
        let terms = InputValues {
            owners: vec![2, 0],
            slots: &slots,
            own: vec![t0, t1],
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
