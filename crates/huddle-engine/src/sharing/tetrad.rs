//! Tetrad (Koti, Patra, Rachuri and Suresh, NDSS 2022), as specified in
//! `specs/tetrad-4pc.md` (HPMPC's structure with its multiplication defect
//! corrected): four parties, one of them possibly malicious, security with
//! abort; P3 is the helper.
//!
//! A value v has masks λ1 (key K013), λ2 (K023), λ3 (K123) and the masked
//! value m = v + λ1 + λ2 + λ3:
//!
//! | party | component 0 | component 1 | component 2 |
//! |---|---|---|---|
//! | P0 | m  | λ1 | λ2 |
//! | P1 | m  | λ1 | λ3 |
//! | P2 | m  | λ2 | λ3 |
//! | P3 | λ1 | λ2 | λ3 |
//!
//! Linear gates act on every component; a public constant goes to m.
//!
//! **Multiplication** z = xy (§5). The nine mask products split into
//! Γ_A = x1 y2 + x2 y1 + x1 y1 (P0, P3), Γ_B = x1 y3 + x3 y1 + x3 y3 (P1, P3)
//! and Γ_C = x2 y3 + x3 y2 + x2 y2 (P2, P3). Per layer the keys give, in this
//! order: K013 u1, λz1; K023 u2; K123 s, λz3. Preprocessing: P0 and P3 get
//! λz2 = u1 + u2 − Γ_A − λz1; P3 sends t1 = w = s + Γ_B + Γ_C to P0 and
//! t2 = λz2 to P2. Online: P1 sends t3 = y1 = Γ_B + u1 − (x1 m_y + m_x y1) to
//! P2, P2 sends t4 = y2 = Γ_C + u2 − (x2 m_y + m_x y2) to P1; with y3 =
//! −(x3 m_y + m_x y3) both get m_z = m_x m_y + y1 + y2 + y3 + λz3, and P2
//! sends t5 = m_z to P0. Checks: λz2 (P0, P2), m_z (P0, P1), and the check
//! value c (P0, P1, P2): y1 + y2 + s at P1 and P2, w + u1 + u2 − (x1 + x2) m_y
//! − m_x (y1 + y2) at P0.
//!
//! **Multiplication fused with truncation by f** (`--truncation
//! probabilistic`; ours, after HK-C's Figure 11): u = m_z − λz3 = z + λ12
//! with λ12 = λz1 + λz2 is known to P1 and P2, λ12 to P0 and P3, so
//! u^t − λ12^t is z^t or one more (`Arith::shift_masked`). The new masked
//! value m' = u^t + λz3 is computed by P1 and P2 and goes to P0 as t5; its
//! masks are λ'1 (a fresh draw from K013, after the layer's others), λ'3 =
//! λz3 and λ'2 = λ12^t − λ'1, computed by P0 and P3 and sent to P2 as t2.
//! The same messages, the same checks (t2 vouched for by P0, t5 by P1, the
//! check value c unchanged). λ'1 must be fresh: λ12^t − λz1 would tell P2,
//! who knows λz2 and u, most of λz1 and so of z.
//!
//! **Inputs** (§3.2): the dealer draws every mask from a key it holds (the
//! one it lacks is 0) and sends m to those of P0, P1, P2 that are not it,
//! who compare their views.
//!
//! **Conversions** ([`Sharing::split`]; ours, the specification has none):
//! v = (m − λ1) + (−λ2 − λ3), the first term known to P0 and P1, the second
//! to P2 and P3; each is shared with one element sent by one holder and
//! vouched for by the other (P0 → P2 online, P3 → P0 offline; see `split`).
//!
//! **Reveal** (§3.3): P3 sends λ3 to P0 (vouched for by P1), λ2 to P1 (by
//! P0), λ1 to P2 (by P0); P0 sends m to P3 (by P1). Every compare-view
//! digest is exchanged before any reveal message.
//!
//! **Dot products** cost one multiplication: every product above is
//! bilinear, so a dot product sums them over its pairs. Only layers that
//! have dot products run that code (`each_word`'s `DOT`): three earlier
//! forms with a run-time branch (in `each_word`, one call site of its
//! closure, an out-of-line pass taking the closure by reference) each cost
//! Tetrad's AND throughput a measurable share
//! (docs/perf/2026-11-25-figures-from-doc-comments.md).

use super::arith::Arith;
use super::convert::SplitJob;
use super::malicious::{self, write3, Route, Tags, Vouched};
use super::messages::tetrad as msg;
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

