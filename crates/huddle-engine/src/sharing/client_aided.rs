//! Client-aided two-party computation (Ohata and Nuida, FC 2020 workshops,
//! Sections 2-3): parties 0 and 1 compute on 2-out-of-2 additive shares
//! (XOR shares of bitsliced words in the Boolean domain); party 2 is the
//! client, a dealer that never sees data: it sends only correlated
//! randomness and receives nothing after the key agreement.
//!
//! **Keys**: K01 (P0 chooses; input sharing), K02 (the dealer chooses; all
//! of P0's dealt shares) and K12 (the dealer chooses; P1's shares of the
//! single masks). So the dealer sends P1 only the corrections of the
//! products, and P0 nothing at all.
//!
//! **Inputs**: r from K01; the owner's share is v − r, the other's r. No
//! messages. The dealer owns no input (round robin deals input values to
//! parties 0 and 1 only; see `Descriptor::dealer`).
//!
//! **l-input multiplication, one round (N-BTE, Section 3.1)**: per gate the
//! dealer draws a_i = a_i⁰ + a_i¹ (a_i⁰ from K02, a_i¹ from K12) for every
//! operand and, for every subset I of at least two operands, a_I⁰ from K02,
//! and sends P1 c_I = ∏_{i∈I} a_i − a_I⁰ (phase `offline`, 2^l − l − 1
//! elements). Online each party k sends the other x_i^k − a_i^k for every
//! operand (l elements; an operand several gates of the layer share has
//! one mask, so it is opened once); both learn d_i = x_i − a_i and set
//!
//!   y^k = [k = 0] ∏ d_i + Σ_{∅ ≠ I} (∏_{i ∉ I} d_i) · a_I^k,
//!
//! with a_{i}^k the single masks and a_I¹ = c_I, so y⁰ + y¹ = ∏ (d_i + a_i).
//! The same for AND over bitsliced words (product = AND, sum = XOR).
//!
//! **Dot products** count each pair as a 2-input product of the layer (one
//! correction each, every operand opened once) summed into one share.
//!
//! **Fixed point** (`DOTTR` with `--truncation probabilistic`;
//! `truncation.rs`): the dealer deals r = r⁰ + r¹ (K02, K12: no message)
//! and shares of t = ⌊r/2^f⌋ (P1's one correction goes with the layer's).
//! After the product's round the party that does not learn the outputs
//! (the opener O; P1 when both do) receives the other's share of
//! c = z + r; the shares of the result are ⌊c/2^f⌋ − t^O at O and −t^L at
//! the other. The result is ⌊z/2^f⌋, or one more with probability
//! (z mod 2^f)/2^f decided by r alone, except that it is off by 2^(k−f)
//! when z + r (z signed, r unsigned) leaves [0, 2^k), with probability
//! |z|/2^k; any f from 1 to k − 1. Per truncated element one element to
//! the opener online and one dealt; one more round per truncating layer.
//!
//! **Conversions** ([`Sharing::split`]): each party's share is a term
//! known to it alone, shared in the target domain for free (the other
//! party's share of it 0): A2B, LTZ, EQZ, B2A and BX2A cost only their
//! recombining circuits, whose products take up to nine inputs here.
//!
//! **Preprocessing**: interleaved, the dealer sends each layer's
//! corrections as the layer is evaluated; with `--preprocess separate` it
//! runs its whole part before the inputs (it never needs data) and P1
//! receives every layer's corrections before the online phase.
//!
//! **Reveal**: P0 and P1 send each other (or the one that learns) their
//! shares. The dealer learns nothing.

use super::arith::{subset_products, Arith};
use super::convert::SplitJob;
use super::program::{Layer, Program, Step};
use super::{agree_key, evaluate, Arenas, Channel, ConstantRule, InputValues, Shares, Sharing};
use crate::descriptor::{Descriptor, Family, PartyRule, Security};
use crate::error::RunError;
use crate::inputs::learns;
use crate::options::Preprocess;
use huddle_circuit::Domain;
use huddle_core::Prg;
use huddle_net::{PartyId, Phase};
use std::collections::{HashMap, VecDeque};

