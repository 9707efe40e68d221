//! Trio (Harth-Kitzerow and Carle, Section V, Figure 4), semi-honest 3PC:
//! P1 holds (a + x2, x1), P2 holds (a + x1, x2), P0 holds (x1, x2) (see
//! [`super::helper`]; x1 = mu1, x2 = mu2). Per multiplication one element
//! P0 -> P2 in preprocessing (m0) and one element each way between P1 and P2
//! online; the P0-P1 link carries no multiplication traffic.
//!
//! Derivation (checked by the tests; the paper's m0 = x2y2 - (x1-x2)(y1-y2) + r01
//! expands to the same value): P2's a1 b1 = ab + a y1 + b x1 + x1 y1 and P1's
//! a2 y1 + b2 x1 = a y1 + b x1 + x1 y2 + x2 y1, so with
//! m0 = x1 y2 + x2 y1 - x1 y1 + r01 both error terms cancel.
//!
//! Multiplication fused with truncation by f (Figure 11, the same messages):
//! P1 sends c2 = sum (a2 y1 + b2 x1) + r01 and P2 m2 = sum a1 b1 + r02, so
//! both learn u = m2 - c2 = v + e with e = r02 - r01 + sum (x1 y1 - x2 y1 -
//! x1 y2), which P0 computes and nobody else can (r02 hides it from P1, r01
//! from P2). P0 sends P2 m0 = e^t - z1 instead of its correction; the new
//! sharing of u^t - e^t is P1 (u^t - z1, z1), P2 (u^t - m0, m0), P0 (z1, m0).
//! P0 knows e, so if it learns a truncated product as an output it also
//! learns whether the dropped low bits carried (`docs/circuit-format.md`).

use super::arith::Arith;
use super::cost::Dry;
use super::helper::{Core, Helper, Variant, HELPER};
use super::program::{Layer, Program};
use super::{Channel, Shares};
use crate::descriptor::{Descriptor, Family, PartyRule, Security};
use crate::error::RunError;

/// Trio's row of the protocol table.
pub(crate) const DESCRIPTOR: Descriptor = Descriptor {
    name: "trio",
    summary: "Trio 3PC (Harth-Kitzerow-Carle), 1 offline (P0->P2) and 2 online",
    parties: PartyRule::Exactly(3),
    max_fan_in: Some(2),
    separate_preprocessing: true,
    preprocessing: true,
    security: Security::SemiHonest,
    rings: true,
    conversions: true,
    fused_truncation: true,
    family: Family::Sharing,
    messages: &[],
    dealer: None,
};

pub(crate) struct TrioVariant;

pub(crate) type Trio = Helper<TrioVariant>;

impl Variant for TrioVariant {
    const DESCRIPTOR: &'static Descriptor = &DESCRIPTOR;
    const VALUE_MASKS: [[bool; 2]; 2] = [[false, true], [true, false]];
    const NATIVE_DOT: bool = true;

    /// Per multiplication one element P0 -> P2 in preprocessing (m0) and
    /// one each way between P1 and P2 online (HK-C Section V-B, Figure 4).
    fn multiply_cost(core: &mut Core, ch: &mut Dry, layer: &Layer, w: usize) {
        core.offline_to_p2_then_exchange_cost(ch, layer.gates.len() * w);
    }

