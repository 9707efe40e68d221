//! Fantastic Four (Dalskov, Escudero and Keller, USENIX Security 2021), as
//! specified in `specs/fantastic-four-4pc.md`: four parties, one of them
//! possibly malicious, security with abort, no preprocessing.
//!
//! A value x = x0 + x1 + x2 + x3; party Pi holds the three shares other than
//! x_i, as components 0, 1, 2 = x_{i+1}, x_{i+2}, x_{i+3} (indices mod 4).
//! Every share is held by three parties. Public constants go to x0.
//!
//! **Multiplication** (the spec's normative assignment, §5.3): the 16
//! products x_j y_l are grouped into D_k = x_k y_k + x_k y_{k+1} + x_{k+1} y_k
//! and E0 = x0 y2 + x2 y0, E1 = x1 y3 + x3 y1. In component terms every party
//! Pi knows D_{i+1} (components 0, 1), D_{i+2} (1, 2) and the E term of
//! components 0 and 2. Each of the six terms is known to two parties; one
//! sends it, masked, to a third party that lacks it, and the other vouches
//! for the message by hashing the same value (INP2). Per layer the keys
//! give, in this order: K¬3 r1, r5; K¬2 r4, r6; K¬0 r2; K¬1 r3.
//!
//! | msg | value | sender → receiver | vouched for by |
//! |---|---|---|---|
//! | m1 | D2 − r1 | P0 → P3 | P1 |
//! | m2 | D3 − r2 | P1 → P0 | P2 |
//! | m3 | D0 − r3 | P2 → P1 | P3 |
//! | m4 | D1 − r4 | P3 → P2 | P0 |
//! | m5 | E1 − r5 | P0 → P3 | P2 |
//! | m6 | E0 − r6 | P1 → P2 | P3 |
//!
//! **Inputs** (§3.2): dealer d, with a = d+1, b = d+2, c = d+3: x_d = 0, x_a
//! and x_c from K¬a and K¬c, and d sends x_b = v − x_a − x_c to a and c, who
//! compare their views of it.
//!
//! **Conversions** ([`Sharing::split`]; ours, the specification has none):
//! x = (x0 + x1) + (x2 + x3). P2 and P3 know the first term, P0 and P1 the
//! second. The first is shared in the target domain as y2 = y3 = 0,
//! y0 = r from K¬0 and y1 = term − r, which P2 sends P0 (the one party
//! without r) and P3 vouches for; the second likewise with y0 = y1 = 0,
//! y2 = r from K¬2, y3 sent by P0 to P2 and vouched for by P1. One element
//! each way per term bit, online (`CONVERSION_TERMS`).
//!
//! **Multiplication fused with truncation by f** (`--truncation
//! probabilistic`; ours): of the six messages only m2, m4, m5 and m6 go out
//! in the first round, which is enough for P2 and P3 to know A = z0 + z1
//! and for P0 and P1 to know B = z2 + z3 (the sums of the components a
//! plain product would write from them), where B holds fresh key draws
//! and so is uniform. With the mask e = −B, z = A − e, and A^t − e^t is
//! z^t or one more (`Arith::shift_masked`); in a second round the terms
//! A^t and −e^t are shared exactly as a conversion's two terms are (one
//! element each, vouched for by the other holder, tags `truncation-t0/t1`).
//! Six elements per product as before, one more round per truncating
//! layer; a layer's plain products take the same path unshifted.
//!
//! **Reveal** (§3.3): P_{i−1} sends x_i to P_i and P_{i+1} vouches for it.
//! Every compare-view digest is exchanged before any reveal message.

use super::arith::Arith;
use super::convert::SplitJob;
use super::malicious::{self, write3, Route, Tags, Vouched};
use super::messages::fantastic4 as msg;
use super::pieces::{dot_terms, operands, Operands};
use super::program::{Layer, Program};
use super::subset_keys;
use super::verify::{ViewSpec, Views};
use super::{Channel, ConstantRule, InputValues, Shares, Sharing};
use crate::descriptor::{Descriptor, Family, PartyRule, Security};
use crate::error::RunError;
use huddle_core::Prg;
use huddle_net::{PartyId, Phase};

mod cost;

