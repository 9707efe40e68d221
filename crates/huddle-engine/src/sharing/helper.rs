//! The common frame of huddle's three "helper" protocols (ASTRA, Trio and
//! MFI-3PC): party 0 is a helper that only ever holds masks, parties 1 and 2
//! evaluate. For a secret v every protocol here keeps
//!
//! | party | component 0 | component 1 |
//! |---|---|---|
//! | P0 | mu1 | mu2 |
//! | P1 | v + masks S_1 | mu1 |
//! | P2 | v + masks S_2 | mu2 |
//!
//! where mu1 is known to P0 and P1 (key K01), mu2 to P0 and P2 (key K02), and
//! S_i is the set of masks in P_i's masked value: {mu1, mu2} for both in ASTRA
//! (m = v + lambda_1 + lambda_2), {mu2} at P1 and {mu1} at P2 in Trio and MFI-3PC
//! (the two papers' sharings are the same one under different names). So
//! linear gates, input sharing and reveal are written once here; each
//! protocol brings its multiplication ([`Variant::multiply`]).
//!
//! Inputs (one element per wire, two for the helper's own): the dealer's
//! masks are drawn from the key(s) it holds, the others are 0. Reveal: P0
//! sends P1 mu2 and P2 mu1 (input-independent), P2 sends P0 its masked value.
//!
//! With [`Preprocess::Separate`] the helper runs its whole part (input masks,
//! every layer, output masks) before anybody's inputs, and P1 and P2 receive
//! everything it sends before they start the online phase.
//!
//! **Conversions** ([`Sharing::split`]): v = M − λ with M = v + mu1 + mu2,
//! which P1 and P2 both know (from their two components: each one's masked
//! value holds the other's mask, [`Variant::VALUE_MASKS`]), and λ = mu1 + mu2
//! (mu1 ⊕ mu2 for bits), which P0 knows. So t0 = M is shared in the target
//! domain for free, (0, 0) at P0 and (M, 0) at P1 and P2 (a sharing with
//! zero masks), and t1 = −λ by P0 like one of its inputs: masks from K01
//! and K02, the masked values to P1 and P2 (two elements per target word,
//! input-independent, so phase `offline`, and ahead of everything with
//! `--preprocess separate`). Then the engine's adder (A2B, LTZ) or
//! t0 + t1 − 2·t0·t1 (B2A) runs as ordinary gates.

use super::arith::Arith;
use super::arith::Bits;
use super::convert::SplitJob;
use super::cost::Dry;
use super::program::{Layer, MulGate, Program, Step};
use super::{
    agree_key, draw, evaluate, Arenas, Channel, ConstantRule, InputValues, Shares, Sharing,
};
use crate::descriptor::Descriptor;
use crate::error::RunError;
use crate::inputs::learns;
use crate::options::Preprocess;
use huddle_circuit::Domain;
use huddle_core::Prg;
use huddle_net::{PartyId, Phase};
use std::collections::VecDeque;
use std::marker::PhantomData;

mod cost;

pub(crate) const HELPER: PartyId = 0;

/// What distinguishes one helper protocol from another.
pub(crate) trait Variant {
    /// The protocol's row of the protocol table (its name, fan-in, fused
    /// truncation; its `preprocessing` says whether multiplications need a
    /// message P0 -> P2 ahead of the online round).
    const DESCRIPTOR: &'static Descriptor;
    /// Whether P1's (index 0) and P2's (index 1) masked values contain [mu1, mu2].
    /// Each one's value holds the other's mask, so both can compute
    /// v + mu1 + mu2 (conversions rely on it; checked at compile time).
    const VALUE_MASKS: [[bool; 2]; 2];
    /// Whether `multiply` takes dot products (`MulGate::dot`).
    const NATIVE_DOT: bool;
    fn multiply<R: Arith>(
        core: &mut Core,
        ch: &mut Channel,
        program: &Program,
        layer: &Layer,
        s: &mut Shares,
    ) -> Result<(), RunError>;
    /// The messages of [`multiply`](Self::multiply): one layer of `w` words
    /// per slot (see [`SharingCost`](crate::sharing::cost::SharingCost)).
    fn multiply_cost(core: &mut Core, ch: &mut Dry, layer: &Layer, w: usize);
    /// Units of gate work of one gate ([`SharingCost::gate_work`]).
    fn gate_work(gate: &MulGate) -> usize {
        crate::sharing::cost::two_input_products(gate)
    }
}

