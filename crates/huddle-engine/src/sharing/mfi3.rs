//! MFI-3PC (Faraji and Kerschbaum, PoPETs 2023, Sections 2-3): semi-honest
//! 3PC without preprocessing whose l-input multiplications (l <= 8) take one
//! round. Its sharing is Trio's under other names (paper P1 (x+alpha, beta),
//! P2 (x+beta, alpha), P3 (alpha, beta); here P1 (v+mu2, mu1), P2 (v+mu1, mu2),
//! P0 (mu1, mu2), with the paper's P3 as party 0), so see [`super::helper`].
//!
//! Both multiplications below are derived here for Z_2^k (the paper gives Z_2
//! and states the extension) and checked by the tests in both domains. The
//! paper's 2-input step 1 has v3 = a1 b1 + a2 b2 + a1 a2, which does not make
//! the three terms sum to x1 x2; the correct term is used below.
//!
//! 2-input, one element per party (P1 -> P2, P2 -> P1, P0 -> P1):
//!   v1 = w_x w_y (P1), v2 = -(u_x mu2_y + u_y mu2_x) (P2),
//!   v3 = mu1_x mu2_y + mu1_y mu2_x - mu2_x mu2_y (P0), with v1 + v2 + v3 = xy
//!   (w = x + mu2 at P1, u = x + mu1 at P2).
//!   c1 = v1 + m_c (K01), c2 = v2 + m_a (K02), c3 = v3 + m_b (K02).
//!   P1: (v1 + c2 + c3, m_c - c3); P2: (c1 + v2 - m_b, m_a + m_b);
//!   P0: (m_c - v3 - m_b, m_a + m_b).
//!
//! l-input: with t = prod (u_i - mu1_i) = sum over subsets I of
//! prod_{i in I} u_i * prod_{j not in I} (-mu1_j), P2 sends the 2^l - l - 1
//! products over |I| >= 2, masked with K02 values r_I. P1 rewrites the
//! singleton terms with u_i = w_i + mu1_i - mu2_i and obtains
//! t + mu2' = A + rho1, while P0 computes mu2' = E + rho1 (E: the r_I and mu2
//! terms P1 lacks) and sends it to P2. The symmetric half gives P2 t + mu1'
//! and P0 sends mu1' to P1. P1 and P2 each send 2^l - l - 1 elements, P0 two.
//! P0 never receives during evaluation.
//!
//! Dot products are 2-input gates whose v1, v2, v3 sum over the pairs.
//! Fused truncation by f (same messages, HK-C's idea on this protocol):
//! P1 and P2 both form u = v1 + c2 + m_c = c1 + v2 + m_a = v + e with
//! e = m_c + m_a - v3 (m_a hides it from P1, m_c from P2), and P0 sends P1
//! d = e^t - m_b in c3's place: P1 (u^t - d, d), P2 (u^t - m_b, m_b),
//! P0 (d, m_b), a sharing of u^t - e^t.

use super::arith::{subset_products, Arith};
use super::cost::Dry;
use super::helper::{Core, Helper, Variant, HELPER};
use super::program::{Layer, MulGate, Program};
use super::{Channel, Shares};
use crate::descriptor::{Descriptor, Family, PartyRule, Security};
use crate::error::RunError;

