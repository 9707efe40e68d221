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

use super::arith::Arith;
use super::convert::SplitJob;
use super::malicious::{self, Route, Tags, Vouched};
use super::messages::quad as msg;
use super::pieces::{dot_terms, pieces, LayerDraws, LayerGates, PIECE_WORDS};
use super::program::{Layer, Program};
use super::subset_keys;
use super::verify::{ViewSpec, Views};
use super::{draw, Channel, ConstantRule, InputValues, Shares, Sharing};
use crate::error::RunError;
use crate::protocol::Protocol;
use huddle_core::Prg;
use huddle_net::{PartyId, Phase};
use std::ops::Range;

/// The three keys, by the parties that hold them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    K013 = 0,
    K023 = 1,
    K123 = 2,
}

/// The keys, each as the check of its holders' commitments (its members:
/// the holders; see [`super::subset_keys`]).
static KEYS: [ViewSpec; 3] = [
    ViewSpec {
        check: "contributions to key K013 (P0, P1, P3)",
        members: &[0, 1, 3],
    },
    ViewSpec {
        check: "contributions to key K023 (P0, P2, P3)",
        members: &[0, 2, 3],
    },
    ViewSpec {
        check: "contributions to key K123 (P1, P2, P3)",
        members: &[1, 2, 3],
    },
];

// Indices into QUAD_VIEWS / HET_VIEWS; the same for both where shared.
const V_INPUT: usize = 0;
const V_M0: usize = 1;
const V_M21: usize = 2;
/// Quad: ab + z0 + w at P0, P1, P2. Quad-Het: v3 at P0 and P3.
const V_PRODUCT: usize = 3;
/// Reveal checks (no running digest: the verifier's digest comes with the value).
const V_REVEAL: [usize; 4] = [4, 5, 6, 7];
/// Conversions: the share of -x0 P0 sends P2 (P3 vouches), and a + x0
/// masked that P2 sends P0 (P1 vouches).
const CONVERT_M0: Vouched = Vouched {
    sender: 0,
    to: 2,
    phase: Phase::Offline,
    tag: msg::CONVERT_M0,
    view: 8,
};
const CONVERT_M2: Vouched = Vouched {
    sender: 2,
    to: 0,
    phase: Phase::Online,
    tag: msg::CONVERT_M2,
    view: 9,
};

static QUAD_VIEWS: [ViewSpec; 10] = [
    ViewSpec {
        check: "input a + u + x0 (P0, P1, P2)",
        members: &[0, 1, 2],
    },
    ViewSpec {
        check: "m0 from P0 (P2, P3)",
        members: &[2, 3],
    },
    ViewSpec {
        check: "m21 from P2 (P0, P1)",
        members: &[0, 1],
    },
    ViewSpec {
        check: "product ab + z0 + w, covering m1, m20 and m3 (P0, P1, P2)",
        members: &[0, 1, 2],
    },
    ViewSpec {
        check: "output a + x0 from P1 to P0, digest from P2",
        members: &[0],
    },
    ViewSpec {
        check: "output x0 from P0 to P1, digest from P3",
        members: &[1],
    },
    ViewSpec {
        check: "output x0 from P3 to P2, digest from P0",
        members: &[2],
    },
    ViewSpec {
        check: "output a + x0 from P2 to P3, digest from P1",
        members: &[3],
    },
    ViewSpec {
        check: "conversion: share of -x0 from P0 (P2, P3)",
        members: &[2, 3],
    },
    ViewSpec {
        check: "conversion: a + x0 + r123 from P2 (P0, P1)",
        members: &[0, 1],
    },
];

static HET_VIEWS: [ViewSpec; 10] = [
    ViewSpec {
        check: "input a + u + x0 (P0, P1, P2)",
        members: &[0, 1, 2],
    },
    ViewSpec {
        check: "m0 from P0 (P2, P3)",
        members: &[2, 3],
    },
    ViewSpec {
        check: "m21 and m22 from P2 (P0, P1)",
        members: &[0, 1],
    },
    ViewSpec {
        check: "v3, covering m1 and m20 (P0, P3)",
        members: &[0, 3],
    },
    ViewSpec {
        check: "output a + x0 from P1 to P0, digest from P2",
        members: &[0],
    },
    ViewSpec {
        check: "output x0 from P0 to P1, digest from P3",
        members: &[1],
    },
    ViewSpec {
        check: "output x0 from P3 to P2, digest from P0",
        members: &[2],
    },
    ViewSpec {
        check: "output a + x0 from P2 to P3, digest from P1",
        members: &[3],
    },
    ViewSpec {
        check: "conversion: share of -x0 from P0 (P2, P3)",
        members: &[2, 3],
    },
    ViewSpec {
        check: "conversion: a + x0 + r123 from P2 (P0, P1)",
        members: &[0, 1],
    },
];

/// For each receiver of a reveal: the sender, the verifier and the
/// component both hold it at. Component 0 is a + x0 (at P1, P2), component
/// 1 is x0 (at P0, P3).
static ROUTES: [Route; 4] = [
    route(0, 1, 2, 0),
    route(1, 0, 3, 1),
    route(2, 3, 0, 1),
    route(3, 2, 1, 0),
];