/// K¬j (index j): the key of every party but Pj, as the check of its
/// holders' commitments (its members: the holders; see
/// [`super::subset_keys`]).
static KEYS: [ViewSpec; 4] = [
    ViewSpec {
        check: "contributions to key K¬0 (P1, P2, P3)",
        members: &[1, 2, 3],
    },
    ViewSpec {
        check: "contributions to key K¬1 (P0, P2, P3)",
        members: &[0, 2, 3],
    },
    ViewSpec {
        check: "contributions to key K¬2 (P0, P1, P3)",
        members: &[0, 1, 3],
    },
    ViewSpec {
        check: "contributions to key K¬3 (P0, P1, P2)",
        members: &[0, 1, 2],
    },
];

/// Views 0..4: inputs by dealer; 4..10: m1..m6; 10..14: reveal to P0..P3;
/// 14, 15: the conversion terms (`CONVERSION_TERMS`); 16, 17: the terms of
/// truncated products.
const V_INPUT: usize = 0;
const V_M: [usize; 6] = [4, 5, 6, 7, 8, 9];
const V_REVEAL: usize = 10;

static VIEWS: [ViewSpec; 18] = [
    ViewSpec {
        check: "input x2 from P0 (P1, P3)",
        members: &[1, 3],
    },
    ViewSpec {
        check: "input x3 from P1 (P2, P0)",
        members: &[0, 2],
    },
    ViewSpec {
        check: "input x0 from P2 (P3, P1)",
        members: &[1, 3],
    },
    ViewSpec {
        check: "input x1 from P3 (P0, P2)",
        members: &[0, 2],
    },
    ViewSpec {
        check: "m1 from P0 to P3, vouched for by P1",
        members: &[1, 3],
    },
    ViewSpec {
        check: "m2 from P1 to P0, vouched for by P2",
        members: &[0, 2],
    },
    ViewSpec {
        check: "m3 from P2 to P1, vouched for by P3",
        members: &[1, 3],
    },
    ViewSpec {
        check: "m4 from P3 to P2, vouched for by P0",
        members: &[0, 2],
    },
    ViewSpec {
        check: "m5 from P0 to P3, vouched for by P2",
        members: &[2, 3],
    },
    ViewSpec {
        check: "m6 from P1 to P2, vouched for by P3",
        members: &[2, 3],
    },
    ViewSpec {
        check: "output x0 from P3 to P0, digest from P1",
        members: &[0],
    },
    ViewSpec {
        check: "output x1 from P0 to P1, digest from P2",
        members: &[1],
    },
    ViewSpec {
        check: "output x2 from P1 to P2, digest from P3",
        members: &[2],
    },
    ViewSpec {
        check: "output x3 from P2 to P3, digest from P0",
        members: &[3],
    },
    ViewSpec {
        check: "conversion: share of x0 + x1 from P2 to P0, vouched for by P3",
        members: &[0, 3],
    },
    ViewSpec {
        check: "conversion: share of x2 + x3 from P0 to P2, vouched for by P1",
        members: &[1, 2],
    },
    ViewSpec {
        check: "truncation: share of (z0 + z1)^t from P2 to P0, vouched for by P3",
        members: &[0, 3],
    },
    ViewSpec {
        check: "truncation: share of the truncated z2 + z3 from P0 to P2, vouched for by P1",
        members: &[1, 2],
    },
];

/// P_i receives x_i from P_{i−1} (its component 0), vouched for by P_{i+1}
/// (its component 2).
static ROUTES: [Route; 4] = [
    route(0, 3, 1),
    route(1, 0, 2),
    route(2, 1, 3),
    route(3, 2, 0),
];