/// K013, K023, K123: the keys of λ1, λ2, λ3, each as the check of its
/// holders' commitments (its members: the holders; see
/// [`super::subset_keys`]).
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

const V_INPUT: usize = 0;
const V_LZ2: usize = 1;
const V_MZ: usize = 2;
const V_CHECK: usize = 3;
const V_REVEAL: usize = 4;
/// Conversions: m - λ1 masked (P0 to P2, P1 vouches), the share of
/// -(λ2 + λ3) (P3 to P0, P2 vouches).
const CONVERT_M: Vouched = Vouched {
    sender: 0,
    to: 2,
    phase: Phase::Online,
    tag: msg::CONVERT_M,
    view: 8,
};
const CONVERT_MASK: Vouched = Vouched {
    sender: 3,
    to: 0,
    phase: Phase::Offline,
    tag: msg::CONVERT_MASK,
    view: 9,
};

static VIEWS: [ViewSpec; 10] = [
    ViewSpec {
        check: "input m (P0, P1, P2)",
        members: &[0, 1, 2],
    },
    ViewSpec {
        check: "t2 = λz2 from P3 to P2, vouched for by P0",
        members: &[0, 2],
    },
    ViewSpec {
        check: "t5 = m_z from P2 to P0, vouched for by P1",
        members: &[0, 1],
    },
    ViewSpec {
        check: "check value c, covering t1, t3 and t4 (P0, P1, P2)",
        members: &[0, 1, 2],
    },
    ViewSpec {
        check: "output λ3 from P3 to P0, digest from P1",
        members: &[0],
    },
    ViewSpec {
        check: "output λ2 from P3 to P1, digest from P0",
        members: &[1],
    },
    ViewSpec {
        check: "output λ1 from P3 to P2, digest from P0",
        members: &[2],
    },
    ViewSpec {
        check: "output m from P0 to P3, digest from P1",
        members: &[3],
    },
    ViewSpec {
        check: "conversion: m - λ1 masked, from P0 to P2, vouched for by P1",
        members: &[1, 2],
    },
    ViewSpec {
        check: "conversion: share of -(λ2 + λ3) from P3 to P0, vouched for by P2",
        members: &[0, 2],
    },
];

static ROUTES: [Route; 4] = [
    route(0, 3, 2, 1, 2),
    route(1, 3, 1, 0, 2),
    route(2, 3, 0, 0, 1),
    route(3, 0, 0, 1, 0),
];