/// (mu1, mu2) of one input value.
type Masks = (Vec<u64>, Vec<u64>);

/// Keys and bookkeeping shared by all helper protocols.
pub(crate) struct Core {
    pub me: PartyId,
    k01: Option<Prg>,
    k02: Option<Prg>,
    pub preprocess: Preprocess,
    /// At P1/P2 in separate mode: the helper's messages to this party
    /// (layers, conversions), in order.
    offline: VecDeque<super::wire::Words>,
    /// At P1/P2 in separate mode: the output masks received ahead, by domain.
    output_masks: [Option<super::wire::Words>; 2],
    /// At P0: (mu1, mu2) of the input values it owns, by domain and input
    /// index within the domain.
    own_masks: [Vec<Option<Masks>>; 2],
    /// At P0 in separate mode: the whole evaluation is done.
    ran_ahead: bool,
}

impl Core {
    /// The K01 stream (P0 and P1).
    pub(crate) fn k01(&mut self) -> &mut Prg {
        self.k01
            .as_mut()
            .expect("setup runs first and P0/P1 hold K01")
    }

    /// The K02 stream (P0 and P2).
    pub(crate) fn k02(&mut self) -> &mut Prg {
        self.k02
            .as_mut()
            .expect("setup runs first and P0/P2 hold K02")
    }

    /// At P0: sends a preprocessing message (counted as offline traffic).
    #[inline(always)]
    pub(crate) fn send_offline(
        &mut self,
        ch: &mut Channel,
        to: PartyId,
        words: &[u64],
    ) -> Result<(), RunError> {
        ch.send_in(Phase::Offline, to, words)
    }

    /// [`send_offline`](Self::send_offline) of a message given up to the
    /// transport (see [`Channel::send_message`]).
    #[inline(always)]
    pub(crate) fn send_offline_message(
        &mut self,
        ch: &mut Channel,
        to: PartyId,
        m: super::wire::Words,
    ) -> Result<(), RunError> {
        ch.in_phase(Phase::Offline, |ch| ch.send_message(to, m))
    }

    /// At P1/P2: the next preprocessing message from P0 of `count` words,
    /// received ahead in separate mode or now.
    #[inline(always)]
    pub(crate) fn recv_offline(
        &mut self,
        ch: &mut Channel,
        count: usize,
    ) -> Result<super::wire::Words, RunError> {
        match self.offline.pop_front() {
            Some(m) => Ok(m),
            None => ch.recv(HELPER, count),
        }
    }
}

/// A helper protocol.
pub(crate) struct Helper<V: Variant> {
    core: Core,
    _variant: PhantomData<V>,
}

impl<V: Variant> Helper<V> {
    pub(crate) fn new(me: PartyId, preprocess: Preprocess) -> Self {
        Helper {
            core: Core {
                me,
                k01: None,
                k02: None,
                preprocess,
                offline: VecDeque::new(),
                output_masks: [None, None],
                own_masks: [Vec::new(), Vec::new()],
                ran_ahead: false,
            },
            _variant: PhantomData,
        }
    }

