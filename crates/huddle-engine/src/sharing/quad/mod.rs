//! Quad and Quad-Het (Harth-Kitzerow and Carle, Section VI, Figures 5 and 6):
//! four parties, one of them possibly malicious, security with abort.
//!
//! Sharing of a value a, with masks x1 (key K013: P0, P1, P3), x2 (K023:
//! P0, P2, P3), u (K123: P1, P2, P3) and x0 = x1 + x2:
//!
//! | party | component 0 | component 1 |
//! |---|---|---|
//! | P0 | a + u  | x0 |
//! | P1 | a + x0 | x1 |
//! | P2 | a + x0 | x2 |
//! | P3 | u      | x0 |
//!
//! Linear gates act on both components; a public constant goes to component 0
//! of P0, P1 and P2.
//!
//! **Multiplication** c = ab (a: x, u; b: y, v; c: z1, z2, w, z0 = z1 + z2).
//! Keys are drawn per layer in this order: K013 z1 then r013; K023 z2; K123
//! w then r123. Preprocessing: P0 -> P2 m0 = z0 + x0 y0 + r013 (both
//! variants); Quad only: P3 -> P0 m3 = x0 (y0 - v) - y0 u - w + r123. Online:
//! P1 -> P2 m1 = a0 y1 + b0 x1 + r013, P2 -> P1 m20 = a0 y2 + b0 x2 - m0,
//! both get c0 = a0 b0 - m1 - m20 = ab + z0.
//! - Quad: P2 -> P0 m21 = a0 b0 + r123; P0 gets
//!   cw = m21 - (a_u y0 + b_v x0 + m3) = ab + w. m21 needs neither m0 nor
//!   m1, so P2 sends it before m0 arrives, and P0 adds its cross products
//!   to m3 while m21 travels: P0 finishes a layer (and computes the next
//!   m0) while P2 waits for m0 and exchanges with P1, instead of the two
//!   computing their products one after the other. Checks: m21 (P0, P1),
//!   m0 (P2, P3), ab + z0 + w (P0, P1, P2): cw + z0 at P0, c0 + w at P1
//!   and P2.
//! - Quad-Het: P2 -> P0 m21 = c0 + w and m22 = m1 + m20 + r123; P0 gets
//!   cw = m21 - z0 and v3 = m22 - (a_u y0 + b_v x0), which P3 computes as
//!   x0 y0 - u y0 - v x0 - z0 + r123 in preprocessing. P3 sends nothing.
//!   Checks: m21 and m22 (P0, P1), v3 (P0, P3), m0 (P2, P3). P0 needs its
//!   values only for the checks, so its link from P2 may lag.
//!
//! **Multiplication fused with truncation by f** (Figures 12 and 13,
//! rederived for this sharing): P1 sends m1 as before, P2 sends
//! m20 = a0 y2 + b0 x2 + r023 (r023 is its z2 draw), so c0 = a0 b0 - m1 -
//! m20 = ab + e with e = -(x0 y0 + r013 + r023), which P0 and P3 compute and
//! P1 (no r023) and P2 (no r013) cannot. P1 and P2 output (ab + e)^t;
//! z0 = e^t, z1 from K013 as before, and P0 sends P2 m0 = e^t - z1 in the
//! usual m0's place (P3 checks it). P2 sends P0 m21 = (ab + e)^t + w after
//! the exchange (in a layer with truncations, Quad sends all its m21 then:
//! one more round at the end of a run, as in the paper's step 4), P0's
//! share is m21 - z0. The product check becomes m1 + m20 + r123: P1 and P2
//! know it, P0 computes it as a_u y0 + b_v x0 + m3 with Quad's
//! m3 = 2 x0 y0 - (u y0 + v x0) + r013 + r023 + r123 from P3, and Quad-Het's
//! P0 compares m22 - (a_u y0 + b_v x0) with P3's v3, the same value. m21 is
//! compared by P0 and P1, m0 by P2 and P3, as for a plain product.
//!
//! **Conversions** ([`Sharing::split`], HK-C Figures 15 and 17 in this
//! sharing): a = t0 + t1 with t0 = a + x0 (P1 and P2 hold it) and t1 = -x0
//! (P0 and P3), each shared in the target domain (masks x1', x2', u'):
//! - t1: x1' from K013, x2' = -t1 - x1', so the masked value is 0 and
//!   x0' = -t1: P0 (t1, -t1), P1 (0, x1'), P2 (0, x2'), P3 (0, -t1). P0
//!   sends P2 x2' (input-independent, phase `offline`); P3 computes it too
//!   and compares with P2.
//! - t0: no x-masks, u' = r from K123: P0 (t0 + r, 0), P1 and P2 (t0, 0),
//!   P3 (r, 0). P2 sends P0 t0 + r; P1 computes it too and compares with P0.
//!
//! One element each way per term bit, no round of its own (P0 only checks),
//! then the engine's adder (A2B, LTZ) or t0 + t1 - 2 t0 t1 (B2A) runs as
//! ordinary gates with their own checks.
//!
//! **Inputs** (the paper's, with fewer masks): the dealer A draws x1 from
//! K013, x2 from K023 and u from K123 where it holds the key, and sets the
//! mask to 0 where it does not (the paper draws it from the all-party key
//! instead); it sends a + u + x0 to those of P0, P1, P2 that are not A, who
//! compare their views of it. The zero mask is never one that hides a from
//! anybody: A = P0 has u = 0 (P1 and P2 see a + x0 under x2 resp. x1, P3
//! no a); A = P1 has x2 = 0 (P0 sees a + u under u, P2 a + x1 under x1);
//! A = P2 has x1 = 0 (symmetric); P3 holds every key and zeroes nothing.
//! Each zero mask saves every holder an AES-CTR draw per element, and the
//! all-party key is gone.
//!
//! **Reveal** (ours; the paper's costs a second round of comparisons): every
//! receiver gets the one missing component from one holder and a digest of
//! it from another, so that one of the two is honest: P0 and P3 get a + x0
//! (from P1 and P2 respectively, the digest from the other), P1 and P2 get
//! x0 (from P0 and P3 respectively, the digest from the other).
//!
//! **Order**: every compare-view digest is exchanged in phase `verify` after
//! the last layer and before any reveal message; a party sends its reveal
//! messages only if its own checks passed, and everyone's verdict travels
//! with the reveal ([`super::verify::settle`]), and again after it: an honest party
//! outputs only when every party reports success.