const fn route(
    receiver: usize,
    sender: PartyId,
    sent: usize,
    verifier: PartyId,
    vouched: usize,
) -> Route {
    Route {
        sender,
        sent,
        verifier,
        vouched,
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

/// Tetrad's row of the protocol table.
pub(crate) const DESCRIPTOR: Descriptor = Descriptor {
    name: "tetrad",
    summary: "Tetrad 4PC (Koti-Patra-Rachuri-Suresh), one malicious party, P3 helper, 2 offline + 3 online elements",
    parties: PartyRule::Exactly(4),
    max_fan_in: Some(2),
    separate_preprocessing: false,
    preprocessing: true,
    security: Security::MaliciousSelectiveAbort,
    rings: true,
    conversions: true,
    fused_truncation: true,
    family: Family::Sharing,
    messages: &msg::ALL,
    dealer: None,
};

pub(crate) struct Tetrad {
    me: PartyId,
    keys: Vec<Option<Prg>>,
    views: Option<Views>,
}

impl Tetrad {
    pub(crate) fn new(me: PartyId) -> Self {
        Tetrad {
            me,
            keys: Vec::new(),
            views: None,
        }
    }

    /// The key of λ_{j+1}.
    fn key(&mut self, j: usize) -> &mut Prg {
        self.keys[j]
            .as_mut()
            .expect("setup runs first and this party holds the key")
    }

    fn holds(&self, j: usize) -> bool {
        KEYS[j].members.contains(&self.me)
    }

    /// The component at which this party holds λ_{j+1}.
    fn mask_component(&self, j: usize) -> Option<usize> {
        match (self.me, j) {
            (3, j) => Some(j),
            (0, 2) | (1, 1) | (2, 0) => None,
            (0, j) => Some(1 + j),
            (1, j) => Some(1 + j / 2),
            (_, j) => Some(j),
        }
    }

    fn views(&mut self) -> &mut Views {
        self.views.as_mut().expect("setup runs first")
    }

    /// One layer's multiplications (`DOT`: see [`each_word`]; `trunc`: the
    /// layer's truncations, when it has any).
    #[inline(always)]
    fn multiply_layer<R: Arith, const DOT: bool>(
        &mut self,
        ch: &mut Channel,
        ops: &Operands,
        s: &mut Shares,
        trunc: Option<&Truncations>,
    ) -> Result<(), RunError> {
        let gates = &ops.gates;
        let w = s.w;
        let n = gates.len() * w;
        let me = self.me;
        let mut draw = |this: &mut Self, j: usize| this.holds(j).then(|| ch.draw(this.key(j), n));
        let u1 = draw(self, 0);
        let lz1 = draw(self, 0);
        let u2 = draw(self, 1);
        let sv = draw(self, 2);
        let lz3 = draw(self, 2);
        // A truncating layer's fresh λ'1 (K013, after the layer's other
        // draws), made the outputs' λ1: a plain gate's keeps λz1.
        let mut fresh = trunc.and_then(|_| draw(self, 0));
        if let (Some(t), Some(out), Some(lz1)) = (trunc, fresh.as_mut(), lz1.as_ref()) {
            for (gi, _) in t.f.iter().enumerate().filter(|(_, &f)| f == 0) {
                let at = gi * w..(gi + 1) * w;
                out[at.clone()].copy_from_slice(&lz1[at]);
            }
        }
        let draws = [u1, lz1, u2, sv, lz3];
        let [u1, lz1, u2, sv, lz3] = draws.each_ref().map(held);
        let lz1_out = fresh.as_deref().unwrap_or(lz1);
        let mask = trunc.map_or(u64::MAX, |t| t.mask);
        // At P0 and P3: a truncating gate's λ'2 = (λz1 + λz2)^t − λ'1 in
        // place of λz2.
        let truncate_masks = |lz2: &mut [u64]| {
            for (at, f) in truncating_gates(trunc, w) {
                for k in at {
                    let lambda12 = R::add(lz1[k], lz2[k]);
                    lz2[k] = R::sub(R::shift_masked(lambda12, mask, f), lz1_out[k]);
                }
            }
        };
        let (add, sub) = (R::add, R::sub);
        // One pass over the layer's products fills `a` (and `b`) with what
        // this party sends or keeps; the received values are combined after.
        let (mut a, mut b) = (ch.buffer(n), ch.buffer(n));
        match me {
            3 => {
                // Components (λ1, λ2, λ3): first = x1 y1, cross1 = x1 y2 + x2 y1,
                // cross2 = x1 y3 + x3 y1, inner = x2 y3 + x3 y2, diag1 = x2 y2,
                // diag2 = x3 y3. a = λz2 = u1 + u2 − Γ_A − λz1, b = w = s + Γ_B + Γ_C.
                each_word::<R, DOT>(s, ops, |k, q| {
                    let gamma_a = add(q.cross1, q.first);
                    let (gamma_b, gamma_c) = (add(q.cross2, q.diag2), add(q.inner, q.diag1));
                    a[k] = sub(sub(add(u1[k], u2[k]), gamma_a), lz1[k]);
                    b[k] = add(add(sv[k], gamma_b), gamma_c);
                });
                truncate_masks(&mut a);
                ch.send_tagged_in(Phase::Offline, msg::T1, 0, &b)?;
                ch.send_tagged_in(Phase::Offline, msg::T2, 2, &a)?;
                write3(s, gates, |k| (lz1_out[k], a[k], lz3[k]));
            }
            0 => {
                // Components (m, λ1, λ2): Γ_A = inner + diag1; a = λz2, b =
                // c − w = u1 + u2 − (x1 + x2) m_y − m_x (y1 + y2).
                each_word::<R, DOT>(s, ops, |k, q| {
                    a[k] = sub(sub(add(u1[k], u2[k]), add(q.inner, q.diag1)), lz1[k]);
                    b[k] = sub(add(u1[k], u2[k]), add(q.cross1, q.cross2));
                });
                truncate_masks(&mut a);
                let wv = ch.recv(3, n)?;
                let mz = ch.recv(2, n)?;
                let views = self.views();
                views.absorb(V_LZ2, &a);
                views.absorb(V_MZ, &mz);
                views.absorb_with(V_CHECK, n, |k| add(wv[k], b[k]));
                write3(s, gates, |k| (mz[k], lz1_out[k], a[k]));
                for v in [wv, mz] {
                    ch.recycle(v);
                }
            }
            _ => {
                // P1, components (m, λ1, λ3): a = y1 = Γ_B + u1 − cross1 with
                // Γ_B = inner + diag2. P2, components (m, λ2, λ3): a = y2 =
                // Γ_C + u2 − cross1 with Γ_C = inner + diag1. Both: b = m_x m_y
                // + y3 = first − cross2.
                let p1 = me == 1;
                each_word::<R, DOT>(s, ops, |k, q| {
                    let (diag, u) = if p1 {
                        (q.diag2, u1[k])
                    } else {
                        (q.diag1, u2[k])
                    };
                    a[k] = sub(add(add(q.inner, diag), u), q.cross1);
                    b[k] = sub(q.first, q.cross2);
                });
                let (tag, peer) = if p1 { (msg::T3, 2) } else { (msg::T4, 1) };
                ch.send_tagged(tag, peer, &a)?;
                let lz2 = (!p1).then(|| ch.recv(3, n)).transpose()?;
                let theirs = ch.recv(peer, n)?;
                // m_z = m_x m_y + y1 + y2 + y3 + λz3, in place of b.
                for k in 0..n {
                    b[k] = add(add(b[k], add(a[k], theirs[k])), lz3[k]);
                }
                // A truncating gate's m' = (m_z − λz3)^t + λz3.
                for (at, f) in truncating_gates(trunc, w) {
                    for k in at {
                        b[k] = add(R::shift_masked(sub(b[k], lz3[k]), mask, f), lz3[k]);
                    }
                }
                if !p1 {
                    ch.send_tagged(msg::T5, 0, &b)?;
                }
                let views = self.views();
                match &lz2 {
                    Some(lz2) => views.absorb(V_LZ2, lz2),
                    None => views.absorb(V_MZ, &b),
                }
                views.absorb_with(V_CHECK, n, |k| add(add(a[k], theirs[k]), sv[k]));
                let lz = lz2.as_deref().unwrap_or(lz1_out);
                write3(s, gates, |k| (b[k], lz[k], lz3[k]));
                ch.recycle(theirs);
                if let Some(v) = lz2 {
                    ch.recycle(v);
                }
            }
        }
        for v in [a, b].into_iter().chain(draws.into_iter().flatten()) {
            ch.recycle(v);
        }
        if let Some(v) = fresh {
            ch.recycle(v);
        }
        Ok(())
    }
}

/// The word ranges of a layer's truncating gates (`w` words each), with
/// their shifts.
fn truncating_gates(
    trunc: Option<&Truncations>,
    w: usize,
) -> impl Iterator<Item = (std::ops::Range<usize>, u8)> + '_ {
    let f = trunc.map_or(&[][..], |t| &t.f[..]);
    f.iter()
        .enumerate()
        .filter(|(_, &f)| f > 0)
        .map(move |(gi, &f)| (gi * w..(gi + 1) * w, f))
}

/// A truncating layer's shift per gate (0: a plain product) and its ring's
/// mask (`Arith::shift_masked`).
struct Truncations {
    f: Vec<u8>,
    mask: u64,
}

/// Per word of a layer, the products a party combines, from its components
/// (a0, a1, a2) of x and (b0, b1, b2) of y:
/// `square` = a1 b1 + a1 b2 + a2 b1 (P0: Γ_A; P1: x1 y1 + the Γ_B cross terms,
/// see `gamma`), and the cross terms with component 0.
#[derive(Clone, Copy, Default)]
struct Products {
    /// a0 b0: m_x m_y at P0, P1, P2.
    first: u64,
    /// a0 b1 + a1 b0 and a0 b2 + a2 b0: m times mask at P0..P2.
    cross1: u64,
    cross2: u64,
    /// a1 b2 + a2 b1.
    inner: u64,
    /// a1 b1 and a2 b2.
    diag1: u64,
    diag2: u64,
}

/// The products of word j of a (`x`) and b (`y`).
#[inline(always)]
fn products<R: Arith>(x: [&[u64]; 3], y: [&[u64]; 3], j: usize) -> Products {
    let cross = |p: u64, q: u64, yp: u64, yq: u64| R::add(R::mul(p, yq), R::mul(q, yp));
    Products {
        first: R::mul(x[0][j], y[0][j]),
        cross1: cross(x[0][j], x[1][j], y[0][j], y[1][j]),
        cross2: cross(x[0][j], x[2][j], y[0][j], y[2][j]),
        inner: cross(x[1][j], x[2][j], y[1][j], y[2][j]),
        diag1: R::mul(x[1][j], y[1][j]),
        diag2: R::mul(x[2][j], y[2][j]),
    }
}

/// Calls `f(k, products)` for word k of the layer (gate k / w, word k % w).
/// With `DOT` (a layer with dot products), a dot product's products are
/// the sums over its pairs (each is bilinear). A layer without any runs the
/// `DOT = false` instance, whose loop has no dot branch at all: every form
/// with a run-time branch cost Tetrad's AND throughput.
#[inline(always)]
fn each_word<R: Arith, const DOT: bool>(
    s: &Shares,
    ops: &Operands,
    mut f: impl FnMut(usize, Products),
) {
    let w = s.w;
    let slices = |slot: u32| [s.get(0, slot), s.get(1, slot), s.get(2, slot)];
    let mut buffer = Vec::new();
    for (gi, &(a, b, _)) in ops.gates.iter().enumerate() {
        if DOT && !ops.more[gi].is_empty() {
            let more = &ops.more[gi];
            let sums = dot_terms(
                (a, b),
                more,
                &mut buffer,
                w,
                |a, b, acc: &mut [Products]| {
                    let (x, y) = (slices(a), slices(b));
                    for (j, t) in acc.iter_mut().enumerate() {
                        let u = products::<R>(x, y, j);
                        t.first = R::add(t.first, u.first);
                        t.cross1 = R::add(t.cross1, u.cross1);
                        t.cross2 = R::add(t.cross2, u.cross2);
                        t.inner = R::add(t.inner, u.inner);
                        t.diag1 = R::add(t.diag1, u.diag1);
                        t.diag2 = R::add(t.diag2, u.diag2);
                    }
                },
            );
            for (j, &t) in sums.iter().enumerate() {
                f(gi * w + j, t);
            }
            continue;
        }
        let (x, y) = (slices(a), slices(b));
        for j in 0..w {
            f(gi * w + j, products::<R>(x, y, j));
        }
    }
}

impl Sharing for Tetrad {
    fn descriptor(&self) -> &'static Descriptor {
        &DESCRIPTOR
    }

    fn components(&self) -> usize {
        3
    }

    fn native_dot(&self) -> bool {
        true
    }

    /// v = t0 + t1 with t0 = m - λ1 (P0, P1) and t1 = -(λ2 + λ3) (P2, P3),
    /// each shared in the target domain (masked value M, masks μ1, μ2, μ3):
    /// - t0: μ1 = r from K013, μ2 = μ3 = 0, M = t0 + r, which P0 sends P2
    ///   (P1 computes it too): P0, P1 (M, r, 0), P2 (M, 0, 0), P3 (r, 0, 0).
    /// - t1: M = 0, μ1 = 0, μ3 = r' from K123, μ2 = -t1 - r', which P3 sends
    ///   P0 (input-independent, phase `offline`; P2 computes it too): P0
    ///   (0, 0, μ2), P1 (0, 0, r'), P2 and P3 (0, μ2, r').
    fn split<F: Arith, T: Arith>(
        &mut self,
        ch: &mut Channel,
        job: &SplitJob,
        src: &Shares,
        dst: &mut Shares,
    ) -> Result<(), RunError> {
        self.views().set_encoding(ch.encoding());
        let me = self.me;
        let [t0, t1] = job.terms;
        let n = job.term_words();
        // The term a party knows, from two of its components: a - b or
        // -(a + b), in the target layout.
        let term = |ch: &mut Channel, t: usize, a: usize, b: usize, negate: bool| -> Vec<u64> {
            job.term(ch, t, |slot, out| {
                let (x, y) = (src.get(a, slot), src.get(b, slot));
                for ((o, &x), &y) in out.iter_mut().zip(x).zip(y) {
                    *o = if negate {
                        F::neg(F::add(x, y))
                    } else {
                        F::sub(x, y)
                    };
                }
            })
        };
        for c in 0..3 {
            dst.zero_slots(c, t0);
            dst.zero_slots(c, t1);
        }
        // t0.
        if self.holds(0) {
            let r = ch.draw(self.key(0), n);
            match me {
                3 => dst.set_slots(0, t0, &r),
                _ => {
                    // M = t0 + r.
                    let mut big_m = term(ch, 0, 0, 1, false);
                    for (m, &r) in big_m.iter_mut().zip(&r) {
                        *m = T::add(*m, r);
                    }
                    dst.set_slots(0, t0, &big_m);
                    dst.set_slots(1, t0, &r);
                    CONVERT_M.send(ch, self.views(), &big_m)?;
                    ch.recycle(big_m);
                }
            }
            ch.recycle(r);
        }
        // t1.
        if self.holds(2) {
            let r = ch.draw(self.key(2), n);
            // r' is P1's component 2, P2's and P3's component 2 too.
            dst.set_slots(2, t1, &r);
            if me != 1 {
                // μ2 = -t1 - r'.
                let mut mu2 = term(ch, 1, 1, 2, true);
                for (t, &r) in mu2.iter_mut().zip(&r) {
                    *t = T::sub(T::neg(*t), r);
                }
                dst.set_slots(1, t1, &mu2);
                CONVERT_MASK.send(ch, self.views(), &mu2)?;
                ch.recycle(mu2);
            }
            ch.recycle(r);
        }
        match me {
            0 => {
                let mu2 = CONVERT_MASK.receive(ch, self.views(), n)?;
                dst.set_slots(2, t1, &mu2);
                ch.recycle(mu2);
            }
            2 => {
                let big_m = CONVERT_M.receive(ch, self.views(), n)?;
                dst.set_slots(0, t0, &big_m);
                ch.recycle(big_m);
            }
            _ => {}
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
        let mut sent: Vec<u64> = Vec::new();
        for (idx, slots) in inputs.slots.iter().enumerate() {
            let d = inputs.owners[idx];
            let n = slots.len() * w;
            // λ_{j+1}: drawn where the dealer holds its key, else 0.
            let mut masks: [Option<Vec<u64>>; 3] = [None, None, None];
            for (j, mask) in masks.iter_mut().enumerate() {
                if !self.holds(j) {
                    continue;
                }
                *mask = Some(if KEYS[j].members.contains(&d) {
                    ch.draw(self.key(j), n)
                } else {
                    vec![0; n]
                });
            }
            for (j, mask) in masks.iter().enumerate() {
                let (Some(k), Some(mask)) = (self.mask_component(j), mask) else {
                    continue;
                };
                s.set_slots(k, slots, mask);
            }
            if d == me {
                let v = inputs.own[idx]
                    .as_deref()
                    .ok_or_else(|| RunError::Internal("the owner has no values".into()))?;
                // The dealer holds the masks whose keys it holds; the others are 0.
                let lambda = |j: usize, k: usize| masks[j].as_ref().map_or(0, |m| m[k]);
                sent.extend((0..n).map(|k| {
                    R::add(
                        R::add(R::add(v[k], lambda(0, k)), lambda(1, k)),
                        lambda(2, k),
                    )
                }));
            }
        }
        for to in (0..3).filter(|&p| p != me) {
            ch.send_tagged(msg::INPUT, to, &sent)?;
        }
        if me == 3 {
            return Ok(());
        }
        // m of every dealer's values, in dealer order, into the view.
        for d in 0..4 {
            let m = if d == me {
                inputs.set_dealt(me, 0, s, &sent);
                std::mem::take(&mut sent)
            } else {
                inputs.receive(ch, d, 0, s)?
            };
            self.views().absorb(V_INPUT, &m);
            ch.recycle(m);
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
        let trunc = layer
            .gates
            .iter()
            .any(|g| g.trunc > 0)
            .then(|| Truncations {
                f: layer.gates.iter().map(|g| g.trunc).collect(),
                mask: program.ring.map_or(u64::MAX, |k| k.mask()),
            });
        let trunc = trunc.as_ref();
        if ops.more.iter().any(|m| !m.is_empty()) {
            self.multiply_layer::<R, true>(ch, &ops, s, trunc)
        } else {
            self.multiply_layer::<R, false>(ch, &ops, s, trunc)
        }
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
        let me = self.me;
        let views = self.views.as_mut().expect("setup runs first");
        let received = malicious::reveal_vouched(ch, views, &ROUTES, s, slots, to, &TAGS)?;
        Ok(received.map(|x| {
            let own: Vec<Vec<u64>> = (0..3).map(|k| s.concat(k, slots)).collect();
            (0..x.len())
                .map(|j| {
                    let held = R::add(own[1][j], own[2][j]);
                    if me == 3 {
                        // x = m, own = (λ1, λ2, λ3).
                        R::sub(R::sub(x[j], own[0][j]), held)
                    } else {
                        // x = the missing mask, own = (m, two masks).
                        R::sub(R::sub(own[0][j], held), x[j])
                    }
                })
                .collect()
        }))
    }
}

/// A draw of a key this party holds (empty for one it does not hold).
fn held(v: &Option<Vec<u64>>) -> &[u64] {
    v.as_deref().unwrap_or(&[])
}