const fn route(receiver: usize, sender: PartyId, verifier: PartyId, component: usize) -> Route {
    Route {
        sender,
        sent: component,
        verifier,
        vouched: component,
        check: V_REVEAL[receiver],
    }
}

const TAGS: Tags = Tags {
    key_commitment: msg::KEY_COMMITMENT,
    key_opening: msg::KEY_OPENING,
    digest: msg::DIGEST,
    reveal: msg::REVEAL,
    reveal_digest: msg::REVEAL_DIGEST,
    verdict: msg::VERDICT,
};

pub struct Quad {
    me: PartyId,
    het: bool,
    keys: Vec<Option<Prg>>,
    views: Option<Views>,
    scratch: Scratch,
}

/// A multiplication's working pieces, kept from layer to layer: a fresh
/// set on the stack is zeroed at every layer, which took about 1 % of a
/// party's time. Every piece is written before it is read.
struct Scratch {
    words: Vec<Piece>,
    trunc: Box<[u8; PIECE_WORDS]>,
}

impl Scratch {
    const PIECES: usize = 7;

    fn new() -> Self {
        Scratch {
            words: vec![[0; PIECE_WORDS]; Self::PIECES],
            trunc: Box::new([0; PIECE_WORDS]),
        }
    }

    /// `K` pieces (K at most 7) and a piece's truncations, holding what the
    /// last layer left in them.
    fn pieces<const K: usize>(&mut self) -> ([&mut Piece; K], &mut [u8; PIECE_WORDS]) {
        let mut words = self.words.iter_mut();
        let pieces = std::array::from_fn(|_| words.next().expect("at most Scratch::PIECES"));
        (pieces, &mut self.trunc)
    }
}