mod cost;
mod inputs;
mod multiply;
mod split;
mod tables;

use crate::descriptor::{Descriptor, Family, PartyRule, Security};
use crate::error::RunError;
use crate::sharing::arith::Arith;
use crate::sharing::convert::SplitJob;
use crate::sharing::malicious;
use crate::sharing::pieces::LayerGates;
use crate::sharing::program::{Layer, Program};
use crate::sharing::subset_keys;
use crate::sharing::verify::{ViewSpec, Views};
use crate::sharing::{Channel, ConstantRule, InputValues, Shares, Sharing};
use huddle_core::Prg;
use huddle_net::PartyId;
use multiply::Scratch;
use tables::{Key, HET_VIEWS, KEYS, QUAD_VIEWS, ROUTES, TAGS};

/// Quad's row of the protocol table.
pub(crate) const QUAD: Descriptor = Descriptor {
    name: "quad",
    summary: "Quad 4PC (Harth-Kitzerow-Carle), one malicious party, 2 offline + 3 online elements, compare-view checks",
    parties: PartyRule::Exactly(4),
    max_fan_in: Some(2),
    separate_preprocessing: false,
    preprocessing: true,
    security: Security::MaliciousSelectiveAbort,
    rings: true,
    conversions: true,
    fused_truncation: true,
    family: Family::Sharing,
    messages: &crate::sharing::messages::quad::QUAD,
    dealer: None,
};

/// Quad-Het's row of the protocol table.
pub(crate) const QUAD_HET: Descriptor = Descriptor {
    name: "quad-het",
    summary: "Quad-Het 4PC (Harth-Kitzerow-Carle), P3 silent while multiplying, online traffic on P1-P2 and P2->P0 only",
    parties: PartyRule::Exactly(4),
    max_fan_in: Some(2),
    separate_preprocessing: false,
    preprocessing: true,
    security: Security::MaliciousSelectiveAbort,
    rings: true,
    conversions: true,
    fused_truncation: true,
    family: Family::Sharing,
    messages: &crate::sharing::messages::quad::HET,
    dealer: None,
};

pub(crate) struct Quad {
    me: PartyId,
    het: bool,
    keys: Vec<Option<Prg>>,
    views: Option<Views>,
    scratch: Scratch,
}

impl Quad {
    /// Quad (`het` false) or Quad-Het (`het` true) for party `me`.
    pub(crate) fn new(me: PartyId, het: bool) -> Self {
        Quad {
            me,
            het,
            keys: Vec::new(),
            views: None,
            scratch: Scratch::new(),
        }
    }