/// MFI-3PC's row of the protocol table.
pub(crate) const DESCRIPTOR: Descriptor = Descriptor {
    name: "mfi3",
    summary: "MFI-3PC (Faraji-Kerschbaum), one-round multiplications of up to 8 inputs",
    parties: PartyRule::Exactly(3),
    // The paper's bound.
    max_fan_in: Some(8),
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

pub(crate) struct MfiVariant;

pub(crate) type Mfi3 = Helper<MfiVariant>;

/// Elements P1 and P2 each send for one l-input multiplication.
pub(crate) fn elements_per_party(l: usize) -> usize {
    if l == 2 {
        1
    } else {
        (1 << l) - l - 1
    }
}

impl Variant for MfiVariant {
    const DESCRIPTOR: &'static Descriptor = &DESCRIPTOR;
    const VALUE_MASKS: [[bool; 2]; 2] = [[false, true], [true, false]];
    /// A dot product is a 2-input gate whose three terms are summed over
    /// its pairs (the l-input products are not sums of 2-input terms).
    const NATIVE_DOT: bool = true;

    /// Per l-input gate (Faraji–Kerschbaum Sections 3.1.2–3.1.4): P1 and P2
    /// each send the other 2^l − l − 1 elements (one for l = 2), and P0
    /// sends P1 one element for every gate and P2 one for every gate of
    /// more than two inputs; P0 receives nothing.
    /// An l-input gate's masked product per subset of at least two
    /// operands: 2^l − l − 1 (one for l = 2).
    fn gate_work(gate: &MulGate) -> usize {
        crate::sharing::cost::products(gate, elements_per_party(gate.fan_in()))
    }

    fn multiply_cost(core: &mut Core, ch: &mut Dry, layer: &Layer, w: usize) {
        let groups = layer.by_fan_in();
        let words = |of: &dyn Fn(usize) -> usize| -> usize {
            groups.iter().map(|&(l, g)| g.len() * w * of(l)).sum()
        };
        match core.me {
            HELPER => {
                ch.send(1, words(&|_| 1));
                ch.send(2, words(&|l| usize::from(l > 2)));
            }
            me => {
                let other = 3 - me;
                let exchanged = words(&elements_per_party);
                ch.send(other, exchanged);
                ch.recv(other, exchanged);
                ch.recv(HELPER, words(&|l| usize::from(me == 1 || l > 2)));
            }
        }
    }

    fn multiply<R: Arith>(
        core: &mut Core,
        ch: &mut Channel,
        program: &Program,
        layer: &Layer,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let groups = layer.by_fan_in();
        let rand = draw_randomness(core, ch, &groups, s.w);
        let layer = FanInGroups {
            program,
            mask: program.ring.map_or(u64::MAX, |r| r.mask()),
            groups: &groups,
            rand: &rand,
        };
        let done = if core.me == HELPER {
            layer.helper::<R>(ch, s)
        } else {
            layer.evaluator::<R>(core.me, ch, s)
        };
        // The next layer draws into this one's memory (fresh memory costs
        // a page fault and a zeroing pass per page).
        for r in rand {
            let vs = match r {
                GroupRandomness::Two { mc, ma, mb } => vec![mc, ma, mb],
                GroupRandomness::Many { r, rho1, r2, rho2 } => vec![r, rho1, r2, rho2],
            };
            for v in vs {
                ch.recycle(v);
            }
        }
        done
    }
}

/// One fan-in group's correlated randomness, one element per gate and word
/// (empty at the party that lacks the key).
enum GroupRandomness {
    /// 2-input: m_c (K01); m_a, m_b (K02).
    Two {
        mc: Vec<u64>,
        ma: Vec<u64>,
        mb: Vec<u64>,
    },
    /// l-input: r (K02) and r' (K01), one per subset; rho1 (K01), rho2 (K02).
    Many {
        r: Vec<u64>,
        rho1: Vec<u64>,
        r2: Vec<u64>,
        rho2: Vec<u64>,
    },
}

/// Randomness drawn group by group in a fixed order on each key.
fn draw_randomness(
    core: &mut Core,
    ch: &mut Channel,
    groups: &[(usize, &[MulGate])],
    w: usize,
) -> Vec<GroupRandomness> {
    let me = core.me;
    let mut d = |k: usize, count: usize| -> Vec<u64> {
        match k {
            _ if me != HELPER && me != k => Vec::new(),
            1 => ch.draw(core.k01(), count),
            _ => ch.draw(core.k02(), count),
        }
    };
    groups
        .iter()
        .map(|&(l, gates)| {
            let n = gates.len() * w;
            if l == 2 {
                let mc = d(1, n);
                let ma = d(2, n);
                let mb = d(2, n);
                GroupRandomness::Two { mc, ma, mb }
            } else {
                let q = elements_per_party(l) * n;
                let r = d(2, q);
                let rho1 = d(1, n);
                let r2 = d(1, q);
                let rho2 = d(2, n);
                GroupRandomness::Many { r, rho1, r2, rho2 }
            }
        })
        .collect()
}

/// One layer's gates grouped by fan-in, with their randomness.
struct FanInGroups<'a> {
    program: &'a Program,
    /// The ring's mask (truncating gates).
    mask: u64,
    groups: &'a [(usize, &'a [MulGate])],
    rand: &'a [GroupRandomness],
}

