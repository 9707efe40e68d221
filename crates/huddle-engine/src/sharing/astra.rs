//! ASTRA (Chaudhari et al.), semi-honest 3PC, per `shared/specs/astra-3pc.md`:
//! m = v + lambda_1 + lambda_2 held by P1 and P2 (see [`super::helper`]).
//! Per multiplication one element P0 -> P2 in preprocessing (gamma_2) and one
//! element each way between P1 and P2 online.
//!
//! Multiplication fused with truncation by f, the same messages: P2 adds
//! r02 (its lambda_z2 draw) instead of gamma_2, so m_z1 + m_z2 = u = v + e
//! with e = lambda_z1 + gamma_1 + r02 - sum lambda_x lambda_y, which only P0
//! knows (r02 hides it from P1, gamma_1 from P2). P1 and P2 take u^t as the
//! new masked value, P1 keeps lambda_z1 and P0 sends P2 e^t - lambda_z1 in
//! gamma_2's place, so the masks sum to e^t and the value is u^t - e^t.

use super::arith::Arith;
use super::cost::Dry;
use super::helper::{Core, Helper, Variant, HELPER};
use super::program::{Layer, Program};
use super::{Channel, Shares};
use crate::descriptor::{Descriptor, Family, PartyRule, Security};
use crate::error::RunError;

