//! ca2pc's probabilistic truncation (`DOTTR` with `--truncation
//! probabilistic`), dealer-assisted, one message: ⌊z/2^f⌋ or one more,
//! the one more decided by the dealer's randomness alone, which no
//! computing party knows; off by 2^(k−f) when z + r leaves [0, 2^k), as
//! in the other protocols' fused truncation.
//!
//! **Dealt** (per truncated element, ahead of the layer): a uniform
//! r = r⁰ + r¹ (r⁰ from K02, r¹ from K12: no message) and additive shares
//! of t = ⌊r/2^f⌋, r read as an unsigned number in [0, 2^k): t⁰ from K02,
//! t¹ = t − t⁰ sent to P1 in the layer's message of corrections (one
//! element).
//!
//! **Online**, after the product's round, c = z + r is opened to one
//! party only, the *opener* O: the other party L sends its share
//! c^L = z^L + r^L (one element, one round). The shares of the result are
//!
//!   y^O = ⌊c/2^f⌋ − t^O   (c read unsigned),   y^L = −t^L.
//!
//! L's share needs no message, so L goes on to the next layer at once and
//! only O's next message waits for c: one more round per truncating layer.
//!
//! **Why.** Read z as a signed integer in [−2^(k−1), 2^(k−1)) and let
//! s = z + r as integers. Then c = s − 2^k·q with q = ⌊s/2^k⌋ ∈ {−1, 0, 1},
//! and as 2^f divides 2^k, ⌊c/2^f⌋ = ⌊s/2^f⌋ − 2^(k−f)·q, with
//! ⌊s/2^f⌋ = ⌊z/2^f⌋ + ⌊r/2^f⌋ + u for the carry of the low bits
//! u = [(z mod 2^f) + (r mod 2^f) ≥ 2^f]. So
//!
//!   y^O + y^L = ⌊c/2^f⌋ − t = ⌊z/2^f⌋ + u − 2^(k−f)·q   (mod 2^k):
//!
//! - one more (u = 1) with probability exactly (z mod 2^f)/2^f, decided by
//!   r mod 2^f alone;
//! - off by −2^(k−f) when z + r ≥ 2^k (only for z > 0: z of the 2^k
//!   values of r) and by +2^(k−f) when z + r < 0 (only for z < 0: |z| of
//!   them), so with probability exactly |z|/2^k; never at z = 0.
//!
//! Nothing limits f: every f from 1 to k − 1 (all that `DOTTR` allows).
//!
//! **Views.** The dealer receives nothing. O receives c^L, uniform (r^L
//! comes from L's key with the dealer), and P1 receives t¹, uniform (t⁰
//! comes from K02); L receives nothing here. L holds r^L and t^L and not r^O, so r, and with it u and
//! q, is independent of everything L holds. O is chosen to be the party
//! that does not learn the outputs (P1 when both do): then the output
//! learner's view is that of an ideal probabilistic truncation with this
//! error. A party that knows c *and* learns y learns ⌊r/2^f⌋ = ⌊c/2^f⌋ − y,
//! the top k − f bits of c − z: beyond y, that its rounding is
//! u = [(z mod 2^f) > (c mod 2^f)], one comparison of the secret's low
//! bits with a value it knows (and so of any output that depends on u).
//! This happens with outputs to both parties, at O.

use crate::error::RunError;
use crate::sharing::arith::Arith;
use crate::sharing::Channel;
use huddle_core::Prg;
use huddle_net::PartyId;

/// Elements the dealer sends P1 per truncated element: t¹.
pub(super) const DEALT: usize = 1;

/// The party that opens c: the one that does not learn the outputs, P1
/// when both do (`reveal_to` None).
pub(super) fn opener(reveal_to: Option<PartyId>) -> PartyId {
    if reveal_to == Some(1) {
        0
    } else {
        1
    }
}

/// Elements of Z_2^k truncated by f bits, in words of `R`.
#[derive(Clone, Copy)]
struct Shift {
    /// 2^k − 1.
    mask: u64,
    f: u8,
}

impl Shift {
    fn new(k: u32, f: u8) -> Self {
        Shift {
            mask: u64::MAX >> (64 - k),
            f,
        }
    }

    /// t = ⌊r/2^f⌋ of every element, r read unsigned.
    #[inline(always)]
    fn dealt<R: Arith>(self, r: u64) -> u64 {
        R::shift_masked(r, self.mask, self.f)
    }

    /// The opener's share of the result from c (whole) and its t^O.
    #[inline(always)]
    fn opener_share<R: Arith>(self, c: u64, t: u64) -> u64 {
        R::sub(R::shift_masked(c, self.mask, self.f), t)
    }

    /// The other party's share of the result from its t^L.
    #[inline(always)]
    fn other_share<R: Arith>(t: u64) -> u64 {
        R::neg(t)
    }
}

/// At the dealer: draws r⁰, t⁰ (K02) and r¹ (K12) for the truncated
/// elements, `w` words for each gate truncated by `fs[g]` bits in Z_2^k,
/// and appends P1's t¹ to `out`.
pub(super) fn deal<R: Arith>(
    ch: &mut Channel,
    k02: &mut Prg,
    k12: &mut Prg,
    k: u32,
    fs: &[u8],
    w: usize,
    out: &mut Vec<u64>,
) {
    let n = fs.len() * w;
    let r0 = ch.draw(k02, n);
    let t0 = ch.draw(k02, n);
    let r1 = ch.draw(k12, n);
    let start = out.len();
    out.resize(start + n, 0);
    let t1 = &mut out[start..];
    for (g, &f) in fs.iter().enumerate() {
        let shift = Shift::new(k, f);
        for i in g * w..(g + 1) * w {
            t1[i] = R::sub(shift.dealt::<R>(R::add(r0[i], r1[i])), t0[i]);
        }
    }
    for v in [r0, t0, r1] {
        ch.recycle(v);
    }
}