impl FanInGroups<'_> {
    /// P0: computes both parties' corrections locally, sends them, and sets
    /// its own shares; it receives nothing.
    fn helper<R: Arith>(&self, ch: &mut Channel, s: &mut Shares) -> Result<(), RunError> {
        let w = s.w;
        let words: usize = self.groups.iter().map(|(_, g)| g.len() * w).sum();
        let (mut to1, mut to2) = (ch.buffer(words), ch.buffer(words));
        to1.clear();
        to2.clear();
        let mut outs: Vec<(Vec<u64>, Vec<u64>)> = Vec::new();
        for (&(l, gates), r) in self.groups.iter().zip(self.rand) {
            match r {
                GroupRandomness::Two { mc, ma, mb } => {
                    let v3 = two_input_terms::<R>(ch, self.program, gates, s, |x1, x2, y1, y2| {
                        R::sub(R::add(R::mul(x1, y2), R::mul(y1, x2)), R::mul(x2, y2))
                    });
                    let at = to1.len();
                    to1.extend(v3.iter().zip(mb).map(|(&v, &m)| R::add(v, m)));
                    let (mut first, mut second) = (ch.buffer(v3.len()), ch.buffer(v3.len()));
                    for k in 0..v3.len() {
                        first[k] = R::sub(R::sub(mc[k], v3[k]), mb[k]);
                        second[k] = R::add(ma[k], mb[k]);
                    }
                    // Truncating gates: e = m_c + m_a - v3; P1's new mask
                    // e^t - m_b goes in c3's place, P2's is m_b.
                    for (gi, g) in gates.iter().enumerate().filter(|(_, g)| g.trunc > 0) {
                        for k in gi * w..(gi + 1) * w {
                            let e = R::sub(R::add(mc[k], ma[k]), v3[k]);
                            let d = R::sub(R::shift_masked(e, self.mask, g.trunc), mb[k]);
                            to1[at + k] = d;
                            first[k] = d;
                            second[k] = mb[k];
                        }
                    }
                    ch.recycle(v3);
                    outs.push((first, second));
                }
                GroupRandomness::Many { r, rho1, r2, rho2 } => {
                    let (mu1p, mu2p) = self.helper_masks::<R>(ch, l, gates, s, [r, rho1, r2, rho2]);
                    to1.extend_from_slice(&mu1p);
                    to2.extend_from_slice(&mu2p);
                    outs.push((mu1p, mu2p));
                }
            }
        }
        ch.send(1, &to1)?;
        ch.send(2, &to2)?;
        for (&(_, gates), (a, b)) in self.groups.iter().zip(outs) {
            set_outputs(s, gates, &a, &b);
            ch.recycle(a);
            ch.recycle(b);
        }
        ch.recycle(to1);
        ch.recycle(to2);
        Ok(())
    }

    /// P0's new masks of l-input gates: mu2' = E + rho1 with E = sum r_I
    /// N1(not I) + sum mu2_i N1(not i), and mu1' symmetrically.
    fn helper_masks<R: Arith>(
        &self,
        ch: &mut Channel,
        l: usize,
        gates: &[MulGate],
        s: &Shares,
        [r, rho1, r2, rho2]: [&Vec<u64>; 4],
    ) -> (Vec<u64>, Vec<u64>) {
        let (w, q) = (s.w, elements_per_party(l));
        let mut mu1p = ch.buffer(gates.len() * w);
        let mut mu2p = ch.buffer(gates.len() * w);
        let mut scratch = vec![0u64; 1 << l];
        for (gi, g) in gates.iter().enumerate() {
            let ops = self.program.operands(g);
            let mu1 = s.gather(0, ops);
            let mu2 = s.gather(1, ops);
            let block = gi * q * w..(gi + 1) * q * w;
            for j in 0..w {
                let k = gi * w + j;
                let e = combine::<R>(
                    l,
                    &r[block.clone()],
                    w,
                    j,
                    &mu1,
                    |i| mu2[i][j],
                    false,
                    &mut scratch,
                );
                mu2p[k] = R::add(e, rho1[k]);
                let e2 = combine::<R>(
                    l,
                    &r2[block.clone()],
                    w,
                    j,
                    &mu2,
                    |i| mu1[i][j],
                    false,
                    &mut scratch,
                );
                mu1p[k] = R::add(e2, rho2[k]);
            }
        }
        (mu1p, mu2p)
    }

    /// P1 and P2: one message to each other, then the corrections from P0.
    /// P1 holds values w = v + mu2 (component 0) and its mask mu1; P2 u and mu2.
    fn evaluator<R: Arith>(
        &self,
        me: usize,
        ch: &mut Channel,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let w = s.w;
        let other = 3 - me;
        let words: usize = self
            .groups
            .iter()
            .map(|&(l, g)| g.len() * w * elements_per_party(l))
            .sum();
        let mut msg = ch.buffer(words);
        msg.clear();
        let mut local: Vec<Vec<u64>> = Vec::new(); // v1 / v2 for 2-input groups
        for (&(l, gates), r) in self.groups.iter().zip(self.rand) {
            match r {
                GroupRandomness::Two { mc, ma, .. } => {
                    let v = if me == 1 {
                        two_input_terms::<R>(ch, self.program, gates, s, |w1, _, w2, _| {
                            R::mul(w1, w2)
                        })
                    } else {
                        two_input_terms::<R>(ch, self.program, gates, s, |u1, m1, u2, m2| {
                            R::neg(R::add(R::mul(u1, m2), R::mul(u2, m1)))
                        })
                    };
                    let mask = if me == 1 { mc } else { ma };
                    msg.extend(v.iter().zip(mask).map(|(&v, &m)| R::add(v, m)));
                    local.push(v);
                }
                GroupRandomness::Many { r, r2, .. } => {
                    // P1 masks with r' (K01), P2 with r (K02).
                    let masks = if me == 1 { r2 } else { r };
                    self.push_subset_products::<R>(l, gates, s, masks, &mut msg);
                    local.push(Vec::new());
                }
            }
        }
        ch.send(other, &msg)?;
        let theirs = ch.recv(other, msg.len())?;
        let from_helper_len: usize = self
            .groups
            .iter()
            .filter(|&&(l, _)| me == 1 || l > 2)
            .map(|&(_, g)| g.len() * w)
            .sum();
        let helper_msg = ch.recv(HELPER, from_helper_len)?;
        let (mut at, mut at_helper) = (0, 0);
        for ((&(l, gates), r), v) in self.groups.iter().zip(self.rand).zip(&local) {
            let n = gates.len() * w;
            match r {
                GroupRandomness::Two { mc, ma, mb } => {
                    let from_other = &theirs[at..at + n];
                    at += n;
                    let (mut first, mut second) = (ch.buffer(n), ch.buffer(n));
                    if me == 1 {
                        let c3 = &helper_msg[at_helper..at_helper + n];
                        at_helper += n;
                        for k in 0..n {
                            first[k] = R::add(R::add(v[k], from_other[k]), c3[k]);
                            second[k] = R::sub(mc[k], c3[k]);
                        }
                        // Truncating gates: u = v1 + m_c + c2 = v + e, and
                        // c3 is the new mask e^t - m_b.
                        for (gi, g) in gates.iter().enumerate().filter(|(_, g)| g.trunc > 0) {
                            for k in gi * w..(gi + 1) * w {
                                let u = R::add(R::add(v[k], mc[k]), from_other[k]);
                                let u = R::shift_masked(u, self.mask, g.trunc);
                                first[k] = R::sub(u, c3[k]);
                                second[k] = c3[k];
                            }
                        }
                    } else {
                        for k in 0..n {
                            first[k] = R::sub(R::add(from_other[k], v[k]), mb[k]);
                            second[k] = R::add(ma[k], mb[k]);
                        }
                    }
                    if me == 2 {
                        // Truncating gates: u = c1 + v2 + m_a; the new mask m_b.
                        for (gi, g) in gates.iter().enumerate().filter(|(_, g)| g.trunc > 0) {
                            for k in gi * w..(gi + 1) * w {
                                let u = R::add(R::add(from_other[k], v[k]), ma[k]);
                                let u = R::shift_masked(u, self.mask, g.trunc);
                                first[k] = R::sub(u, mb[k]);
                                second[k] = mb[k];
                            }
                        }
                    }
                    set_outputs(s, gates, &first, &second);
                    ch.recycle(first);
                    ch.recycle(second);
                }
                GroupRandomness::Many { rho1, rho2, .. } => {
                    let q = elements_per_party(l);
                    let from_other = &theirs[at..at + gates.len() * q * w];
                    at += gates.len() * q * w;
                    let mask_p = &helper_msg[at_helper..at_helper + n];
                    at_helper += n;
                    let rho = if me == 1 { rho1 } else { rho2 };
                    let first = self.masked_products::<R>(ch, l, gates, s, from_other, rho);
                    set_outputs(s, gates, &first, mask_p);
                    ch.recycle(first);
                }
            }
        }
        for v in local.into_iter().chain([msg]) {
            ch.recycle(v);
        }
        ch.recycle(theirs);
        ch.recycle(helper_msg);
        Ok(())
    }

    /// The masked products over every subset of at least two operands, the
    /// message P1 or P2 sends for l-input gates.
    fn push_subset_products<R: Arith>(
        &self,
        l: usize,
        gates: &[MulGate],
        s: &Shares,
        masks: &[u64],
        msg: &mut Vec<u64>,
    ) {
        let (w, q) = (s.w, elements_per_party(l));
        let start = msg.len();
        msg.resize(start + gates.len() * q * w, 0);
        let subsets = subsets(l);
        let mut prod = vec![0u64; 1 << l];
        for (gi, g) in gates.iter().enumerate() {
            let vals = s.gather(0, self.program.operands(g));
            #[allow(clippy::needless_range_loop)] // j indexes every operand
            for j in 0..w {
                subset_products::<R>(&mut prod, |i| vals[i][j]);
                for (si, &m) in subsets.iter().enumerate() {
                    let k = (gi * q + si) * w + j;
                    msg[start + k] = R::add(prod[m], masks[k]);
                }
            }
        }
    }

    /// P1's t + mu2' (or P2's t + mu1') of l-input gates from the other's
    /// subset products: A + rho.
    fn masked_products<R: Arith>(
        &self,
        ch: &mut Channel,
        l: usize,
        gates: &[MulGate],
        s: &Shares,
        from_other: &[u64],
        rho: &[u64],
    ) -> Vec<u64> {
        let (w, q) = (s.w, elements_per_party(l));
        let mut first = ch.buffer(gates.len() * w);
        let mut scratch = vec![0u64; 1 << l];
        for (gi, g) in gates.iter().enumerate() {
            let ops = self.program.operands(g);
            let vals = s.gather(0, ops);
            let own = s.gather(1, ops);
            let block = &from_other[gi * q * w..(gi + 1) * q * w];
            for j in 0..w {
                let single = |i: usize| R::add(vals[i][j], own[i][j]);
                let a = combine::<R>(l, block, w, j, &own, single, true, &mut scratch);
                first[gi * w + j] = R::add(a, rho[gi * w + j]);
            }
        }
        first
    }
}