impl Quad {
    /// Quad (`het` false) or Quad-Het (`het` true) for party `me`.
    pub fn new(me: PartyId, het: bool) -> Self {
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

impl Sharing for Quad {
    fn protocol(&self) -> Protocol {
        if self.het {
            Protocol::QuadHet
        } else {
            Protocol::Quad
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
        let me = self.me;
        let [t0, t1] = job.terms;
        let n = job.term_words();
        self.views().set_encoding(ch.encoding());
        let views = self.views.as_mut().expect("setup runs first");
        let mut r123 = Vec::new();
        if me != 0 {
            r123 = draw(key_mut(&mut self.keys, Key::K123), n);
        }
        if me == 0 || me == 3 {
            // t1 = -x0 (component 1): P0 (t1, -t1), P3 (0, -t1); P1 and P2
            // hold (0, x1') and (0, x2') with x1' from K013 and
            // x2' = -t1 - x1' from P0 (P3 computes it too).
            let t = job.term(ch, 1, |slot, out| {
                for (o, &x) in out.iter_mut().zip(src.get(1, slot)) {
                    *o = F::neg(x);
                }
            });
            let x1 = draw(key_mut(&mut self.keys, Key::K013), n);
            let x2: Vec<u64> = t
                .iter()
                .zip(&x1)
                .map(|(&t, &x)| T::sub(T::neg(t), x))
                .collect();
            let neg: Vec<u64> = t.iter().map(|&t| T::neg(t)).collect();
            CONVERT_M0.send(ch, views, &x2)?;
            if me == 0 {
                dst.set_slots(0, t1, &t);
            } else {
                dst.zero_slots(0, t1);
            }
            dst.set_slots(1, t1, &neg);
            // t0 = a + x0: P0 (t0 + r123, 0) from P2, P3 (r123, 0).
            if me == 0 {
                let m2 = CONVERT_M2.receive(ch, views, n)?;
                dst.set_slots(0, t0, &m2);
            } else {
                dst.set_slots(0, t0, &r123);
            }
            dst.zero_slots(1, t0);
        } else {
            // t0 = a + x0 (component 0): P1 and P2 hold (t0, 0); P2 sends
            // P0 t0 + r123 (P1 computes it too).
            let t = job.term(ch, 0, |slot, out| {
                for (o, &x) in out.iter_mut().zip(src.get(0, slot)) {
                    *o = x;
                }
            });
            let m2: Vec<u64> = t.iter().zip(&r123).map(|(&t, &r)| T::add(t, r)).collect();
            CONVERT_M2.send(ch, views, &m2)?;
            dst.set_slots(0, t0, &t);
            dst.zero_slots(1, t0);
            dst.zero_slots(0, t1);
            if me == 1 {
                let x1 = draw(key_mut(&mut self.keys, Key::K013), n);
                dst.set_slots(1, t1, &x1);
            } else {
                let x2 = CONVERT_M0.receive(ch, views, n)?;
                dst.set_slots(1, t1, &x2);
            }
        }
        Ok(())
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
        // Values are hashed as this domain's words travel.
        self.views().set_encoding(ch.encoding());
        let me = self.me;
        let w = s.w;
        // Per input value: where its masks x1, x2, u lie in their keys'
        // streams (None where this party lacks the key). Read back slot by
        // slot, so no whole-input mask is ever held.
        let mut masks: Vec<[InputMask; 3]> = Vec::new();
        for (idx, slots) in inputs.slots.iter().enumerate() {
            let n = slots.len() * w;
            let keys = Self::input_keys(inputs.owners[idx]);
            masks.push(keys.map(|k| match k {
                None => InputMask::Zero,
                Some(k) => match self.keys[k as usize].as_mut() {
                    Some(prg) => InputMask::Drawn(k, LayerDraws::reserve(prg, n, 1)),
                    None => InputMask::Lacking,
                },
            }));
        }
        let lacks = |what: &str| RunError::Internal(format!("party {me} lacks {what}"));
        // A mask's words for slot j of an input value (`m`: 0 x1, 1 x2, 2 u).
        let read = |keys: &[Option<Prg>],
                    masks: &[InputMask; 3],
                    m: usize,
                    j: usize,
                    out: &mut [u64]|
         -> Result<(), RunError> {
            match &masks[m] {
                InputMask::Zero => out.fill(0),
                InputMask::Drawn(k, draws) => draws.read(key(keys, *k), 0, j * w..(j + 1) * w, out),
                InputMask::Lacking => return Err(lacks(["x1", "x2", "u"][m])),
            }
            Ok(())
        };
        // Components known without the masked value: P0 x0, P1 x1, P2 x2,
        // P3 (u, x0); at a dealer also a + u + x0 of its values, in input order.
        let own_words: usize = (0..inputs.slots.len())
            .filter(|&i| inputs.owners[i] == me)
            .map(|i| inputs.slots[i].len() * w)
            .sum();
        let mut masked_out = ch.buffer(own_words);
        let (mut x1, mut x2, mut u) = (vec![0; w], vec![0; w], vec![0; w]);
        let mut at = 0;
        for (idx, slots) in inputs.slots.iter().enumerate() {
            let dealer = inputs.owners[idx];
            for (j, &slot) in slots.iter().enumerate() {
                let [c0, c1, _] = &mut s.c;
                let (c0, c1) = (
                    &mut c0[slot as usize * w..][..w],
                    &mut c1[slot as usize * w..][..w],
                );
                let mine = &masks[idx];
                match me {
                    1 => read(&self.keys, mine, 0, j, c1)?,
                    2 => read(&self.keys, mine, 1, j, c1)?,
                    _ => {
                        read(&self.keys, mine, 0, j, &mut x1)?;
                        read(&self.keys, mine, 1, j, &mut x2)?;
                        for k in 0..w {
                            c1[k] = R::add(x1[k], x2[k]);
                        }
                        if me == 3 {
                            read(&self.keys, mine, 2, j, c0)?;
                        }
                    }
                }
                if dealer == me {
                    let v = inputs.own[idx]
                        .as_deref()
                        .ok_or_else(|| RunError::Internal("the owner has no values".into()))?;
                    let v = &v[j * w..(j + 1) * w];
                    // x0 is component 1 at P0 and P3, u component 0 at P3.
                    if me == 1 || me == 2 {
                        read(&self.keys, mine, 0, j, &mut x1)?;
                        read(&self.keys, mine, 1, j, &mut x2)?;
                        for k in 0..w {
                            x1[k] = R::add(x1[k], x2[k]);
                        }
                    }
                    let x0: &[u64] = if me == 1 || me == 2 { &x1 } else { c1 };
                    let u: &[u64] = if me == 3 {
                        c0
                    } else {
                        read(&self.keys, mine, 2, j, &mut u)?;
                        &u
                    };
                    for (k, out) in masked_out[at..at + w].iter_mut().enumerate() {
                        *out = R::add(R::add(v[k], u[k]), x0[k]);
                    }
                    at += w;
                }
            }
        }
        for to in (0..3).filter(|&p| p != me) {
            ch.send_tagged(msg::INPUT, to, &masked_out)?;
        }
        if me == 3 {
            ch.recycle(masked_out);
            return Ok(());
        }
        for dealer in 0..4 {
            let values: Vec<usize> = (0..inputs.slots.len())
                .filter(|&i| inputs.owners[i] == dealer)
                .collect();
            let count: usize = values.iter().map(|&i| inputs.slots[i].len()).sum();
            if count == 0 {
                continue;
            }
            let masked = if dealer == me {
                std::mem::take(&mut masked_out).into()
            } else {
                ch.recv(dealer, count * w)?
            };
            self.views().absorb(V_INPUT, &masked);
            // P0 takes off x0 (its component 1), P1 and P2 take off u.
            let mut at = 0;
            for &i in &values {
                for (j, &slot) in inputs.slots[i].iter().enumerate() {
                    let m = &masked[at..at + w];
                    at += w;
                    let [c0, c1, _] = &mut s.c;
                    let c0 = &mut c0[slot as usize * w..][..w];
                    let off = if me == 0 {
                        &c1[slot as usize * w..][..w]
                    } else {
                        read(&self.keys, &masks[i], 2, j, &mut u)?;
                        &u[..]
                    };
                    for k in 0..w {
                        c0[k] = R::sub(m[k], off[k]);
                    }
                }
            }
            ch.recycle(masked);
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

/// The products of a gate's operand components that the parties combine:
/// for operands a (components a0, a1) and b (b0, b1) of any party, a0 b0,
/// a1 b1, and the cross term a0 b1 + b0 a1 (at P0 a_u y0 + b_v x0, at P1
/// a0 y1 + b0 x1, at P2 a0 y2 + b0 x2, at P3 u y0 + v x0).
#[derive(Clone, Copy, Default)]
struct Products {
    first: u64,
    second: u64,
    cross: u64,
}

/// The products of word j of a (`x`) and b (`y`).
#[inline(always)]
fn products<R: Arith>(x: [&[u64]; 2], y: [&[u64]; 2], j: usize) -> Products {
    Products {
        first: R::mul(x[0][j], y[0][j]),
        second: R::mul(x[1][j], y[1][j]),
        cross: R::add(R::mul(x[0][j], y[1][j]), R::mul(y[0][j], x[1][j])),
    }
}

/// Calls `f(i, products)` for word i of the piece `piece` of the layer; a
/// dot product's are the sums over its pairs (every one is bilinear).
/// Inlined, so the products a caller does not use are never computed.
#[inline(always)]
fn each_word_in<R: Arith>(
    s: &Shares,
    layer: &LayerGates,
    piece: Range<usize>,
    mut f: impl FnMut(usize, Products),
) {
    let mut buffer = Vec::new();
    for seg in layer.segments(piece) {
        let words = seg.words;
        let slices = |slot: u32| {
            [
                &s.get(0, slot)[words.clone()],
                &s.get(1, slot)[words.clone()],
            ]
        };
        if seg.more.is_empty() {
            let (x, y) = (slices(seg.a), slices(seg.b));
            for j in 0..x[0].len() {
                f(seg.at + j, products::<R>(x, y, j));
            }
            continue;
        }
        let sums = dot_terms(
            (seg.a, seg.b),
            seg.more,
            &mut buffer,
            words.len(),
            |a, b, acc: &mut [Products]| {
                let (x, y) = (slices(a), slices(b));
                for (j, t) in acc.iter_mut().enumerate() {
                    let p = products::<R>(x, y, j);
                    t.first = R::add(t.first, p.first);
                    t.second = R::add(t.second, p.second);
                    t.cross = R::add(t.cross, p.cross);
                }
            },
        );
        for (j, &p) in sums.iter().enumerate() {
            f(seg.at + j, p);
        }
    }
}

/// One key of this party, read without moving it (see [`LayerDraws`]).
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

/// Where one mask of an input value comes from, at one party.
enum InputMask {
    /// The dealer is not among the key's holders: the mask is 0.
    Zero,
    /// Drawn from this key, at these positions of its stream.
    Drawn(Key, LayerDraws),
    /// Drawn from a key this party does not hold (it never reads it).
    Lacking,
}

/// A piece's worth of words, on the stack.
type Piece = [u64; PIECE_WORDS];

/// At P1 and P2, after the exchange: c0 = a0 b0 - m1 - m20 = ab + z0 over
/// the provisional a0 b0 in the output slots, and into `c` for the views.
/// A truncating gate's c0 is ab + e, and its output is (ab + e)^t (`tr`:
/// the piece's truncations, when the layer has any). `sent` is this party's
/// own message (m1 or m20) where the outputs still hold a0 b0; a plain
/// layer's outputs hold a0 b0 minus it already (the message was sent
/// without a copy), and `sent` is None.
#[inline(always)]
fn finish_c0<R: Arith>(
    layer: &LayerGates,
    s: &mut Shares,
    piece: Range<usize>,
    sent: Option<&[u64]>,
    got: &[u64],
    c: &mut Piece,
    tr: Option<&[u8; PIECE_WORDS]>,
) {
    let got = &got[piece.clone()];
    match (tr, sent) {
        (None, None) => layer.map_output(s, piece, 0, 0, |i, partial| {
            c[i] = R::sub(partial, got[i]);
            c[i]
        }),
        (None, Some(sent)) => {
            let sent = &sent[piece.clone()];
            layer.map_output(s, piece, 0, 0, |i, a0b0| {
                c[i] = R::sub(R::sub(a0b0, sent[i]), got[i]);
                c[i]
            })
        }
        (Some(tr), sent) => {
            let sent = sent.map(|m| &m[piece.clone()]);
            layer.map_output(s, piece, 0, 0, |i, a0b0| {
                let partial = sent.map_or(a0b0, |m| R::sub(a0b0, m[i]));
                c[i] = R::sub(partial, got[i]);
                truncated::<R>(c[i], layer.mask, tr[i])
            })
        }
    }
}

/// z0 = e^t of a truncating gate, e = -(x0 y0 + r013 + r023), as P0 and P3
/// both compute it.
#[inline(always)]
fn truncated_e<R: Arith>(x0y0: u64, r013: u64, r023: u64, mask: u64, f: u8) -> u64 {
    R::shift_masked(R::neg(R::add(R::add(x0y0, r013), r023)), mask, f)
}

/// x shifted as fused truncation does, or x where `f` is 0.
#[inline(always)]
fn truncated<R: Arith>(x: u64, mask: u64, f: u8) -> u64 {
    if f > 0 {
        R::shift_masked(x, mask, f)
    } else {
        x
    }
}

// Each party's multiplication runs piece by piece (see `pieces`): masks are
// read from the keys' streams where whole-layer draws would have put them
// (K013: z1 then r013; K023: z2; K123: w then r123), provisional outputs are
// written before the messages arrive, and every view absorbs its values in
// the same order as at its other members.
impl Quad {
    /// P0: m0 in preprocessing; its share from m21 and (Quad) m3 or
    /// (Quad-Het) m21 = c0 + w, with m22 for the v3 check.
    #[inline(always)]
    fn multiply_p0<R: Arith>(
        &mut self,
        ch: &mut Channel,
        layer: &LayerGates,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let n = layer.words();
        let (k013, k023) = (key(&self.keys, Key::K013), key(&self.keys, Key::K023));
        let (d013, d023) = (LayerDraws::new(k013, n, 2), LayerDraws::new(k023, n, 1));
        let mut m0 = ch.message(n);
        let ([z0, z2, r, own], tr) = self.scratch.pieces();
        for piece in pieces(n) {
            d013.read(k013, 0, piece.clone(), z0); // z1 for now
            d023.read(k023, 0, piece.clone(), z2); // r023 for a truncating gate
            d013.read(k013, 1, piece.clone(), r);
            let m0 = &mut m0[piece.clone()];
            if layer.truncates {
                layer.truncation(piece.clone(), tr);
                let mask = layer.mask;
                each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                    if tr[i] > 0 {
                        // c0 = ab + e at P1 and P2 with e = -(x0 y0 + r013
                        // + r023); z0 = e^t and m0 = z0 - z1 (P3 checks it).
                        let t = truncated_e::<R>(p.second, r[i], z2[i], mask, tr[i]);
                        m0[i] = R::sub(t, z0[i]);
                        z0[i] = t;
                    } else {
                        z0[i] = R::add(z0[i], z2[i]);
                        m0[i] = R::add(R::add(z0[i], p.second), r[i]);
                    }
                });
            } else {
                for i in 0..piece.len() {
                    z0[i] = R::add(z0[i], z2[i]);
                }
                // m0 = z0 + x0 y0 + r013 (P3 checks it).
                each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                    m0[i] = R::add(R::add(z0[i], p.second), r[i]);
                });
            }
            layer.map_output(s, piece, 1, 1, |i, _| z0[i]);
        }
        d013.finish(key_mut(&mut self.keys, Key::K013));
        d023.finish(key_mut(&mut self.keys, Key::K023));
        ch.in_phase(Phase::Offline, |ch| ch.send_message_tagged(msg::M0, 2, m0))?;
        let views = self.views.as_mut().expect("setup runs first");
        // `own`: v3 (Quad-Het) or cw (Quad).
        if self.het {
            let m21 = ch.recv(2, n)?;
            let m22 = ch.recv(2, n)?;
            views.absorb(V_M21, &m21);
            for piece in pieces(n) {
                // v3 = m22 - (a_u y0 + b_v x0), compared with P3's.
                let (m21, m22) = (&m21[piece.clone()], &m22[piece.clone()]);
                each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                    own[i] = R::sub(m22[i], p.cross);
                });
                views.absorb(V_M21, m22);
                views.absorb(V_PRODUCT, &own[..piece.len()]);
                layer.map_output(s, piece, 1, 0, |i, z0| R::sub(m21[i], z0));
            }
            for v in [m21, m22] {
                ch.recycle(v);
            }
        } else {
            let mut m3 = ch.recv(3, n)?;
            if !layer.truncates {
                // a_u y0 + b_v x0 + m3 while m21 is on its way.
                for piece in pieces(n) {
                    let m3 = &mut m3[piece.clone()];
                    each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                        m3[i] = R::add(p.cross, m3[i]);
                    });
                }
            }
            let m21 = ch.recv(2, n)?;
            for piece in pieces(n) {
                // cw = m21 - (a_u y0 + b_v x0 + m3) = ab + w. A truncating
                // gate: m21 = (ab + e)^t + w, so cw = m21 - z0, and the
                // check is a_u y0 + b_v x0 + m3 = m1 + m20 + r123.
                let (m3, m21) = (&m3[piece.clone()], &m21[piece.clone()]);
                views.absorb(V_M21, m21);
                // Word-level branches only in layers that truncate: plain
                // layers keep their loops branch-free (vectorized).
                if layer.truncates {
                    layer.truncation(piece.clone(), tr);
                    each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                        own[i] = if tr[i] > 0 {
                            R::add(p.cross, m3[i])
                        } else {
                            R::sub(m21[i], R::add(p.cross, m3[i]))
                        };
                    });
                    layer.map_output(s, piece.clone(), 1, 0, |i, z0| {
                        if tr[i] > 0 {
                            return R::sub(m21[i], z0);
                        }
                        let cw = own[i];
                        own[i] = R::add(cw, z0);
                        cw
                    });
                } else {
                    layer.map_output(s, piece.clone(), 1, 0, |i, z0| {
                        let cw = R::sub(m21[i], m3[i]);
                        own[i] = R::add(cw, z0);
                        cw
                    });
                }
                views.absorb(V_PRODUCT, &own[..piece.len()]);
            }
            for v in [m3, m21] {
                ch.recycle(v);
            }
        }
        Ok(())
    }

    /// P1: m1 to P2, m20 from it; c0 = a0 b0 - m1 - m20 = ab + z0.
    #[inline(always)]
    fn multiply_p1<R: Arith>(
        &mut self,
        ch: &mut Channel,
        layer: &LayerGates,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let (n, het) = (layer.words(), self.het);
        let (k013, k123) = (key(&self.keys, Key::K013), key(&self.keys, Key::K123));
        let (d013, d123) = (LayerDraws::new(k013, n, 2), LayerDraws::new(k123, n, 2));
        let views = self.views.as_mut().expect("setup runs first");
        // A plain Quad layer reads m1 only as a0 b0 - m1, which the
        // outputs keep until m20 arrives: m1 is sent without a copy.
        let plain = !het && !layer.truncates;
        let mut m1 = ch.message(n);
        let ([z1, r, c, wm], tr) = self.scratch.pieces();
        for piece in pieces(n) {
            d013.read(k013, 0, piece.clone(), z1);
            d013.read(k013, 1, piece.clone(), r);
            let m1 = &mut m1[piece.clone()];
            each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                m1[i] = R::add(p.cross, r[i]);
                c[i] = p.first;
            });
            if plain {
                // Quad's m21 = a0 b0 + r123, as P2 sends it to P0.
                d123.read(k123, 1, piece.clone(), r);
                views.absorb_with(V_M21, piece.len(), |i| R::add(c[i], r[i]));
                layer.update_outputs(s, piece, |i, _, _| (R::sub(c[i], m1[i]), z1[i]));
            } else {
                layer.update_outputs(s, piece, |i, _, _| (c[i], z1[i]));
            }
        }
        let m1 = if plain {
            ch.send_message_tagged(msg::M1, 2, m1)?;
            None
        } else {
            ch.send_tagged(msg::M1, 2, &m1)?;
            Some(m1)
        };
        let m20 = ch.recv(2, n)?;
        let mask = layer.mask;
        for piece in pieces(n) {
            if layer.truncates {
                layer.truncation(piece.clone(), tr);
            }
            let trunc = layer.truncates.then_some(&*tr);
            finish_c0::<R>(layer, s, piece.clone(), m1.as_deref(), &m20, c, trunc);
            d123.read(k123, 0, piece.clone(), wm);
            if plain {
                // Quad: the product ab + z0 + w.
                views.absorb_with(V_PRODUCT, piece.len(), |i| R::add(c[i], wm[i]));
                continue;
            }
            let m1 = m1.as_deref().expect("kept where the layer is not plain");
            let (m1p, m20p) = (&m1[piece.clone()], &m20[piece.clone()]);
            if het {
                // m21 = c0 + w ((ab + e)^t + w if truncating), as P2 sends it to P0.
                if layer.truncates {
                    views.absorb_with(V_M21, piece.len(), |i| {
                        R::add(truncated::<R>(c[i], mask, tr[i]), wm[i])
                    });
                } else {
                    views.absorb_with(V_M21, piece.len(), |i| R::add(c[i], wm[i]));
                }
            } else {
                // m21, sent after the exchange: a0 b0 + r123 = c0 + m1 +
                // m20 + r123, or (ab + e)^t + w; the product check: ab +
                // z0 + w, or m1 + m20 + r123.
                d123.read(k123, 1, piece.clone(), r);
                views.absorb_with(V_M21, piece.len(), |i| {
                    if tr[i] > 0 {
                        R::add(R::shift_masked(c[i], mask, tr[i]), wm[i])
                    } else {
                        R::add(R::add(R::add(c[i], m1p[i]), m20p[i]), r[i])
                    }
                });
                views.absorb_with(V_PRODUCT, piece.len(), |i| {
                    if tr[i] > 0 {
                        R::add(R::add(m1p[i], m20p[i]), r[i])
                    } else {
                        R::add(c[i], wm[i])
                    }
                });
            }
        }
        if let (true, Some(m1)) = (het, m1.as_deref()) {
            // m22 = m1 + m20 + r123, as P2 sends it to P0 after all of m21.
            for piece in pieces(n) {
                d123.read(k123, 1, piece.clone(), r);
                let (m1, m20) = (&m1[piece.clone()], &m20[piece.clone()]);
                views.absorb_with(V_M21, piece.len(), |i| R::add(R::add(m1[i], m20[i]), r[i]));
            }
        }
        d013.finish(key_mut(&mut self.keys, Key::K013));
        d123.finish(key_mut(&mut self.keys, Key::K123));
        if let Some(m1) = m1 {
            ch.recycle(m1);
        }
        ch.recycle(m20);
        Ok(())
    }

    /// P2: m0 from P0, m20 to P1, m1 from it; c0 = ab + z0; then to P0 m21
    /// (Quad: a0 b0 + r123, before the exchange; Quad-Het: c0 + w and m22).
    #[inline(always)]
    fn multiply_p2<R: Arith>(
        &mut self,
        ch: &mut Channel,
        layer: &LayerGates,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let (n, het) = (layer.words(), self.het);
        let (k023, k123) = (key(&self.keys, Key::K023), key(&self.keys, Key::K123));
        let (d023, d123) = (LayerDraws::new(k023, n, 1), LayerDraws::new(k123, n, 2));
        let views = self.views.as_mut().expect("setup runs first");
        // A plain Quad layer (`early`) sends m21 = a0 b0 + r123 before m0
        // arrives, as it needs none of it: P0 finishes the layer meanwhile.
        // Its products wait in m20 for m0; m20 then goes out without a copy
        // (the outputs keep a0 b0 - m20 until m1 arrives). A layer that
        // truncates (its m21 needs (ab + e)^t) and Quad-Het send m21 after
        // the exchange.
        let early = !het && !layer.truncates;
        let ([z2, r, c, own, wm], tr) = self.scratch.pieces();
        let mask = layer.mask;
        let m20 = if early {
            let (mut m20, mut m21) = (ch.message(n), ch.message(n));
            for piece in pieces(n) {
                let (m20, m21) = (&mut m20[piece.clone()], &mut m21[piece.clone()]);
                d023.read(k023, 0, piece.clone(), z2);
                d123.read(k123, 1, piece.clone(), r);
                each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                    m20[i] = p.cross;
                    m21[i] = R::add(p.first, r[i]);
                    c[i] = p.first;
                });
                layer.update_outputs(s, piece, |i, _, _| (c[i], z2[i]));
            }
            ch.send_message_tagged(msg::M21, 0, m21)?;
            // m20 = a0 y2 + b0 x2 - m0; m0 is hashed once m20 is on its way.
            let m0 = ch.recv(0, n)?;
            for piece in pieces(n) {
                let (m0, m20) = (&m0[piece.clone()], &mut m20[piece.clone()]);
                for (m, &m0) in m20.iter_mut().zip(m0) {
                    *m = R::sub(*m, m0);
                }
                layer.map_output(s, piece, 0, 0, |i, a0b0| R::sub(a0b0, m20[i]));
            }
            ch.send_message_tagged(msg::M20, 1, m20)?;
            views.absorb(V_M0, &m0);
            ch.recycle(m0);
            None
        } else {
            let mut m20 = ch.recv(0, n)?; // m0, then m20
            for piece in pieces(n) {
                let m20 = &mut m20[piece.clone()];
                views.absorb(V_M0, m20);
                // r023 for a truncating gate: m20 = a0 y2 + b0 x2 - m0; a
                // truncating gate's is a0 y2 + b0 x2 + r023, and its
                // m0 = e^t - z1 is P2's new mask.
                d023.read(k023, 0, piece.clone(), z2);
                if layer.truncates {
                    layer.truncation(piece.clone(), tr);
                    each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                        if tr[i] > 0 {
                            own[i] = m20[i];
                            m20[i] = R::add(p.cross, z2[i]);
                        } else {
                            own[i] = z2[i];
                            m20[i] = R::sub(p.cross, m20[i]);
                        }
                        c[i] = p.first;
                    });
                } else {
                    each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                        m20[i] = R::sub(p.cross, m20[i]);
                        c[i] = p.first;
                    });
                    own[..piece.len()].copy_from_slice(&z2[..piece.len()]);
                }
                layer.update_outputs(s, piece, |i, _, _| (c[i], own[i]));
            }
            ch.send_tagged(msg::M20, 1, &m20)?;
            Some(m20)
        };
        let m1 = ch.recv(1, n)?;
        let mut m22 = ch.message(if het { n } else { 0 });
        let mut m21 = ch.message(if early { 0 } else { n });
        for piece in pieces(n) {
            if layer.truncates {
                layer.truncation(piece.clone(), tr);
            }
            let trunc = layer.truncates.then_some(&*tr);
            finish_c0::<R>(layer, s, piece.clone(), m20.as_deref(), &m1, c, trunc);
            d123.read(k123, 0, piece.clone(), wm);
            if early {
                views.absorb_with(V_PRODUCT, piece.len(), |i| R::add(c[i], wm[i]));
                continue;
            }
            let m20 = m20.as_deref().expect("kept where the layer is not plain");
            let (m1, m20p) = (&m1[piece.clone()], &m20[piece.clone()]);
            if het {
                // m21 = c0 + w ((ab + e)^t + w) and m22 = m1 + m20 + r123.
                d123.read(k123, 1, piece.clone(), r);
                let (m21, m22) = (&mut m21[piece.clone()], &mut m22[piece.clone()]);
                if layer.truncates {
                    for i in 0..piece.len() {
                        m21[i] = R::add(truncated::<R>(c[i], mask, tr[i]), wm[i]);
                    }
                } else {
                    for i in 0..piece.len() {
                        m21[i] = R::add(c[i], wm[i]);
                    }
                }
                for i in 0..piece.len() {
                    m22[i] = R::add(R::add(m1[i], m20p[i]), r[i]);
                }
            } else if layer.truncates {
                // m21 after the exchange (a0 b0 + r123 = c0 + m1 + m20 +
                // r123, or (ab + e)^t + w) and the product check (ab + z0 +
                // w, or m1 + m20 + r123).
                d123.read(k123, 1, piece.clone(), r);
                let m21 = &mut m21[piece.clone()];
                for i in 0..piece.len() {
                    let sum = R::add(R::add(m1[i], m20p[i]), r[i]);
                    if tr[i] > 0 {
                        m21[i] = R::add(R::shift_masked(c[i], mask, tr[i]), wm[i]);
                        own[i] = sum;
                    } else {
                        m21[i] = R::add(c[i], sum);
                        own[i] = R::add(c[i], wm[i]);
                    }
                }
                views.absorb(V_PRODUCT, &own[..piece.len()]);
            }
        }
        d023.finish(key_mut(&mut self.keys, Key::K023));
        d123.finish(key_mut(&mut self.keys, Key::K123));
        if early {
            ch.recycle(m21);
        } else {
            ch.send_message_tagged(msg::M21, 0, m21)?;
        }
        if het {
            ch.send_message_tagged(msg::M22, 0, m22)?;
        } else {
            ch.recycle(m22);
        }
        if let Some(m20) = m20 {
            ch.recycle(m20);
        }
        ch.recycle(m1);
        Ok(())
    }

    /// P3: checks m0; Quad: m3 = x0 (y0 - v) - y0 u - w + r123 to P0;
    /// Quad-Het: v3 = x0 (y0 - v) - y0 u - z0 + r123, compared with P0's.
    #[inline(always)]
    fn multiply_p3<R: Arith>(
        &mut self,
        ch: &mut Channel,
        layer: &LayerGates,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let (n, het) = (layer.words(), self.het);
        let (k013, k023, k123) = (
            key(&self.keys, Key::K013),
            key(&self.keys, Key::K023),
            key(&self.keys, Key::K123),
        );
        let (d013, d023, d123) = (
            LayerDraws::new(k013, n, 2),
            LayerDraws::new(k023, n, 1),
            LayerDraws::new(k123, n, 2),
        );
        let views = self.views.as_mut().expect("setup runs first");
        let mut m3 = ch.message(if het { 0 } else { n });
        let ([z0, z2, r013, wm, r123, m0, v3], tr) = self.scratch.pieces();
        let mask = layer.mask;
        for piece in pieces(n) {
            d013.read(k013, 0, piece.clone(), z0); // z1 for now
            d023.read(k023, 0, piece.clone(), z2); // r023 for a truncating gate
            d013.read(k013, 1, piece.clone(), r013);
            d123.read(k123, 0, piece.clone(), wm);
            d123.read(k123, 1, piece.clone(), r123);
            if layer.truncates {
                layer.truncation(piece.clone(), tr);
            }
            let t = if het {
                &mut v3[..]
            } else {
                &mut m3[piece.clone()]
            };
            // x0 (y0 - v) - y0 u = x0 y0 - (u y0 + v x0). A truncating gate:
            // z0 = e^t with e = -(x0 y0 + r013 + r023), m0 = z0 - z1, and
            // m3 (Quad) or v3 (Quad-Het) = 2 x0 y0 - (u y0 + v x0) + r013 +
            // r023 + r123, which makes P0's a_u y0 + b_v x0 + m3 equal
            // m1 + m20 + r123.
            if layer.truncates {
                each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                    if tr[i] > 0 {
                        let z = truncated_e::<R>(p.second, r013[i], z2[i], mask, tr[i]);
                        m0[i] = R::sub(z, z0[i]);
                        z0[i] = z;
                        let r = R::add(R::add(r013[i], z2[i]), r123[i]);
                        t[i] = R::add(R::sub(R::add(p.second, p.second), p.cross), r);
                    } else {
                        z0[i] = R::add(z0[i], z2[i]);
                        m0[i] = R::add(R::add(z0[i], p.second), r013[i]);
                        let less = if het { z0[i] } else { wm[i] };
                        t[i] = R::add(R::sub(R::sub(p.second, p.cross), less), r123[i]);
                    }
                });
            } else {
                for i in 0..piece.len() {
                    z0[i] = R::add(z0[i], z2[i]);
                }
                let less = if het { &z0 } else { &wm };
                each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                    m0[i] = R::add(R::add(z0[i], p.second), r013[i]);
                    t[i] = R::add(R::sub(R::sub(p.second, p.cross), less[i]), r123[i]);
                });
            }
            views.absorb(V_M0, &m0[..piece.len()]);
            if het {
                views.absorb(V_PRODUCT, &v3[..piece.len()]);
            }
            layer.update_outputs(s, piece, |i, _, _| (wm[i], z0[i]));
        }
        d013.finish(key_mut(&mut self.keys, Key::K013));
        d023.finish(key_mut(&mut self.keys, Key::K023));
        d123.finish(key_mut(&mut self.keys, Key::K123));
        if het {
            ch.recycle(m3);
        } else {
            ch.in_phase(Phase::Offline, |ch| ch.send_message_tagged(msg::M3, 0, m3))?;
        }
        Ok(())
    }
}