    fn views(&mut self) -> &mut Views {
        self.views.as_mut().expect("setup runs first")
    }

    fn specs(&self) -> &'static [ViewSpec] {
        if self.het {
            &HET_VIEWS
        } else {
            &QUAD_VIEWS
        }
    }

    /// The keys dealer `a`'s masks x1, x2, u come from: K013, K023, K123
    /// where `a` holds it; None (the mask is 0) where it does not (see the
    /// module documentation).
    fn input_keys(a: PartyId) -> [Option<Key>; 3] {
        let pick = |set: Key| KEYS[set as usize].members.contains(&a).then_some(set);
        [pick(Key::K013), pick(Key::K023), pick(Key::K123)]
    }
}

/// One key of this party, read without moving it (see
/// [`LayerDraws`](crate::sharing::pieces::LayerDraws)).
fn key(keys: &[Option<Prg>], k: Key) -> &Prg {
    keys[k as usize]
        .as_ref()
        .expect("setup runs first and this party holds the key")
}

fn key_mut(keys: &mut [Option<Prg>], k: Key) -> &mut Prg {
    keys[k as usize]
        .as_mut()
        .expect("setup runs first and this party holds the key")
}

impl Sharing for Quad {
    fn descriptor(&self) -> &'static Descriptor {
        if self.het {
            &QUAD_HET
        } else {
            &QUAD
        }
    }

    /// Products are sums of local bilinear terms, so a dot product sums
    /// them over its pairs and pays for one multiplication (HK-C).
    fn native_dot(&self) -> bool {
        true
    }

    /// HK-C Figure 15 (and 17) in this sharing; see the module documentation.
    fn split<F: Arith, T: Arith>(
        &mut self,
        ch: &mut Channel,
        job: &SplitJob,
        src: &Shares,
        dst: &mut Shares,
    ) -> Result<(), RunError> {
        self.split_terms::<F, T>(ch, job, src, dst)
    }

    fn constant_rule(&self) -> ConstantRule {
        if self.me == 3 {
            ConstantRule::None
        } else {
            ConstantRule::Add(0)
        }
    }

    /// The keys, drawn jointly by their holders.
    fn setup(&mut self, ch: &mut Channel) -> Result<(), RunError> {
        self.keys = subset_keys::agree(ch, &KEYS, &TAGS)?;
        self.views = Some(Views::new(self.me, ch.encoding(), self.specs()));
        Ok(())
    }

    fn share_inputs<R: Arith>(
        &mut self,
        ch: &mut Channel,
        inputs: &InputValues,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        self.input_sharing::<R>(ch, inputs, s)
    }

    #[inline(always)]
    fn multiply<R: Arith>(
        &mut self,
        ch: &mut Channel,
        program: &Program,
        layer: &Layer,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        // Values are hashed as this domain's words travel.
        self.views().set_encoding(ch.encoding());
        let layer = LayerGates::new(program, layer, s.w);
        match self.me {
            0 => self.multiply_p0::<R>(ch, &layer, s),
            1 => self.multiply_p1::<R>(ch, &layer, s),
            2 => self.multiply_p2::<R>(ch, &layer, s),
            _ => self.multiply_p3::<R>(ch, &layer, s),
        }
    }

    fn checkpoint(&mut self, ch: &mut Channel) -> Result<(), RunError> {
        let views = self.views();
        malicious::checkpoint(ch, views, &TAGS)
    }

    fn verify(&mut self, ch: &mut Channel) -> Result<(), RunError> {
        malicious::compare_views(ch, self.views(), &TAGS)
    }

    fn reveal<R: Arith>(
        &mut self,
        ch: &mut Channel,
        slots: &[u32],
        s: &Shares,
        to: Option<PartyId>,
    ) -> Result<Option<Vec<u64>>, RunError> {
        let me = self.me;
        let views = self.views.as_mut().expect("setup runs first");
        let received = malicious::reveal_vouched(ch, views, &ROUTES, s, slots, to, &TAGS)?;
        Ok(received.map(|theirs| {
            // P0, P3 hold x0 and got a + x0; P1, P2 hold a + x0 and got x0.
            let (value, mask) = if me == 0 || me == 3 {
                (theirs, s.concat(1, slots))
            } else {
                (s.concat(0, slots), theirs)
            };
            value
                .iter()
                .zip(&mask)
                .map(|(&v, &m)| R::sub(v, m))
                .collect()
        }))
    }
}