/// For each 2-input gate and word: f(first comp of x, second comp of x,
/// first of y, second of y), in a buffer of `ch`'s.
fn two_input_terms<R: Arith>(
    ch: &mut Channel,
    program: &Program,
    gates: &[MulGate],
    s: &Shares,
    f: impl Fn(u64, u64, u64, u64) -> u64,
) -> Vec<u64> {
    let w = s.w;
    let mut all = ch.buffer(gates.len() * w);
    for (gi, g) in gates.iter().enumerate() {
        let out = &mut all[gi * w..(gi + 1) * w];
        // The terms are bilinear, so a dot product sums them over its pairs.
        for (i, (x, y)) in program.pairs(g).enumerate() {
            let (x0, x1) = (&s.get(0, x)[..w], &s.get(1, x)[..w]);
            let (y0, y1) = (&s.get(0, y)[..w], &s.get(1, y)[..w]);
            if i == 0 {
                for (j, o) in out.iter_mut().enumerate() {
                    *o = f(x0[j], x1[j], y0[j], y1[j]);
                }
            } else {
                for (j, o) in out.iter_mut().enumerate() {
                    *o = R::add(*o, f(x0[j], x1[j], y0[j], y1[j]));
                }
            }
        }
    }
    all
}

fn set_outputs(s: &mut Shares, gates: &[MulGate], first: &[u64], second: &[u64]) {
    let w = s.w;
    for (gi, g) in gates.iter().enumerate() {
        let (a, b) = (&first[gi * w..][..w], &second[gi * w..][..w]);
        s.write(g.out, |j| (a[j], b[j]));
    }
}