    #[inline(always)]
    fn multiply<R: Arith>(
        core: &mut Core,
        ch: &mut Channel,
        program: &Program,
        layer: &Layer,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let w = s.w;
        let n = layer.gates.len() * w;
        let mask = program.ring.map_or(u64::MAX, |r| r.mask());
        // Only truncating gates read P0's m0 and P2's m2 after they are sent;
        // without them both go out without a copy.
        let truncates = layer.gates.iter().any(|g| g.trunc > 0);
        match core.me {
            HELPER => {
                // Draw order on K01: z1, then r01; on K02: z2 (r02 for a
                // truncating gate).
                let z1 = ch.draw(core.k01(), n);
                let mut m0 = ch.message(n); // r01, then m0 in place
                core.k01().fill_u64(&mut m0);
                let z2 = ch.draw(core.k02(), n);
                for (gi, g) in layer.gates.iter().enumerate() {
                    let r = gi * w..(gi + 1) * w;
                    let m0 = &mut m0[r.clone()];
                    if g.trunc > 0 {
                        // e = sum (x1 y1 - x2 y1 - x1 y2) + r02 - r01.
                        m0.iter_mut().for_each(|m| *m = R::neg(*m));
                    }
                    for (x, y) in program.pairs(g) {
                        let (x1, x2) = (s.get(0, x), s.get(1, x));
                        let (y1, y2) = (s.get(0, y), s.get(1, y));
                        for (j, m) in m0.iter_mut().enumerate() {
                            let cross = R::add(R::mul(x1[j], y2[j]), R::mul(x2[j], y1[j]));
                            let t = R::sub(cross, R::mul(x1[j], y1[j]));
                            *m = if g.trunc > 0 {
                                R::sub(*m, t)
                            } else {
                                R::add(t, *m)
                            };
                        }
                    }
                    if g.trunc > 0 {
                        // m0 = e^t - z1: P2's new mask mu2.
                        let (z1, r02) = (&z1[r.clone()], &z2[r]);
                        for (j, m) in m0.iter_mut().enumerate() {
                            let e = R::add(*m, r02[j]);
                            *m = R::sub(R::shift_masked(e, mask, g.trunc), z1[j]);
                        }
                    }
                }
                let m0 = if truncates {
                    core.send_offline(ch, 2, &m0)?;
                    Some(m0)
                } else {
                    core.send_offline_message(ch, 2, m0)?;
                    None
                };
                for (gi, g) in layer.gates.iter().enumerate() {
                    let mu2: &[u64] = match &m0 {
                        Some(m0) if g.trunc > 0 => m0,
                        _ => &z2,
                    };
                    let (a, b) = (&z1[gi * w..][..w], &mu2[gi * w..][..w]);
                    s.write(g.out, |j| (a[j], b[j]));
                }
                for v in [z1, z2] {
                    ch.recycle(v);
                }
                if let Some(m0) = m0 {
                    ch.recycle(m0);
                }
            }
            1 => {
                let z1 = ch.draw(core.k01(), n);
                let mut c2 = ch.draw(core.k01(), n); // r01, then c2' in place
                let mut m1 = ch.message(n);
                for (gi, g) in layer.gates.iter().enumerate() {
                    let r = gi * w..(gi + 1) * w;
                    let (c2, m1, z1) = (&mut c2[r.clone()], &mut m1[r.clone()], &z1[r]);
                    for (x, y) in program.pairs(g) {
                        let (a2, x1) = (s.get(0, x), s.get(1, x));
                        let (b2, y1) = (s.get(0, y), s.get(1, y));
                        for j in 0..w {
                            let cross = R::add(R::mul(a2[j], y1[j]), R::mul(b2[j], x1[j]));
                            c2[j] = R::add(cross, c2[j]);
                        }
                    }
                    if g.trunc > 0 {
                        // A truncating gate sends c2 itself: u = m2 - c2 = v + e.
                        m1.copy_from_slice(c2);
                    } else {
                        for j in 0..w {
                            m1[j] = R::sub(c2[j], z1[j]);
                        }
                    }
                }
                ch.send_message(2, m1)?;
                let m2 = ch.recv(2, n)?;
                for (gi, g) in layer.gates.iter().enumerate() {
                    let (m2, c2, z1) = (&m2[gi * w..][..w], &c2[gi * w..][..w], &z1[gi * w..][..w]);
                    if g.trunc > 0 {
                        s.write(g.out, |j| {
                            let u = R::shift_masked(R::sub(m2[j], c2[j]), mask, g.trunc);
                            (R::sub(u, z1[j]), z1[j])
                        });
                    } else {
                        s.write(g.out, |j| (R::sub(m2[j], c2[j]), z1[j]));
                    }
                }
                ch.recycle(z1);
                ch.recycle(c2);
                ch.recycle(m2);
            }
            _ => {
                let z2 = ch.draw(core.k02(), n); // r02 for a truncating gate
                let mut c1 = core.recv_offline(ch, n)?; // m0, then c1' in place
                let mut m2 = ch.message(n);
                for (gi, g) in layer.gates.iter().enumerate() {
                    let r = gi * w..(gi + 1) * w;
                    let (c1, m2, z2) = (&mut c1[r.clone()], &mut m2[r.clone()], &z2[r]);
                    if g.trunc > 0 {
                        // m2 = sum a1 b1 + r02; c1 keeps m0, the new mu2.
                        m2.copy_from_slice(z2);
                        for (x, y) in program.pairs(g) {
                            let (a1, b1) = (s.get(0, x), s.get(0, y));
                            for j in 0..w {
                                m2[j] = R::add(R::mul(a1[j], b1[j]), m2[j]);
                            }
                        }
                        continue;
                    }
                    for (x, y) in program.pairs(g) {
                        let (a1, b1) = (s.get(0, x), s.get(0, y));
                        for j in 0..w {
                            c1[j] = R::add(R::mul(a1[j], b1[j]), c1[j]);
                        }
                    }
                    for j in 0..w {
                        m2[j] = R::add(c1[j], z2[j]);
                    }
                }
                let m2 = if truncates {
                    ch.send(1, &m2)?;
                    Some(m2)
                } else {
                    ch.send_message(1, m2)?;
                    None
                };
                let m1 = ch.recv(1, n)?;
                for (gi, g) in layer.gates.iter().enumerate() {
                    let r = gi * w..(gi + 1) * w;
                    let (c1, m1, z2) = (&c1[r.clone()], &m1[r.clone()], &z2[r.clone()]);
                    if let (true, Some(m2)) = (g.trunc > 0, &m2) {
                        let m2 = &m2[r];
                        s.write(g.out, |j| {
                            let u = R::shift_masked(R::sub(m2[j], m1[j]), mask, g.trunc);
                            (R::sub(u, c1[j]), c1[j])
                        });
                    } else {
                        s.write(g.out, |j| (R::sub(c1[j], m1[j]), z2[j]));
                    }
                }
                ch.recycle(z2);
                ch.recycle(c1);
                ch.recycle(m1);
                if let Some(m2) = m2 {
                    ch.recycle(m2);
                }
            }
        }
        Ok(())
    }
}