    /// Step (a) of input sharing: draw every input wire's masks. The dealer's
    /// masks come from the keys it shares with P0; masks of a key the dealer
    /// does not hold are 0.
    fn draw_input_masks<R: Arith>(&mut self, inputs: &InputValues, s: &mut Shares) {
        let me = self.core.me;
        let w = s.w;
        let domain = R::DOMAIN as usize;
        self.core.own_masks[domain] = vec![None; inputs.slots.len()];
        for (idx, slots) in inputs.slots.iter().enumerate() {
            let dealer = inputs.owners[idx];
            let n = slots.len() * w;
            let mu1 = if dealer != 2 && me != 2 {
                draw(self.core.k01(), n)
            } else {
                vec![0; n]
            };
            let mu2 = if dealer != 1 && me != 1 {
                draw(self.core.k02(), n)
            } else {
                vec![0; n]
            };
            for (j, &slot) in slots.iter().enumerate() {
                let r = j * w..(j + 1) * w;
                match me {
                    HELPER => {
                        s.set(0, slot, &mu1[r.clone()]);
                        s.set(1, slot, &mu2[r]);
                    }
                    1 => s.set(1, slot, &mu1[r]),
                    _ => s.set(1, slot, &mu2[r]),
                }
            }
            if me == HELPER && dealer == HELPER {
                self.core.own_masks[domain][idx] = Some((mu1, mu2));
            }
        }
    }

    /// The masked value P_{1+i} holds for clear words `v` with masks mu1, mu2.
    fn masked<R: Arith>(i: usize, v: &[u64], mu1: &[u64], mu2: &[u64]) -> Vec<u64> {
        let [m1, m2] = V::VALUE_MASKS[i];
        v.iter()
            .zip(mu1.iter().zip(mu2))
            .map(|(&v, (&a, &b))| {
                let v = if m1 { R::add(v, a) } else { v };
                if m2 {
                    R::add(v, b)
                } else {
                    v
                }
            })
            .collect()
    }

    /// Clear words from a masked value of P_{1+i} and both masks.
    fn unmask<R: Arith>(i: usize, value: &[u64], mu1: &[u64], mu2: &[u64]) -> Vec<u64> {
        let [m1, m2] = V::VALUE_MASKS[i];
        value
            .iter()
            .zip(mu1.iter().zip(mu2))
            .map(|(&v, (&a, &b))| {
                let v = if m1 { R::sub(v, a) } else { v };
                if m2 {
                    R::sub(v, b)
                } else {
                    v
                }
            })
            .collect()
    }