mod cost;
mod truncation;

/// Client-aided 2PC's row of the protocol table.
pub(crate) const DESCRIPTOR: Descriptor = Descriptor {
    name: "ca2pc",
    summary: "client-aided 2PC (Ohata-Nuida): parties 0 and 1 compute, party 2 deals extended Beaver triples; one-round multiplications of up to 9 inputs",
    parties: PartyRule::Exactly(3),
    // The paper's bound (2^9 − 10 = 502 dealt elements per gate and word).
    max_fan_in: Some(9),
    separate_preprocessing: true,
    preprocessing: true,
    security: Security::SemiHonest,
    rings: true,
    conversions: true,
    fused_truncation: true,
    family: Family::Sharing,
    messages: &[],
    dealer: Some(2),
};

/// The client that deals correlated randomness (its row's).
pub(crate) const DEALER: PartyId = match DESCRIPTOR.dealer {
    Some(d) => d,
    None => panic!("ca2pc has a dealer"),
};

/// Batches up to this many instances get conversions of the fewest rounds
/// (see `conversion_fan_in`): at 100 ms RTT and 160 Mbit/s a 64-bit
/// comparison's extra dealt bytes at fan-in 9 (about 19 KB) cost as much
/// as the round it saves at a few hundred instances.
pub(crate) const WIDE_CONVERSIONS_UP_TO: usize = 1024;

/// Widest native multiplication (its row's).
pub(crate) const MAX_FAN_IN: usize = DESCRIPTOR.stated_fan_in();

pub(crate) struct ClientAided {
    me: PartyId,
    k01: Option<Prg>,
    k02: Option<Prg>,
    k12: Option<Prg>,
    preprocess: Preprocess,
    /// At P1 in separate mode: every layer's corrections, in order.
    ahead: VecDeque<super::wire::Words>,
    /// At the dealer in separate mode: its whole part is done.
    ran_ahead: bool,
    /// The computing party that opens the masked products of truncations
    /// (see `truncation.rs`): the one that does not learn the outputs.
    opener: PartyId,
}

impl ClientAided {
    pub(crate) fn new(me: PartyId, preprocess: Preprocess) -> Self {
        ClientAided {
            me,
            k01: None,
            k02: None,
            k12: None,
            preprocess,
            ahead: VecDeque::new(),
            ran_ahead: false,
            opener: truncation::opener(None),
        }
    }
}