const fn route(receiver: usize, sender: PartyId, verifier: PartyId) -> Route {
    Route {
        sender,
        sent: 0,
        verifier,
        vouched: 2,
        check: V_REVEAL + receiver,
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

/// Fantastic Four's row of the protocol table.
pub(crate) const DESCRIPTOR: Descriptor = Descriptor {
    name: "fantastic4",
    summary: "Fantastic Four 4PC (Dalskov-Escudero-Keller), one malicious party, 6 online elements, no preprocessing",
    parties: PartyRule::Exactly(4),
    max_fan_in: Some(2),
    separate_preprocessing: false,
    preprocessing: false,
    security: Security::MaliciousSelectiveAbort,
    rings: true,
    conversions: true,
    fused_truncation: true,
    family: Family::Sharing,
    messages: &msg::ALL,
    dealer: None,
};

pub(crate) struct FantasticFour {
    me: PartyId,
    keys: Vec<Option<Prg>>,
    views: Option<Views>,
}

/// A conversion term (see [`Sharing::split`]): the sum of two shares of the
/// source value, known to the two parties that hold both, shared in the
/// target domain as y_holders = 0, y_keyed = r from K¬keyed and y_sent =
/// term - r, which holders[0] sends to `keyed` (the one party without r)
/// and holders[1] vouches for.
struct ConversionTerm {
    sum: [usize; 2],
    holders: [PartyId; 2],
    keyed: PartyId,
    sent: usize,
    /// y_sent from holders[0] to `keyed`, vouched for by holders[1], when
    /// the term is a conversion's.
    message: Vouched,
    /// The same, when the term is a truncated product's (see `multiply`).
    truncation: Vouched,
}

/// x = (x0 + x1) + (x2 + x3): P2 and P3 know the first, P0 and P1 the second.
static CONVERSION_TERMS: [ConversionTerm; 2] = [
    ConversionTerm {
        sum: [0, 1],
        holders: [2, 3],
        keyed: 0,
        sent: 1,
        message: Vouched {
            sender: 2,
            to: 0,
            phase: Phase::Online,
            tag: msg::CONVERT,
            view: 14,
        },
        truncation: Vouched {
            sender: 2,
            to: 0,
            phase: Phase::Online,
            tag: msg::TRUNCATE,
            view: 16,
        },
    },
    ConversionTerm {
        sum: [2, 3],
        holders: [0, 1],
        keyed: 2,
        sent: 3,
        message: Vouched {
            sender: 0,
            to: 2,
            phase: Phase::Online,
            tag: msg::CONVERT + 1,
            view: 15,
        },
        truncation: Vouched {
            sender: 0,
            to: 2,
            phase: Phase::Online,
            tag: msg::TRUNCATE + 1,
            view: 17,
        },
    },
];

/// The component at which party `me` holds share `j` (None for j = me).
fn component(me: PartyId, j: usize) -> Option<usize> {
    (j != me).then(|| (j + 3 - me) % 4)
}

impl FantasticFour {
    pub(crate) fn new(me: PartyId) -> Self {
        FantasticFour {
            me,
            keys: Vec::new(),
            views: None,
        }
    }

    /// K¬j.
    fn key(&mut self, j: usize) -> &mut Prg {
        self.keys[j]
            .as_mut()
            .expect("setup runs first and this party holds the key")
    }

    fn holds(&self, j: usize) -> bool {
        j != self.me
    }

    fn views(&mut self) -> &mut Views {
        self.views.as_mut().expect("setup runs first")
    }

    /// Round 2 of a truncating layer: from A = z0 + z1 (`term` at P2, P3)
    /// or B = z2 + z3 (at P0, P1), with z = A + B and B uniform, the terms
    /// A^t and −(−B)^t (whose sum is z^t or one more, `shift_masked`; a
    /// plain gate's are A and B) shared as `CONVERSION_TERMS` says.
    fn share_truncated<R: Arith>(
        &mut self,
        ch: &mut Channel,
        program: &Program,
        layer: &Layer,
        s: &mut Shares,
        gates: &[(u32, u32, u32)],
        mut term: Vec<u64>,
    ) -> Result<(), RunError> {
        let me = self.me;
        let w = s.w;
        let n = term.len();
        let mask = program.ring.map_or(u64::MAX, |k| k.mask());
        let first = me >= 2;
        for (gi, g) in layer.gates.iter().enumerate() {
            for v in &mut term[gi * w..(gi + 1) * w] {
                *v = if first {
                    R::shift_masked(*v, mask, g.trunc)
                } else {
                    R::neg(R::shift_masked(R::neg(*v), mask, g.trunc))
                };
            }
        }
        let values = if first {
            [Some(term), None]
        } else {
            [None, Some(term)]
        };
        let shares = self.share_terms::<R>(ch, values, n, |t| &t.truncation)?;
        // Share j of the result is term j / 2's (0, 1: keyed and sent of
        // the first; 2, 3 of the second).
        let component = |c: usize| -> &[u64] {
            let j = (me + 1 + c) % 4;
            shares[j / 2][j]
                .as_deref()
                .expect("every party holds its three shares of the terms")
        };
        let (c0, c1, c2) = (component(0), component(1), component(2));
        write3(s, gates, |k| (c0[k], c1[k], c2[k]));
        for v in shares.into_iter().flatten().flatten() {
            ch.recycle(v);
        }
        Ok(())
    }

    /// Shares the two terms of `CONVERSION_TERMS` (`values[t]`: term t's
    /// `n` words where this party holds it) as that table says, sending
    /// with `message(term)`. Returns per term this party's shares y_j by
    /// share index j (None: 0, or a share this party does not hold).
    fn share_terms<T: Arith>(
        &mut self,
        ch: &mut Channel,
        values: [Option<Vec<u64>>; 2],
        n: usize,
        message: impl Fn(&ConversionTerm) -> &Vouched,
    ) -> Result<[[Option<Vec<u64>>; 4]; 2], RunError> {
        let me = self.me;
        let mut shares: [[Option<Vec<u64>>; 4]; 2] = Default::default();
        for (t, (term, value)) in CONVERSION_TERMS.iter().zip(values).enumerate() {
            if me == term.keyed {
                continue; // receives y_sent below, after every send
            }
            // y_keyed = r from K¬keyed (everyone else holds both).
            let r = ch.draw(self.key(term.keyed), n);
            if let Some(mut v) = value {
                // y_sent = t - r.
                for (v, &r) in v.iter_mut().zip(&r) {
                    *v = T::sub(*v, r);
                }
                message(term).send(ch, self.views(), &v)?;
                shares[t][term.sent] = Some(v);
            }
            shares[t][term.keyed] = Some(r);
        }
        for (t, term) in CONVERSION_TERMS.iter().enumerate() {
            if me == term.keyed {
                shares[t][term.sent] = Some(message(term).receive(ch, self.views(), n)?);
            }
        }
        Ok(shares)
    }
}

/// The three terms every party computes for a gate's word: D_{i+1}, D_{i+2}
/// and E (see the module documentation), from components 0, 1, 2.
#[derive(Clone, Copy, Default)]
struct Terms {
    d_low: u64,
    d_high: u64,
    e: u64,
}

/// The terms of word j of the product of a (`x`) and b (`y`).
#[inline(always)]
fn terms<R: Arith>(x: [&[u64]; 3], y: [&[u64]; 3], j: usize) -> Terms {
    let d = |p: u64, q: u64, yp: u64, yq: u64| {
        R::add(R::add(R::mul(p, yp), R::mul(p, yq)), R::mul(q, yp))
    };
    Terms {
        d_low: d(x[0][j], x[1][j], y[0][j], y[1][j]),
        d_high: d(x[1][j], x[2][j], y[1][j], y[2][j]),
        e: R::add(R::mul(x[0][j], y[2][j]), R::mul(x[2][j], y[0][j])),
    }
}

/// The three components of `slot`, each exactly a slot long (so the word
/// loops need no bounds checks).
#[inline(always)]
fn slices(s: &Shares, slot: u32) -> [&[u64]; 3] {
    let w = s.w;
    [
        &s.get(0, slot)[..w],
        &s.get(1, slot)[..w],
        &s.get(2, slot)[..w],
    ]
}

/// Calls `f(k, terms)` for word k of the layer (gate k / w, word k % w); a
/// dot product's terms are the sums over its pairs (they are bilinear).
#[inline(always)]
fn each_word<R: Arith>(s: &Shares, ops: &Operands, mut f: impl FnMut(usize, Terms)) {
    let w = s.w;
    let mut buffer = Vec::new();
    for (gi, &(a, b, _)) in ops.gates.iter().enumerate() {
        let more = &ops.more[gi];
        if more.is_empty() {
            let (x, y) = (slices(s, a), slices(s, b));
            for j in 0..w {
                f(gi * w + j, terms::<R>(x, y, j));
            }
            continue;
        }
        let sums = dot_terms((a, b), more, &mut buffer, w, |a, b, acc: &mut [Terms]| {
            let (x, y) = (slices(s, a), slices(s, b));
            for (j, t) in acc.iter_mut().enumerate() {
                let u = terms::<R>(x, y, j);
                t.d_low = R::add(t.d_low, u.d_low);
                t.d_high = R::add(t.d_high, u.d_high);
                t.e = R::add(t.e, u.e);
            }
        });
        for (j, &t) in sums.iter().enumerate() {
            f(gi * w + j, t);
        }
    }
}

impl Sharing for FantasticFour {
    fn descriptor(&self) -> &'static Descriptor {
        &DESCRIPTOR
    }

    /// Products are sums of local bilinear terms, so a dot product sums
    /// them over its pairs and pays for one multiplication.
    fn native_dot(&self) -> bool {
        true
    }

    fn components(&self) -> usize {
        3
    }

    /// See `CONVERSION_TERMS`: each term is shared with its holders'
    /// shares 0, one share from the key of a third party's complement, and
    /// the last one sent to that third party by one holder, vouched for by
    /// the other.
    fn split<F: Arith, T: Arith>(
        &mut self,
        ch: &mut Channel,
        job: &SplitJob,
        src: &Shares,
        dst: &mut Shares,
    ) -> Result<(), RunError> {
        self.views().set_encoding(ch.encoding());
        let me = self.me;
        let n = job.term_words();
        // A holder's term: the sum of the two shares, in the target layout.
        let mut index = 0..;
        let values = CONVERSION_TERMS.each_ref().map(|term| {
            let t = index.next().expect("two terms");
            term.holders.contains(&me).then(|| {
                let at = |j: usize| component(me, j).expect("a holder holds the term's shares");
                let (a, b) = (at(term.sum[0]), at(term.sum[1]));
                job.term(ch, t, |slot, out| {
                    let (x, y) = (src.get(a, slot), src.get(b, slot));
                    for ((o, &x), &y) in out.iter_mut().zip(x).zip(y) {
                        *o = F::add(x, y);
                    }
                })
            })
        });
        let shares = self.share_terms::<T>(ch, values, n, |t| &t.message)?;
        for (t, term_shares) in shares.into_iter().enumerate() {
            for (j, y) in term_shares.into_iter().enumerate() {
                let Some(k) = component(me, j) else { continue };
                match y {
                    Some(y) => {
                        dst.set_slots(k, job.terms[t], &y);
                        ch.recycle(y);
                    }
                    None => dst.zero_slots(k, job.terms[t]),
                }
            }
        }
        Ok(())
    }

    fn constant_rule(&self) -> ConstantRule {
        match component(self.me, 0) {
            Some(c) => ConstantRule::Add(c),
            None => ConstantRule::None,
        }
    }

    fn setup(&mut self, ch: &mut Channel) -> Result<(), RunError> {
        self.keys = subset_keys::agree(ch, &KEYS, &TAGS)?;
        self.views = Some(Views::new(self.me, ch.encoding(), &VIEWS));
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
        // At a dealer: x_b of its values, in input order.
        let mut sent: Vec<u64> = Vec::new();
        for (idx, slots) in inputs.slots.iter().enumerate() {
            let d = inputs.owners[idx];
            let (a, b, c) = ((d + 1) % 4, (d + 2) % 4, (d + 3) % 4);
            let n = slots.len() * w;
            let xa = self.holds(a).then(|| ch.draw(self.key(a), n));
            let xc = self.holds(c).then(|| ch.draw(self.key(c), n));
            for (j, x) in [(a, &xa), (c, &xc)] {
                if let (Some(k), Some(x)) = (component(me, j), x) {
                    s.set_slots(k, slots, x);
                }
            }
            if let Some(k) = component(me, d) {
                s.zero_slots(k, slots);
            }
            if d == me {
                let v = inputs.own[idx]
                    .as_deref()
                    .ok_or_else(|| RunError::Internal("the owner has no values".into()))?;
                let (xa, xc) = (xa.as_ref(), xc.as_ref());
                let (xa, xc) = xa.zip(xc).ok_or_else(|| {
                    RunError::Internal(format!("dealer {me} lacks its input masks"))
                })?;
                let xb: Vec<u64> = (0..n).map(|k| R::sub(R::sub(v[k], xa[k]), xc[k])).collect();
                let k = component(me, b).expect("the dealer holds x_b");
                s.set_slots(k, slots, &xb);
                sent.extend_from_slice(&xb);
            }
            for x in [xa, xc].into_iter().flatten() {
                ch.recycle(x);
            }
        }
        for to in [(me + 1) % 4, (me + 3) % 4] {
            ch.send_tagged(msg::INPUT, to, &sent)?;
        }
        // x_b from the dealers d = me - 1 and d = me + 1, compared with
        // the other receiver.
        for d in [(me + 3) % 4, (me + 1) % 4] {
            let k = component(me, (d + 2) % 4).expect("a receiver holds x_b");
            let xb = inputs.receive(ch, d, k, s)?;
            self.views().absorb(V_INPUT + d, &xb);
            ch.recycle(xb);
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
        let ops = operands(program, layer);
        let gates = &ops.gates;
        let n = gates.len() * s.w;
        // Draws, in the fixed order, of the keys this party holds.
        let mut draw = |this: &mut Self, j: usize, count: usize| -> Vec<Vec<u64>> {
            if this.holds(j) {
                (0..count).map(|_| ch.draw(this.key(j), n)).collect()
            } else {
                Vec::new()
            }
        };
        let r15 = draw(self, 3, 2);
        let r46 = draw(self, 2, 2);
        let r2 = draw(self, 0, 1);
        let r3 = draw(self, 1, 1);
        let add3 = |a: u64, b: u64, c: u64| R::add(R::add(a, b), c);
        // Every party masks its three terms: D_{i+1} − r_lo, D_{i+2} − r_hi
        // and E − r_e, then sends, hashes or keeps each (module table).
        let (r_lo, r_hi, r_e) = match self.me {
            0 => (&r46[0], &r15[0], &r15[1]),
            1 => (&r15[0], &r2[0], &r46[1]),
            2 => (&r2[0], &r3[0], &r15[1]),
            _ => (&r3[0], &r46[0], &r46[1]),
        };
        let (mut lo, mut hi, mut e) = (ch.buffer(n), ch.buffer(n), ch.buffer(n));
        each_word::<R>(s, &ops, |k, t| {
            lo[k] = R::sub(t.d_low, r_lo[k]);
            hi[k] = R::sub(t.d_high, r_hi[k]);
            e[k] = R::sub(t.e, r_e[k]);
        });
        let (r1, r5) = (drawn(&r15, 0), drawn(&r15, 1));
        let (r4, r6) = (drawn(&r46, 0), drawn(&r46, 1));
        let (r2v, r3v) = (drawn(&r2, 0), drawn(&r3, 0));
        if layer.gates.iter().any(|g| g.trunc > 0) {
            // Round 1: only m2, m4, m5 and m6, which give A = z0 + z1 to
            // P2 and P3 and B = z2 + z3 to P0 and P1 (the sums of the
            // components a plain product would write from them).
            let sum = |a: [&[u64]; 3], b: [&[u64]; 3]| -> Vec<u64> {
                (0..n)
                    .map(|k| {
                        R::add(
                            add3(a[0][k], a[1][k], a[2][k]),
                            add3(b[0][k], b[1][k], b[2][k]),
                        )
                    })
                    .collect()
            };
            let term = match self.me {
                0 => {
                    ch.send_tagged(msg::M + 4, 3, &e)?; // m5
                    self.views().absorb(V_M[3], &lo);
                    let m2 = ch.recv(1, n)?;
                    self.views().absorb(V_M[1], &m2);
                    let b = sum([&hi, r4, r6], [r1, &m2, r5]);
                    ch.recycle(m2);
                    b
                }
                1 => {
                    ch.send_tagged(msg::M + 1, 0, &hi)?; // m2
                    ch.send_tagged(msg::M + 5, 2, &e)?; // m6
                    sum([&lo, r4, r6], [r1, &hi, r5])
                }
                2 => {
                    self.views().absorb(V_M[1], &lo);
                    self.views().absorb(V_M[4], &e);
                    let m4 = ch.recv(3, n)?;
                    let m6 = ch.recv(1, n)?;
                    self.views().absorb(V_M[3], &m4);
                    self.views().absorb(V_M[5], &m6);
                    let a = sum([r2v, &hi, &m6], [r3v, &m4, &e]);
                    ch.recycle(m4);
                    ch.recycle(m6);
                    a
                }
                _ => {
                    ch.send_tagged(msg::M + 3, 2, &hi)?; // m4
                    self.views().absorb(V_M[5], &e);
                    let m5 = ch.recv(0, n)?;
                    self.views().absorb(V_M[4], &m5);
                    let a = sum([r2v, &lo, &e], [r3v, &hi, &m5]);
                    ch.recycle(m5);
                    a
                }
            };
            for v in [lo, hi, e]
                .into_iter()
                .chain(r15)
                .chain(r46)
                .chain(r2)
                .chain(r3)
            {
                ch.recycle(v);
            }
            return self.share_truncated::<R>(ch, program, layer, s, gates, term);
        }
        match self.me {
            0 => {
                ch.send_tagged(msg::M, 3, &hi)?; // m1
                ch.send_tagged(msg::M + 4, 3, &e)?; // m5
                self.views().absorb(V_M[3], &lo);
                let m2 = ch.recv(1, n)?;
                self.views().absorb(V_M[1], &m2);
                write3(s, gates, |k| {
                    (
                        add3(r3v[k], lo[k], e[k]),
                        add3(hi[k], r4[k], r6[k]),
                        add3(r1[k], m2[k], r5[k]),
                    )
                });
                ch.recycle(m2);
            }
            1 => {
                ch.send_tagged(msg::M + 1, 0, &hi)?; // m2
                ch.send_tagged(msg::M + 5, 2, &e)?; // m6
                self.views().absorb(V_M[0], &lo);
                let m3 = ch.recv(2, n)?;
                self.views().absorb(V_M[2], &m3);
                write3(s, gates, |k| {
                    (
                        add3(lo[k], r4[k], r6[k]),
                        add3(r1[k], hi[k], r5[k]),
                        add3(r2v[k], m3[k], e[k]),
                    )
                });
                ch.recycle(m3);
            }
            2 => {
                ch.send_tagged(msg::M + 2, 1, &hi)?; // m3
                self.views().absorb(V_M[1], &lo);
                self.views().absorb(V_M[4], &e);
                let m4 = ch.recv(3, n)?;
                let m6 = ch.recv(1, n)?;
                self.views().absorb(V_M[3], &m4);
                self.views().absorb(V_M[5], &m6);
                write3(s, gates, |k| {
                    (
                        add3(r1[k], lo[k], r5[k]),
                        add3(r2v[k], hi[k], m6[k]),
                        add3(r3v[k], m4[k], e[k]),
                    )
                });
                ch.recycle(m4);
                ch.recycle(m6);
            }
            _ => {
                ch.send_tagged(msg::M + 3, 2, &hi)?; // m4
                self.views().absorb(V_M[2], &lo);
                self.views().absorb(V_M[5], &e);
                let m1 = ch.recv(0, n)?;
                let m5 = ch.recv(0, n)?;
                self.views().absorb(V_M[0], &m1);
                self.views().absorb(V_M[4], &m5);
                write3(s, gates, |k| {
                    (
                        add3(r2v[k], lo[k], e[k]),
                        add3(r3v[k], hi[k], m5[k]),
                        add3(m1[k], r4[k], r6[k]),
                    )
                });
                ch.recycle(m1);
                ch.recycle(m5);
            }
        }
        for v in [lo, hi, e] {
            ch.recycle(v);
        }
        for v in r15.into_iter().chain(r46).chain(r2).chain(r3) {
            ch.recycle(v);
        }
        Ok(())
    }

    fn checkpoint(&mut self, ch: &mut Channel) -> Result<(), RunError> {
        let views = self.views.as_mut().expect("setup runs first");
        malicious::checkpoint(ch, views, &TAGS)
    }

    fn verify(&mut self, ch: &mut Channel) -> Result<(), RunError> {
        let views = self.views.as_mut().expect("setup runs first");
        malicious::compare_views(ch, views, &TAGS)
    }

    fn reveal<R: Arith>(
        &mut self,
        ch: &mut Channel,
        slots: &[u32],
        s: &Shares,
        to: Option<PartyId>,
    ) -> Result<Option<Vec<u64>>, RunError> {
        let views = self.views.as_mut().expect("setup runs first");
        let received = malicious::reveal_vouched(ch, views, &ROUTES, s, slots, to, &TAGS)?;
        Ok(received.map(|x| {
            let own: Vec<Vec<u64>> = (0..3).map(|k| s.concat(k, slots)).collect();
            (0..x.len())
                .map(|j| R::add(R::add(R::add(x[j], own[0][j]), own[1][j]), own[2][j]))
                .collect()
        }))
    }
}

/// Draw `i` of a key, empty where this party does not hold the key.
fn drawn(draws: &[Vec<u64>], i: usize) -> &[u64] {
    draws.get(i).map_or(&[], |v| &v[..])
}