/// ASTRA's row of the protocol table.
pub(crate) const DESCRIPTOR: Descriptor = Descriptor {
    name: "astra",
    summary: "ASTRA 3PC, 1 element offline and 2 online per multiplication",
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

pub(crate) struct AstraVariant;

pub(crate) type Astra = Helper<AstraVariant>;

impl Variant for AstraVariant {
    const DESCRIPTOR: &'static Descriptor = &DESCRIPTOR;
    const VALUE_MASKS: [[bool; 2]; 2] = [[true, true], [true, true]];
    const NATIVE_DOT: bool = true;

    /// Per multiplication one element P0 -> P2 in preprocessing (gamma_2,
    /// `shared/specs/astra-3pc.md` §5.1) and one each way between P1 and P2
    /// online (§5.2; §7 counts them).
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
        match core.me {
            HELPER => {
                // Draw order on K01: lambda_z1, then gamma_1; on K02:
                // lambda_z2 (r02 for a truncating gate).
                let lz1 = ch.draw(core.k01(), n);
                let mut g2 = ch.draw(core.k01(), n);
                let lz2 = ch.draw(core.k02(), n);
                // gamma_2 = sum of lambda_x lambda_y - gamma_1
                for (gi, g) in layer.gates.iter().enumerate() {
                    let r = gi * w..(gi + 1) * w;
                    let g2 = &mut g2[r.clone()];
                    g2.iter_mut().for_each(|g| *g = R::neg(*g));
                    for (x, y) in program.pairs(g) {
                        let (x1, x2) = (s.get(0, x), s.get(1, x));
                        let (y1, y2) = (s.get(0, y), s.get(1, y));
                        for (j, g) in g2.iter_mut().enumerate() {
                            let lx = R::add(x1[j], x2[j]);
                            let ly = R::add(y1[j], y2[j]);
                            *g = R::add(R::mul(lx, ly), *g);
                        }
                    }
                    if g.trunc > 0 {
                        // e = lambda_z1 + gamma_1 + r02 - sum lambda_x lambda_y
                        // = lambda_z1 + r02 - gamma_2; P2's new mask is
                        // e^t - lambda_z1, sent instead of gamma_2.
                        let (lz1, r02) = (&lz1[r.clone()], &lz2[r]);
                        for (j, m) in g2.iter_mut().enumerate() {
                            let e = R::sub(R::add(lz1[j], r02[j]), *m);
                            *m = R::sub(R::shift_masked(e, mask, g.trunc), lz1[j]);
                        }
                    }
                }
                core.send_offline(ch, 2, &g2)?;
                for (gi, g) in layer.gates.iter().enumerate() {
                    let mu2 = if g.trunc > 0 { &g2 } else { &lz2 };
                    let (a, b) = (&lz1[gi * w..][..w], &mu2[gi * w..][..w]);
                    s.write(g.out, |j| (a[j], b[j]));
                }
                for v in [lz1, g2, lz2] {
                    ch.recycle(v);
                }
            }
            1 => {
                let lz1 = ch.draw(core.k01(), n);
                let mut mz1 = ch.draw(core.k01(), n); // gamma_1, then m_z1 in place
                for (gi, g) in layer.gates.iter().enumerate() {
                    let lz = &lz1[gi * w..(gi + 1) * w];
                    let mz1 = &mut mz1[gi * w..(gi + 1) * w];
                    for (j, m) in mz1.iter_mut().enumerate() {
                        *m = R::add(lz[j], *m);
                    }
                    for (x, y) in program.pairs(g) {
                        let (mx, lx) = (s.get(0, x), s.get(1, x));
                        let (my, ly) = (s.get(0, y), s.get(1, y));
                        for (j, m) in mz1.iter_mut().enumerate() {
                            let cross = R::add(R::mul(mx[j], ly[j]), R::mul(my[j], lx[j]));
                            *m = R::sub(*m, cross);
                        }
                    }
                }
                ch.send(2, &mz1)?;
                let mz2 = ch.recv(2, n)?;
                finish::<R>(layer, mask, s, &mz1, &mz2, &lz1);
                ch.recycle(lz1);
                ch.recycle(mz1);
                ch.recycle(mz2);
            }
            _ => {
                // lambda_z2 (r02 for a truncating gate, whose slot then takes
                // the new mask from P0); gamma_2, then m_z2 in place.
                let mut lz2 = ch.draw(core.k02(), n);
                let mut mz2 = core.recv_offline(ch, n)?;
                for (gi, g) in layer.gates.iter().enumerate() {
                    let lz = &mut lz2[gi * w..(gi + 1) * w];
                    let mz2 = &mut mz2[gi * w..(gi + 1) * w];
                    if g.trunc > 0 {
                        mz2.swap_with_slice(lz);
                    } else {
                        for (j, m) in mz2.iter_mut().enumerate() {
                            *m = R::add(lz[j], *m);
                        }
                    }
                    for (x, y) in program.pairs(g) {
                        let (mx, lx) = (s.get(0, x), s.get(1, x));
                        let (my, ly) = (s.get(0, y), s.get(1, y));
                        for (j, m) in mz2.iter_mut().enumerate() {
                            let cross = R::add(R::mul(mx[j], ly[j]), R::mul(my[j], lx[j]));
                            let local = R::sub(R::mul(mx[j], my[j]), cross);
                            *m = R::add(local, *m);
                        }
                    }
                }
                ch.send(1, &mz2)?;
                let mz1 = ch.recv(1, n)?;
                finish::<R>(layer, mask, s, &mz1, &mz2, &lz2);
                ch.recycle(lz2);
                ch.recycle(mz1);
                ch.recycle(mz2);
            }
        }
        Ok(())
    }
}

/// P1 and P2: m_z = m_z1 + m_z2 (shifted for a truncating gate), and their
/// lambda_z as the second component.
#[inline(always)]
fn finish<R: Arith>(layer: &Layer, mask: u64, s: &mut Shares, a: &[u64], b: &[u64], lz: &[u64]) {
    let w = s.w;
    for (gi, g) in layer.gates.iter().enumerate() {
        let (a, b, lz) = (&a[gi * w..][..w], &b[gi * w..][..w], &lz[gi * w..][..w]);
        if g.trunc > 0 {
            s.write(g.out, |j| {
                (R::shift_masked(R::add(a[j], b[j]), mask, g.trunc), lz[j])
            });
        } else {
            s.write(g.out, |j| (R::add(a[j], b[j]), lz[j]));
        }
    }
}