impl ClientAided {
    /// At P1 in separate mode: the corrections of every layer the dealer
    /// evaluates for `program` (`w` words per slot by domain), in its
    /// order, the recombining programs of conversions included.
    fn receive_ahead(
        &mut self,
        ch: &mut Channel,
        program: &Program,
        instances: usize,
    ) -> Result<(), RunError> {
        let w = [
            program.words(Domain::Bit, instances),
            program.words(Domain::Ring, instances),
        ];
        for step in &program.steps {
            match step {
                Step::Layer(i) => {
                    let layer = &program.layers[*i];
                    ch.set_encoding(program.encoding(layer.domain, instances));
                    let words = dealt_words(layer, w[layer.domain as usize]);
                    let m = ch.recv(DEALER, words)?;
                    self.ahead.push_back(m);
                }
                Step::Convert(i) => {
                    let conversion = &program.conversions[*i];
                    let side = super::convert::side_instances(conversion.gates(), instances);
                    self.receive_ahead(ch, program.recombining(conversion.kind), side)?;
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// The corrections the dealer sends P1 for `layer`, `w` words per slot
/// (as [`groups`] lays them out: a dot product's pairs one each).
fn dealt_words(layer: &Layer, w: usize) -> usize {
    layer
        .gates
        .iter()
        .map(|g| {
            let products = if g.dot { g.len as usize / 2 } else { 1 };
            let truncation = if g.trunc > 0 { truncation::DEALT } else { 0 };
            (products * dealt_elements(g.fan_in()) + truncation) * w
        })
        .sum()
}

/// The layer's truncated gates: (index in the layer, f).
fn truncated(layer: &Layer) -> Vec<(usize, u8)> {
    layer
        .gates
        .iter()
        .enumerate()
        .filter(|(_, g)| g.trunc > 0)
        .map(|(i, g)| (i, g.trunc))
        .collect()
}

/// k of a program whose layers truncate (ring products).
fn ring_bits(program: &Program) -> Result<u32, RunError> {
    program
        .ring
        .map(|r| r.bits())
        .ok_or_else(|| RunError::Internal("a truncation outside a ring".into()))
}

/// The key a party draws from: `Some` at the parties that hold it.
fn key(k: &mut Option<Prg>) -> &mut Prg {
    k.as_mut()
        .expect("setup runs first and this party holds the key")
}

/// Elements the dealer sends P1 per l-input gate and word.
pub(crate) fn dealt_elements(l: usize) -> usize {
    (1 << l) - l - 1
}

/// One fan-in group of a layer: `l` operands per gate, `gates`.
/// One l-input product of a layer: a gate, or one pair of a dot product
/// (its products are summed into the gate's output).
struct Product {
    ops: [u32; MAX_FAN_IN],
    /// Index of its gate in the layer.
    gate: usize,
}

/// A layer's products of one fan-in.
struct Group {
    l: usize,
    products: Vec<Product>,
}

impl Group {
    /// Words of one per-subset quantity.
    fn subsets(&self, w: usize) -> usize {
        dealt_elements(self.l) * self.products.len() * w
    }
}

/// The products of `layer` grouped by fan-in, ascending (the layer's gates
/// are sorted by fan-in; a dot product's pairs count as 2-input products).
fn groups(program: &Program, layer: &Layer) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (gate, g) in layer.gates.iter().enumerate() {
        let l = g.fan_in();
        if groups.last().is_none_or(|last| last.l != l) {
            groups.push(Group {
                l,
                products: Vec::new(),
            });
        }
        let group = groups.last_mut().expect("pushed above");
        let ops = program.operands(g);
        if g.dot {
            let (a, b) = ops.split_at(ops.len() / 2);
            for (&x, &y) in a.iter().zip(b) {
                let mut pair = [0; MAX_FAN_IN];
                pair[..2].copy_from_slice(&[x, y]);
                group.products.push(Product { ops: pair, gate });
            }
        } else {
            let mut all = [0; MAX_FAN_IN];
            all[..l].copy_from_slice(ops);
            group.products.push(Product { ops: all, gate });
        }
    }
    groups
}

/// The distinct operand slots of a layer's products (`groups`) in order of
/// first use, and per group the index among them of every product's
/// operand i (product gi's at gi·l + i): an operand several products share
/// has one mask and is opened once.
fn distinct_operands(groups: &[Group]) -> (Vec<u32>, Vec<Vec<usize>>) {
    let mut first_use: HashMap<u32, usize> = HashMap::new();
    let mut distinct: Vec<u32> = Vec::new();
    let operand: Vec<Vec<usize>> = groups
        .iter()
        .map(|g| {
            let mut at = Vec::with_capacity(g.products.len() * g.l);
            for product in &g.products {
                for &x in &product.ops[..g.l] {
                    at.push(*first_use.entry(x).or_insert_with(|| {
                        distinct.push(x);
                        distinct.len() - 1
                    }));
                }
            }
            at
        })
        .collect();
    (distinct, operand)
}

/// Per distinct operand of `layer`, the conversion term it is a function of
/// alone, if any: its one holder. Arithmetic blinding (Section 3.3): such an
/// operand is P_t's share, the other party's being 0; its mask is P_t's part
/// alone (the other part 0), so only P_t opens it: x − a from P_t is uniform
/// to the other, and P_t learns nothing it did not know.
fn term_holders(layer: &Layer, distinct: &[u32]) -> Vec<Option<usize>> {
    distinct
        .iter()
        .map(|x| {
            layer
                .of_term
                .binary_search_by_key(x, |&(s, _)| s)
                .ok()
                .map(|i| usize::from(layer.of_term[i].1))
        })
        .collect()
}

impl Sharing for ClientAided {
    fn descriptor(&self) -> &'static Descriptor {
        &DESCRIPTOR
    }

    /// An l-input product costs l elements each way online but 2^l − l − 1
    /// dealt and as many products computed: small batches take the fewest
    /// rounds (Ohata–Nuida's 2-round Equality and Overflow), large ones,
    /// where the dealer's traffic and the work dominate, fan-in 4 (64-bit
    /// comparisons at a batch of 10^6, `huddle bench functions`: see
    /// docs/client-aided.md).
    fn conversion_fan_in(&self, instances: usize) -> usize {
        if instances <= WIDE_CONVERSIONS_UP_TO {
            MAX_FAN_IN
        } else {
            super::program::CONVERSION_FAN_IN
        }
    }

    fn components(&self) -> usize {
        1
    }

    /// A dot product's pairs are products of the layer (one correction
    /// each, every operand opened once), summed into one share.
    fn native_dot(&self) -> bool {
        true
    }

    /// v = x⁰ + x¹ with each term known to its one holder, so each is
    /// shared in the target domain for free: P0 holds (t0) and P1 (t1) as
    /// their shares of the terms, the other's share 0 (Section 3.3's
    /// "trivial sharing"). Then the engine's adder (A2B, LTZ) or
    /// t0 + t1 − 2·t0·t1 (B2A) runs on the dealer's triples.
    fn split<F: Arith, T: Arith>(
        &mut self,
        ch: &mut Channel,
        job: &SplitJob,
        src: &Shares,
        dst: &mut Shares,
    ) -> Result<(), RunError> {
        for (t, slots) in job.terms.iter().enumerate() {
            if self.me == t {
                let own = job.term(ch, t, |slot, out| {
                    for (o, &x) in out.iter_mut().zip(src.get(0, slot)) {
                        *o = x;
                    }
                });
                dst.set_slots(0, slots, &own);
                ch.recycle(own);
            } else {
                dst.zero_slots(0, slots);
            }
        }
        Ok(())
    }

    fn begin_batch(&mut self) {
        self.ahead.clear();
        self.ran_ahead = false;
    }

    fn preprocess(
        &mut self,
        ch: &mut Channel,
        program: &Program,
        inputs: &[InputValues; 2],
        arenas: &mut Arenas,
    ) -> Result<(), RunError> {
        // Before anything of this slice is sent: the truncations' opener.
        self.opener = truncation::opener(inputs[Domain::Ring as usize].reveal_to);
        if self.preprocess != Preprocess::Separate {
            return Ok(());
        }
        match self.me {
            DEALER => {
                // Nothing it computes depends on data: every layer now.
                evaluate(self, ch, program, arenas, None)?;
                self.ran_ahead = true;
            }
            1 => {
                self.receive_ahead(ch, program, arenas.instances)?;
            }
            _ => {}
        }
        Ok(())
    }

    fn evaluates_online(&self) -> bool {
        !self.ran_ahead
    }

    fn constant_rule(&self) -> ConstantRule {
        if self.me == 0 {
            ConstantRule::Add(0)
        } else {
            ConstantRule::None
        }
    }

    fn setup(&mut self, ch: &mut Channel) -> Result<(), RunError> {
        match self.me {
            0 => {
                self.k01 = Some(agree_key(ch, 1, true)?);
                self.k02 = Some(agree_key(ch, DEALER, false)?);
            }
            1 => {
                self.k01 = Some(agree_key(ch, 0, false)?);
                self.k12 = Some(agree_key(ch, DEALER, false)?);
            }
            _ => {
                self.k02 = Some(agree_key(ch, 0, true)?);
                self.k12 = Some(agree_key(ch, 1, true)?);
            }
        }
        Ok(())
    }

    fn share_inputs<R: Arith>(
        &mut self,
        ch: &mut Channel,
        inputs: &InputValues,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let me = self.me;
        let w = s.w;
        for (idx, slots) in inputs.slots.iter().enumerate() {
            let n = slots.len() * w;
            if me == DEALER {
                s.zero_slots(0, slots);
                continue;
            }
            let mut share = ch.draw(key(&mut self.k01), n);
            if inputs.owners[idx] == me {
                let v = inputs.own[idx]
                    .as_deref()
                    .ok_or_else(|| RunError::Internal("the owner has no values".into()))?;
                for (x, &v) in share.iter_mut().zip(v) {
                    *x = R::sub(v, *x);
                }
            }
            s.set_slots(0, slots, &share);
            ch.recycle(share);
        }
        Ok(())
    }

    fn multiply<R: Arith>(
        &mut self,
        ch: &mut Channel,
        program: &Program,
        layer: &Layer,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let me = self.me;
        let w = s.w;
        let groups = groups(program, layer);
        let (distinct, operand) = distinct_operands(&groups);
        let opened = distinct.len() * w;
        // Draws: the single masks of every distinct operand (K02 for P0's
        // shares, K12 for P1's), then group by group P0's subset shares
        // (K02). The dealer draws both parties' streams.
        let draw = |k: &mut Option<Prg>, ch: &mut Channel, n: usize| match k {
            Some(k) => ch.draw(k, n),
            None => Vec::new(),
        };
        let mut a0 = draw(&mut self.k02, ch, opened);
        let mut a1 = draw(&mut self.k12, ch, opened);
        let holder = term_holders(layer, &distinct);
        for (k, h) in holder.iter().enumerate() {
            let other_part = match h {
                Some(0) => &mut a1,
                Some(_) => &mut a0,
                None => continue,
            };
            if !other_part.is_empty() {
                other_part[k * w..][..w].fill(0);
            }
        }
        let sub0: Vec<Vec<u64>> = groups
            .iter()
            .map(|g| draw(&mut self.k02, ch, g.subsets(w)))
            .collect();
        if me == DEALER {
            // c_I = ∏ a_i − a_I⁰ for P1, every group in one message.
            let total: usize = groups.iter().map(|g| g.subsets(w)).sum();
            let mut corrections = ch.buffer(total);
            corrections.clear();
            for ((g, sub0), at) in groups.iter().zip(&sub0).zip(&operand) {
                let (l, q) = (g.l, dealt_elements(g.l));
                let mut prod = vec![0u64; 1 << l];
                let start = corrections.len();
                corrections.resize(start + g.subsets(w), 0);
                for gi in 0..g.products.len() {
                    for j in 0..w {
                        let single = |i: usize| at[gi * l + i] * w + j;
                        subset_products::<R>(&mut prod, |i| R::add(a0[single(i)], a1[single(i)]));
                        let mut si = 0;
                        for (m, &p) in prod.iter().enumerate() {
                            if m.count_ones() >= 2 {
                                let k = (gi * q + si) * w + j;
                                corrections[start + k] = R::sub(p, sub0[k]);
                                si += 1;
                            }
                        }
                    }
                }
            }
            let truncated = truncated(layer);
            if !truncated.is_empty() {
                let fs: Vec<u8> = truncated.iter().map(|&(_, f)| f).collect();
                let (k02, k12) = (key(&mut self.k02), key(&mut self.k12));
                truncation::deal::<R>(ch, k02, k12, ring_bits(program)?, &fs, w, &mut corrections);
            }
            ch.send_in(Phase::Offline, 1, &corrections)?;
            ch.recycle(corrections);
            for gate in &layer.gates {
                s.zero_slots(0, &[gate.out]);
            }
        } else {
            let dealt = match (me, self.ahead.pop_front()) {
                (1, Some(m)) => m,
                (1, None) => ch.recv(DEALER, dealt_words(layer, w))?,
                _ => Vec::new().into(),
            };
            let a = if me == 0 { &a0 } else { &a1 };
            // x − a for every distinct operand x; sent unless the other
            // party holds x alone (then this share and mask are 0).
            let other = 1 - me;
            let mut masked = ch.buffer(opened);
            for (k, &x) in distinct.iter().enumerate() {
                let x = &s.get(0, x)[..w];
                let (a, m) = (&a[k * w..][..w], &mut masked[k * w..][..w]);
                for j in 0..w {
                    m[j] = R::sub(x[j], a[j]);
                }
            }
            if holder.contains(&Some(other)) {
                let theirs_to_learn = masked
                    .chunks_exact(w)
                    .enumerate()
                    .filter(|&(k, _)| holder[k] != Some(other))
                    .map(|(_, m)| m);
                let mut sent = ch.buffer(theirs_to_learn.clone().count() * w);
                for (to, m) in sent.chunks_exact_mut(w).zip(theirs_to_learn) {
                    to.copy_from_slice(m);
                }
                ch.send(other, &sent)?;
                ch.recycle(sent);
            } else {
                ch.send(other, &masked)?;
            }
            let expected = holder.iter().filter(|&&h| h != Some(me)).count() * w;
            let theirs = ch.recv(other, expected)?;
            // d = x − a, opened.
            let mut from_them = theirs.chunks_exact(w);
            for (k, m) in masked.chunks_exact_mut(w).enumerate() {
                if holder[k] == Some(me) {
                    continue;
                }
                let t = from_them.next().expect("counted above");
                for (m, &t) in m.iter_mut().zip(t) {
                    *m = R::add(*m, t);
                }
            }
            let d = &masked;
            // Each gate's share, its products summed in.
            let mut sums = ch.buffer(layer.gates.len() * w);
            sums.fill(0);
            let mut at_dealt = 0;
            for ((g, sub0), at) in groups.iter().zip(&sub0).zip(&operand) {
                let (l, q) = (g.l, dealt_elements(g.l));
                let full = (1usize << l) - 1;
                let subsets = if me == 0 {
                    &sub0[..]
                } else {
                    &dealt[at_dealt..at_dealt + g.subsets(w)]
                };
                let mut d_prod = vec![0u64; 1 << l];
                for (gi, product) in g.products.iter().enumerate() {
                    let out = &mut sums[product.gate * w..][..w];
                    for (j, o) in out.iter_mut().enumerate() {
                        let single = |i: usize| at[gi * l + i] * w + j;
                        subset_products::<R>(&mut d_prod, |i| d[single(i)]);
                        let mut acc = if me == 0 { d_prod[full] } else { 0 };
                        let mut si = 0;
                        for m in 1..=full {
                            let share = if m.count_ones() == 1 {
                                a[single(m.trailing_zeros() as usize)]
                            } else {
                                si += 1;
                                subsets[(gi * q + si - 1) * w + j]
                            };
                            acc = R::add(acc, R::mul(d_prod[full ^ m], share));
                        }
                        *o = R::add(*o, acc);
                    }
                }
                at_dealt += g.subsets(w);
            }
            let truncated = truncated(layer);
            if !truncated.is_empty() {
                let job = truncation::Truncating {
                    k: ring_bits(program)?,
                    gates: &truncated,
                    w,
                    opener: self.opener,
                };
                // P1's t¹ follow the products' corrections.
                let (key, dealt) = match me {
                    0 => (key(&mut self.k02), &[][..]),
                    _ => (key(&mut self.k12), &dealt[at_dealt..]),
                };
                truncation::truncate::<R>(ch, me, &job, &mut sums, key, dealt)?;
            }
            for (gate, out) in layer.gates.iter().zip(sums.chunks_exact(w)) {
                s.set(0, gate.out, out);
            }
            ch.recycle(masked);
            ch.recycle(theirs);
            ch.recycle(dealt);
            ch.recycle(sums);
        }
        for v in [a0, a1].into_iter().chain(sub0) {
            ch.recycle(v);
        }
        Ok(())
    }

    fn reveal<R: Arith>(
        &mut self,
        ch: &mut Channel,
        slots: &[u32],
        s: &Shares,
        to: Option<PartyId>,
    ) -> Result<Option<Vec<u64>>, RunError> {
        let me = self.me;
        if me == DEALER {
            return Ok(None);
        }
        let other = 1 - me;
        let mine = s.concat(0, slots);
        if learns(other, to) {
            ch.send(other, &mine)?;
        }
        if !learns(me, to) {
            return Ok(None);
        }
        let theirs = ch.recv(other, mine.len())?;
        Ok(Some(
            mine.iter()
                .zip(theirs.iter())
                .map(|(&a, &b)| R::add(a, b))
                .collect(),
        ))
    }
}