/// A layer's truncated products at a computing party.
pub(super) struct Truncating<'a> {
    /// Z_2^k.
    pub k: u32,
    /// Per truncated gate: its index in the layer and f.
    pub gates: &'a [(usize, u8)],
    /// Words per slot.
    pub w: usize,
    pub opener: PartyId,
}

/// At computing party `me`: replaces the shares of the truncated gates'
/// products in `sums` (`w` words per gate of the layer) with shares of
/// their truncations. `key` is the key this party shares with the dealer
/// (K02 at P0, K12 at P1); `dealt` (at P1) its t¹.
pub(super) fn truncate<R: Arith>(
    ch: &mut Channel,
    me: PartyId,
    job: &Truncating,
    sums: &mut [u64],
    key: &mut Prg,
    dealt: &[u64],
) -> Result<(), RunError> {
    let w = job.w;
    let n = job.gates.len() * w;
    let r = ch.draw(key, n);
    let t = if me == 0 {
        ch.draw(key, n)
    } else {
        let mut t = ch.buffer(n);
        t.copy_from_slice(&dealt[..n]);
        t
    };
    // This party's share of c = z + r.
    let mut c = ch.buffer(n);
    for (g, &(gate, _)) in job.gates.iter().enumerate() {
        for j in 0..w {
            c[g * w + j] = R::add(sums[gate * w + j], r[g * w + j]);
        }
    }
    if me == job.opener {
        let theirs = ch.recv(1 - me, n)?;
        for (g, &(gate, f)) in job.gates.iter().enumerate() {
            let shift = Shift::new(job.k, f);
            for j in 0..w {
                let i = g * w + j;
                sums[gate * w + j] = shift.opener_share::<R>(R::add(c[i], theirs[i]), t[i]);
            }
        }
        ch.recycle(theirs);
    } else {
        ch.send(job.opener, &c)?;
        for (g, &(gate, _)) in job.gates.iter().enumerate() {
            for j in 0..w {
                sums[gate * w + j] = Shift::other_share::<R>(t[g * w + j]);
            }
        }
    }
    for v in [r, t, c] {
        ch.recycle(v);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sharing::arith::{lane, Packed, Ring};

    /// Every z and every r of Z_2^8, for each f from 1 to 7, the shares
    /// split at random and either party opening: the result is exactly
    /// ⌊z/2^f⌋ + u − 2^(8−f)·q (z signed) with
    /// u = [(z mod 2^f) + (r mod 2^f) ≥ 2^f] and q = ⌊(z + r)/2^8⌋; over
    /// the 256 values of r, u = 1 exactly (z mod 2^f)·2^(8−f) times and
    /// q ≠ 0 exactly |z| times.
    fn exhaustive<R: Arith>() {
        let mut split = Prg::from_seed([1; 16]);
        let lanes = R::LANES;
        // Additive shares of a word.
        let share = |split: &mut Prg, v: u64| {
            let s = split.next_u64();
            (s, R::sub(v, s))
        };
        // v (below 2^8) in every element of a word.
        let splat = |v: i64| R::ONE.wrapping_mul(v as u64 & 0xff);
        for f in 1..=7u8 {
            let shift = Shift::new(8, f);
            for z in -128i64..128 {
                let (mut up, mut wrapped) = (0, 0);
                for r in 0..256i64 {
                    let u = i64::from((z & ((1 << f) - 1)) + (r & ((1 << f) - 1)) >= 1 << f);
                    let q = (z + r).div_euclid(256);
                    let want = ((z >> f) + u - (q << (8 - f))) as u64 & 0xff;
                    up += u;
                    wrapped += i64::from(q != 0);
                    let (z0, z1) = share(&mut split, splat(z));
                    let (r0, r1) = share(&mut split, splat(r));
                    let (t0, t1) = share(&mut split, shift.dealt::<R>(R::add(r0, r1)));
                    let c = R::add(R::add(z0, r0), R::add(z1, r1));
                    for (at_opener, at_other) in [(t0, t1), (t1, t0)] {
                        let y = R::add(
                            shift.opener_share::<R>(c, at_opener),
                            Shift::other_share::<R>(at_other),
                        );
                        for i in 0..lanes {
                            let got = lane(y, 64 / lanes as u32, i) & 0xff;
                            assert_eq!(got, want, "f {f} z {z} r {r} lane {i}");
                        }
                    }
                }
                assert_eq!(up, (z & ((1 << f) - 1)) << (8 - f), "f {f} z {z}: rounding");
                assert_eq!(wrapped, z.abs(), "f {f} z {z}: wraps");
            }
        }
    }

    #[test]
    fn the_shares_truncate_every_z_of_z_2_8_over_every_r_as_stated() {
        exhaustive::<Ring>();
        exhaustive::<Packed<8>>();
    }

    #[test]
    fn the_opener_is_the_party_that_does_not_learn() {
        assert_eq!(opener(Some(0)), 1);
        assert_eq!(opener(Some(1)), 0);
        assert_eq!(opener(None), 1);
    }
}