/// Subsets of l operands with at least two members, as bit masks, ascending:
/// the order of the 2^l - l - 1 elements in a message.
fn subsets(l: usize) -> Vec<usize> {
    (0..1usize << l).filter(|m| m.count_ones() >= 2).collect()
}

/// sum_{|I|>=2} c_I N(not I) + sum_i single(i) N(not {i}) [+ N(all) if `with_empty`],
/// where N(J) = prod_{j in J} (-mu_j), for word j of one gate whose subset
/// values are `c` (q blocks of `w` words). `n`: 2^l words of scratch, kept
/// by the caller (zeroing a fresh array per word cost MFI-3PC a sixth of
/// its time).
#[allow(clippy::too_many_arguments)]
fn combine<R: Arith>(
    l: usize,
    c: &[u64],
    w: usize,
    j: usize,
    mu: &[&[u64]],
    single: impl Fn(usize) -> u64,
    with_empty: bool,
    n: &mut [u64],
) -> u64 {
    let full = (1usize << l) - 1;
    subset_products::<R>(&mut n[..=full], |i| R::neg(mu[i][j]));
    let mut acc = if with_empty { n[full] } else { 0 };
    let mut si = 0;
    for m in 0..=full {
        match m.count_ones() {
            0 => {}
            1 => {
                acc = R::add(
                    acc,
                    R::mul(single(m.trailing_zeros() as usize), n[full ^ m]),
                )
            }
            _ => {
                acc = R::add(acc, R::mul(c[si * w + j], n[full ^ m]));
                si += 1;
            }
        }
    }
    acc
}