    /// At P1/P2 in separate mode: everything the helper sends this party
    /// while it evaluates `program` (`w` words per slot by domain), in its
    /// order: P2 the layer messages (protocols with preprocessing), both the
    /// masked terms of every conversion, then those of its recombining
    /// program's layers.
    fn receive_ahead(
        &mut self,
        ch: &mut Channel,
        program: &Program,
        instances: usize,
    ) -> Result<(), RunError> {
        let me = self.core.me;
        let w = [
            program.words(Domain::Bit, instances),
            program.words(Domain::Ring, instances),
        ];
        for step in &program.steps {
            match step {
                Step::Layer(i) if me == 2 && V::DESCRIPTOR.preprocessing => {
                    let layer = &program.layers[*i];
                    ch.set_encoding(program.encoding(layer.domain, instances));
                    let m = ch.recv(HELPER, layer.gates.len() * w[layer.domain as usize])?;
                    self.core.offline.push_back(m);
                }
                Step::Convert(i) => {
                    let conversion = &program.conversions[*i];
                    let sub = program.recombining(conversion.kind);
                    let to = conversion.kind.target();
                    let side = super::convert::side_instances(conversion.gates(), instances);
                    ch.set_encoding(program.encoding(to, side));
                    let m = ch.recv(HELPER, sub.inputs[1].1.len() * sub.words(to, side))?;
                    self.core.offline.push_back(m);
                    self.receive_ahead(ch, sub, side)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// P0's output masks for P1 (mu2) and P2 (mu1).
    fn send_output_masks(
        &mut self,
        ch: &mut Channel,
        slots: &[u32],
        s: &Shares,
        to: Option<PartyId>,
    ) -> Result<(), RunError> {
        let gather = |c: usize| s.concat(c, slots);
        if learns(1, to) {
            ch.send(1, &gather(1))?;
        }
        if learns(2, to) {
            ch.send(2, &gather(0))?;
        }
        Ok(())
    }
}

impl<V: Variant> Sharing for Helper<V> {
    fn descriptor(&self) -> &'static Descriptor {
        V::DESCRIPTOR
    }

    fn constant_rule(&self) -> ConstantRule {
        if self.core.me == HELPER {
            ConstantRule::None
        } else {
            ConstantRule::Add(0)
        }
    }

    fn begin_batch(&mut self) {
        self.core.offline.clear();
        self.core.output_masks = [None, None];
        self.core.own_masks = [Vec::new(), Vec::new()];
        self.core.ran_ahead = false;
    }

    /// P0 chooses K01 and K02.
    fn setup(&mut self, ch: &mut Channel) -> Result<(), RunError> {
        match self.core.me {
            HELPER => {
                self.core.k01 = Some(agree_key(ch, 1, true)?);
                self.core.k02 = Some(agree_key(ch, 2, true)?);
            }
            1 => self.core.k01 = Some(agree_key(ch, HELPER, false)?),
            _ => self.core.k02 = Some(agree_key(ch, HELPER, false)?),
        }
        Ok(())
    }

    fn preprocess(
        &mut self,
        ch: &mut Channel,
        program: &Program,
        inputs: &[InputValues; 2],
        arenas: &mut Arenas,
    ) -> Result<(), RunError> {
        if self.core.preprocess != Preprocess::Separate {
            return Ok(());
        }
        let n = arenas.instances;
        let revealed = [Domain::Bit, Domain::Ring]
            .into_iter()
            .filter(|&d| program.reveals(d));
        match self.core.me {
            HELPER => {
                self.draw_input_masks::<Bits>(&inputs[0], &mut arenas.bits);
                super::with_ring!(program.ring_lanes, R => {
                    self.draw_input_masks::<R>(&inputs[1], &mut arenas.ring)
                });
                evaluate(self, ch, program, arenas, None)?;
                for d in revealed {
                    ch.set_encoding(program.encoding(d, n));
                    let slots = program.output_slots(d);
                    self.send_output_masks(ch, &slots, arenas.domain(d), inputs[0].reveal_to)?;
                }
                self.core.ran_ahead = true;
                Ok(())
            }
            me => {
                let w = [
                    program.words(Domain::Bit, n),
                    program.words(Domain::Ring, n),
                ];
                self.receive_ahead(ch, program, n)?;
                if learns(me, inputs[0].reveal_to) {
                    for d in revealed {
                        ch.set_encoding(program.encoding(d, n));
                        let count = program.output_slots(d).len() * w[d as usize];
                        self.core.output_masks[d as usize] = Some(ch.recv(HELPER, count)?);
                    }
                }
                Ok(())
            }
        }
    }

    fn native_dot(&self) -> bool {
        V::NATIVE_DOT
    }

    fn split<F: Arith, T: Arith>(
        &mut self,
        ch: &mut Channel,
        job: &SplitJob,
        src: &Shares,
        dst: &mut Shares,
    ) -> Result<(), RunError> {
        const {
            assert!(V::VALUE_MASKS[0][1] && V::VALUE_MASKS[1][0]);
        }
        let [t0, t1] = job.terms;
        let n = job.term_words();
        // The term from this party's components, in the target layout.
        let term = |ch: &mut Channel, t: usize, f: fn(u64, u64) -> u64| {
            job.term(ch, t, |slot, out| {
                let (c0, c1) = (src.get(0, slot), src.get(1, slot));
                for ((o, &a), &b) in out.iter_mut().zip(c0).zip(c1) {
                    *o = f(a, b);
                }
            })
        };
        match self.core.me {
            HELPER => {
                let lambda = term(ch, 1, |a, b| F::neg(F::add(a, b)));
                let mu1 = draw(self.core.k01(), n);
                let mu2 = draw(self.core.k02(), n);
                for c in 0..2 {
                    dst.zero_slots(c, t0);
                }
                dst.set_slots(0, t1, &mu1);
                dst.set_slots(1, t1, &mu2);
                for i in 0..2 {
                    let value = Self::masked::<T>(i, &lambda, &mu1, &mu2);
                    self.core.send_offline(ch, i + 1, &value)?;
                }
            }
            me => {
                // P1's own mask mu1 sits in component 1; whether its value
                // already holds it is VALUE_MASKS[0][0] (P2: mu2, [1][1]).
                let own_in_value = V::VALUE_MASKS[me - 1][me - 1];
                let masked = if own_in_value {
                    term(ch, 0, |a, _| a)
                } else {
                    term(ch, 0, F::add)
                };
                dst.set_slots(0, t0, &masked);
                ch.recycle(masked);
                dst.zero_slots(1, t0);
                let key = if me == 1 {
                    self.core.k01()
                } else {
                    self.core.k02()
                };
                let mu = draw(key, n);
                dst.set_slots(1, t1, &mu);
                let value = self.core.recv_offline(ch, n)?;
                dst.set_slots(0, t1, &value);
            }
        }
        Ok(())
    }

    fn evaluates_online(&self) -> bool {
        !self.core.ran_ahead
    }

    fn share_inputs<R: Arith>(
        &mut self,
        ch: &mut Channel,
        inputs: &InputValues,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let me = self.core.me;
        if !self.core.ran_ahead {
            self.draw_input_masks::<R>(inputs, s);
        }
        // Step (b): the dealer sends the masked values the others lack.
        let mut to = [Vec::new(), Vec::new()]; // to P1, to P2
        for (idx, slots) in inputs.slots.iter().enumerate() {
            if inputs.owners[idx] != me {
                continue;
            }
            let v = inputs.own[idx]
                .as_deref()
                .expect("the owner has its values");
            let n = v.len();
            let (mu1, mu2) = match me {
                HELPER => self.core.own_masks[R::DOMAIN as usize][idx]
                    .clone()
                    .expect("drawn for own values"),
                1 => (s.concat(1, slots), vec![0; n]),
                _ => (vec![0; n], s.concat(1, slots)),
            };
            for (i, out) in to.iter_mut().enumerate() {
                let value = Self::masked::<R>(i, v, &mu1, &mu2);
                if me == i + 1 {
                    s.set_slots(0, slots, &value);
                } else {
                    out.extend(value);
                }
            }
        }
        for (i, out) in to.iter().enumerate() {
            ch.send(i + 1, out)?;
        }
        if me != HELPER {
            for from in [HELPER, 3 - me] {
                inputs.receive(ch, from, 0, s)?;
            }
        }
        Ok(())
    }

    #[inline(always)]
    fn multiply<R: Arith>(
        &mut self,
        ch: &mut Channel,
        program: &Program,
        layer: &Layer,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        V::multiply::<R>(&mut self.core, ch, program, layer, s)
    }

    fn reveal<R: Arith>(
        &mut self,
        ch: &mut Channel,
        slots: &[u32],
        s: &Shares,
        to: Option<PartyId>,
    ) -> Result<Option<Vec<u64>>, RunError> {
        let w = s.w;
        let n = slots.len() * w;
        let gather = |c: usize| s.concat(c, slots);
        let me = self.core.me;
        match me {
            HELPER => {
                if !self.core.ran_ahead {
                    self.send_output_masks(ch, slots, s, to)?;
                }
                if !learns(HELPER, to) {
                    return Ok(None);
                }
                let value = ch.recv(2, n)?;
                Ok(Some(Self::unmask::<R>(1, &value, &gather(0), &gather(1))))
            }
            _ => {
                let value = gather(0);
                if me == 2 && learns(HELPER, to) {
                    ch.send(HELPER, &value)?;
                }
                if !learns(me, to) {
                    return Ok(None);
                }
                let other = match self.core.output_masks[R::DOMAIN as usize].take() {
                    Some(m) => m,
                    None => ch.recv(HELPER, n)?,
                };
                let own = gather(1);
                Ok(Some(if me == 1 {
                    Self::unmask::<R>(0, &value, &own, &other)
                } else {
                    Self::unmask::<R>(1, &value, &other, &own)
                }))
            }
        }
    }
}
