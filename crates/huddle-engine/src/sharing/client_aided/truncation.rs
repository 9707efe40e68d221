//! ca2pc's probabilistic truncation (`DOTTR` with `--truncation
//! probabilistic`), dealer-assisted: ⌊z/2^f⌋ or one more, never further
//! off while −2^(k−2) ≤ z < 2^(k−2), and the one more decided by the
//! dealer's randomness alone, which no computing party knows.
//!
//! **Dealt** (per truncated element, ahead of the layer, in the dealer's
//! correction message to P1): a uniform r = r⁰ + r¹ (r⁰ from K02, r¹ from
//! K12: no message), written r = 2^(k−1)·b + r' with r' < 2^(k−1), and
//! additive shares of t = ⌊r'/2^f⌋ and of the bit b (P0's from K02; P1's,
//! t¹ = t − t⁰ and b¹ = b − b⁰, sent: two elements).
//!
//! **Online**, after the product's round: the parties shift z by 2^(k−2)
//! (the opener adds it), so z' = z + 2^(k−2) lies in [0, 2^(k−1)), and
//! open c = z' + r to one party only, the *opener* O: the other party L
//! sends its share c^L = z^L + r^L (one element). O sends L the top bit
//! c_msb of every element back (one bit). Then with c' = c mod 2^(k−1),
//! since z' has no top bit, c_msb = b ⊕ v for the carry v of z' + r' into
//! bit k−1, and z' + r' = c' + 2^(k−1)·v exactly; so
//!
//!   ⌊z'/2^f⌋ + u = ⌊c'/2^f⌋ − t + 2^(k−1−f)·(c_msb ⊕ b),
//!
//! with u = [(c' mod 2^f) < (r' mod 2^f)] ∈ {0, 1} the borrow of the low
//! bits, i.e. u = [(z mod 2^f) + (r mod 2^f) ≥ 2^f]: one more with
//! probability (z mod 2^f)/2^f over r. c_msb ⊕ b = c_msb + (1 − 2·c_msb)·b
//! is linear in the shared b once both know c_msb; and ⌊z'/2^f⌋ −
//! 2^(k−2−f) = ⌊z/2^f⌋ (f ≤ k − 2: the shift is a multiple of 2^f). The
//! shares of the result:
//!
//!   y^O = ⌊c'/2^f⌋ − t^O + 2^(k−1−f)·(c_msb + (1 − 2·c_msb)·b^O) − 2^(k−2−f),
//!   y^L = −t^L + 2^(k−1−f)·(1 − 2·c_msb)·b^L.
//!
//! **Outside the range** (z ≥ 2^(k−2) or z < −2^(k−2)) z' has its top bit
//! set and the carry comes out negated: the result is off by 2^(k−f) (mod
//! 2^k) exactly when the low k−1 bits of z' + r carry, with probability
//! (|z| − 2^(k−2))/2^(k−1) (from 0 at the bound to 1/2 at |z| = 2^(k−1)),
//! else ⌊z/2^f⌋ or one more. That is below the |z|/2^k of the masked
//! wrap-around of the other protocols' fused truncation everywhere.
//!
//! **Views.** c is uniform (r is), and O knows neither r^L nor t, b: its
//! view is c and its own shares. L sees only c_msb = b ⊕ v, uniform and
//! independent of z and r' (b is uniform and hidden from it), and its own
//! shares, all independent of r mod 2^f: so the one more, u, is
//! independent of everything L holds. O is chosen to be the party that does
//! not learn the outputs (P1 when both do): then the output learner's view
//! is the ideal probabilistic truncation's. A party that knows c *and*
//! learns an output that depends on u learns u = [(z mod 2^f) > (c mod
//! 2^f)], one comparison of the secret's low bits with a value it knows:
//! this happens with outputs to both parties, at O.
//!
//! **Why two messages.** c must not reach L (or L learns that comparison).
//! With c at O alone and shares ⌊c/2^f⌋ − ⌊r/2^f⌋ (one message) the result
//! is off by 2^(k−f) whenever z + r wraps around 2^k, with probability
//! |z|/2^k, as in the other protocols. The carry term removes that, but a
//! share of 2^(k−1−f)·(c_msb ⊕ b) that L computes without c_msb leaves O
//! shares for c_msb = 0 and 1 that differ by 2^(k−1−f)·(1 − 2b), which
//! tells O the bit b and then, with c, the carry v = [c' < z']: a
//! comparison of the whole secret. So c_msb travels back.

use crate::sharing::arith::Arith;
use crate::sharing::{recv_raw, send_raw_tagged, Channel};
use crate::ttp::RunError;
use huddle_core::Prg;
use huddle_net::PartyId;

/// Elements the dealer sends P1 per truncated element: t¹ and b¹.
pub const DEALT: usize = 2;

/// The party that opens c: the one that does not learn the outputs, P1
/// when both do (`reveal_to` None).
pub fn opener(reveal_to: Option<PartyId>) -> PartyId {
    if reveal_to == Some(1) {
        0
    } else {
        1
    }
}

/// Whether a truncation by `f` bits in Z_2^k fits the construction (the
/// shift 2^(k−2) must be a multiple of 2^f).
pub fn fits(f: u8, k: u32) -> bool {
    u32::from(f) + 2 <= k
}

/// k-bit elements in words of `R` (one, or 64/k packed side by side).
#[derive(Clone, Copy)]
struct Elements<R> {
    k: u32,
    /// The top bit of every element.
    tops: u64,
    /// 2^k − 1 (for `shift_masked` of unpacked words).
    mask: u64,
    _r: std::marker::PhantomData<R>,
}

impl<R: Arith> Elements<R> {
    fn new(k: u32) -> Self {
        Elements {
            k,
            tops: R::ONE << (k - 1),
            mask: u64::MAX >> (64 - k),
            _r: std::marker::PhantomData,
        }
    }

    /// `c` (below 2^k) in every element.
    #[inline(always)]
    fn splat(c: u64) -> u64 {
        R::ONE.wrapping_mul(c)
    }

    /// ⌊(x mod 2^(k−1)) / 2^f⌋ of every element.
    #[inline(always)]
    fn low_shifted(&self, x: u64, f: u8) -> u64 {
        R::shift_masked(x & !self.tops, self.mask, f)
    }

    /// The top bit of every element, as 0 or 1.
    #[inline(always)]
    fn top(&self, x: u64) -> u64 {
        (x & self.tops) >> (self.k - 1)
    }

    /// The dealt pair of r: (t, b) = (⌊r'/2^f⌋, b).
    #[inline(always)]
    fn dealt(&self, r: u64, f: u8) -> (u64, u64) {
        (self.low_shifted(r, f), self.top(r))
    }

    /// 2^(k−1−f)·(1 − 2·m)·b for m the top bits of c (0 or 1 each).
    #[inline(always)]
    fn carry_part(&self, m: u64, b: u64, f: u8) -> u64 {
        let sign = R::sub(R::ONE, R::add(m, m));
        R::mul(
            R::mul(sign, b),
            Self::splat(1 << (self.k - 1 - u32::from(f))),
        )
    }

    /// O's share of the result from c (whole), its t^O and b^O.
    #[inline(always)]
    fn opener_share(&self, c: u64, t: u64, b: u64, f: u8) -> u64 {
        let m = self.top(c);
        let scale = Self::splat(1 << (self.k - 1 - u32::from(f)));
        let carry = R::add(R::mul(m, scale), self.carry_part(m, b, f));
        let shift = Self::splat(1 << (self.k - 2 - u32::from(f)));
        R::sub(R::add(R::sub(self.low_shifted(c, f), t), carry), shift)
    }

    /// L's share of the result from c's top bits m, its t^L and b^L.
    #[inline(always)]
    fn learner_share(&self, m: u64, t: u64, b: u64, f: u8) -> u64 {
        R::sub(self.carry_part(m, b, f), t)
    }

    /// The shift 2^(k−2) that brings z into [0, 2^(k−1)).
    fn shift(&self) -> u64 {
        Self::splat(1 << (self.k - 2))
    }
}

/// At the dealer: draws r⁰, t⁰, b⁰ (K02) and r¹ (K12) for the truncated
/// elements, `w` words for each gate truncated by `fs[g]` bits in Z_2^k,
/// and appends P1's t¹ then b¹ to `out`.
pub fn deal<R: Arith>(
    ch: &mut Channel,
    k02: &mut Prg,
    k12: &mut Prg,
    k: u32,
    fs: &[u8],
    w: usize,
    out: &mut Vec<u64>,
) {
    let e = Elements::<R>::new(k);
    let n = fs.len() * w;
    let r0 = ch.draw(k02, n);
    let t0 = ch.draw(k02, n);
    let b0 = ch.draw(k02, n);
    let r1 = ch.draw(k12, n);
    let start = out.len();
    out.resize(start + 2 * n, 0);
    let (t1, b1) = out[start..].split_at_mut(n);
    for (g, &f) in fs.iter().enumerate() {
        for i in g * w..(g + 1) * w {
            let (t, b) = e.dealt(R::add(r0[i], r1[i]), f);
            t1[i] = R::sub(t, t0[i]);
            b1[i] = R::sub(b, b0[i]);
        }
    }
    for v in [r0, t0, b0, r1] {
        ch.recycle(v);
    }
}

/// A layer's truncated products at a computing party.
pub struct Truncating<'a> {
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
/// (K02 at P0, K12 at P1); `dealt` (at P1) its t¹ then b¹.
pub fn truncate<R: Arith>(
    ch: &mut Channel,
    me: PartyId,
    job: &Truncating,
    sums: &mut [u64],
    key: &mut Prg,
    dealt: &[u64],
) -> Result<(), RunError> {
    let (e, w) = (Elements::<R>::new(job.k), job.w);
    let n = job.gates.len() * w;
    let r = ch.draw(key, n);
    let (t, b) = if me == 0 {
        (ch.draw(key, n), ch.draw(key, n))
    } else {
        let mut copy = |from: &[u64]| {
            let mut v = ch.buffer(n);
            v.copy_from_slice(from);
            v
        };
        (copy(&dealt[..n]), copy(&dealt[n..2 * n]))
    };
    // This party's share of c = z + 2^(k−2) + r.
    let mut c = ch.buffer(n);
    for (g, &(gate, _)) in job.gates.iter().enumerate() {
        for j in 0..w {
            c[g * w + j] = R::add(sums[gate * w + j], r[g * w + j]);
        }
    }
    // Elements per slot (the last packed word of a slot may hold fewer).
    let per_slot = ch.encoding().elements(w);
    let top_bits = TopBits::<R>::new(job.k, w, per_slot, job.gates.len());
    if me == job.opener {
        let theirs = ch.recv(1 - me, n)?;
        for (c, &t) in c.iter_mut().zip(theirs.iter()) {
            *c = R::add(R::add(*c, t), e.shift());
        }
        ch.recycle(theirs);
        let bits = top_bits.pack(&c, e.tops);
        send_raw_tagged(ch, 0, 1 - me, &bits)?;
        for (g, &(gate, f)) in job.gates.iter().enumerate() {
            for j in 0..w {
                let i = g * w + j;
                sums[gate * w + j] = e.opener_share(c[i], t[i], b[i], f);
            }
        }
    } else {
        ch.send(job.opener, &c)?;
        let bits = recv_raw(ch, job.opener, top_bits.words())?;
        for (g, &(gate, f)) in job.gates.iter().enumerate() {
            for j in 0..w {
                let i = g * w + j;
                let m = top_bits.unpack(&bits, g, j);
                sums[gate * w + j] = e.learner_share(m, t[i], b[i], f);
            }
        }
        ch.recycle(bits);
    }
    for v in [r, t, b, c] {
        ch.recycle(v);
    }
    Ok(())
}

/// The top bits of c, one per element that holds an instance, packed 64 to
/// a word (gate after gate, element after element).
struct TopBits<R> {
    k: u32,
    w: usize,
    per_slot: usize,
    gates: usize,
    _r: std::marker::PhantomData<R>,
}

impl<R: Arith> TopBits<R> {
    fn new(k: u32, w: usize, per_slot: usize, gates: usize) -> Self {
        TopBits {
            k,
            w,
            per_slot,
            gates,
            _r: std::marker::PhantomData,
        }
    }

    fn words(&self) -> usize {
        (self.gates * self.per_slot).div_ceil(64)
    }

    /// Bits between the elements of a word.
    const STRIDE: usize = 64 / R::LANES;

    /// The top bits of the elements of `c` (gate g's slot at words g·w..).
    fn pack(&self, c: &[u64], tops: u64) -> Vec<u64> {
        let mut bits = vec![0u64; self.words()];
        for g in 0..self.gates {
            for e in 0..self.per_slot {
                let word = c[g * self.w + e / R::LANES] & tops;
                let bit = word >> (Self::STRIDE * (e % R::LANES) + self.k as usize - 1) & 1;
                let at = g * self.per_slot + e;
                bits[at / 64] |= bit << (at % 64);
            }
        }
        bits
    }

    /// Word j of gate g's slot: each element's top bit as 0 or 1 (0 in
    /// lanes that hold no instance).
    fn unpack(&self, bits: &[u64], g: usize, j: usize) -> u64 {
        let mut m = 0;
        for lane in 0..R::LANES {
            let e = j * R::LANES + lane;
            if e >= self.per_slot {
                break;
            }
            let at = g * self.per_slot + e;
            m |= (bits[at / 64] >> (at % 64) & 1) << (Self::STRIDE * lane);
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sharing::arith::{lane, Packed, Ring};

    /// Every z and every r of Z_2^8, for each f: the shares' result
    /// against ⌊z/2^f⌋ (z signed), counted over r: in range one more
    /// exactly (z mod 2^f)·2^(8−f) times of 256 and never further off;
    /// outside it off by 2^(8−f) exactly 2·(|z| − 64) times.
    fn exhaustive<R: Arith>() {
        let k = 8;
        let e = Elements::<R>::new(k);
        let mut split = Prg::from_seed([1; 16]);
        let lanes = R::LANES;
        for f in 1..=6u8 {
            for z in -128i64..128 {
                let (mut up, mut off) = (0, 0);
                for r in 0..256u64 {
                    // Shares of z and r, split at random, in every lane.
                    let share = |split: &mut Prg, v: u64| {
                        let s = split.next_u64();
                        let v = Elements::<R>::splat(v & 0xff);
                        (s, R::sub(v, s))
                    };
                    let (z0, z1) = share(&mut split, z as u64);
                    let (r0, r1) = share(&mut split, r);
                    let (t, b) = e.dealt(R::add(r0, r1), f);
                    let (t0, b0) = (split.next_u64(), split.next_u64());
                    let (t1, b1) = (R::sub(t, t0), R::sub(b, b0));
                    // P1 opens: c = z + 2^(k−2) + r.
                    let c = R::add(R::add(R::add(z0, r0), R::add(z1, r1)), e.shift());
                    let y = R::add(
                        e.opener_share(c, t1, b1, f),
                        e.learner_share(e.top(c), t0, b0, f),
                    );
                    let want = (z >> f) as u64 & 0xff;
                    let got = lane(y, 64 / lanes as u32, 0) & 0xff;
                    for i in 1..lanes {
                        assert_eq!(lane(y, 64 / lanes as u32, i) & 0xff, got, "lanes agree");
                    }
                    match got.wrapping_sub(want) & 0xff {
                        0 => {}
                        1 => up += 1,
                        d if d == 1 << (8 - f) || d == (1 << (8 - f)) + 1 => off += 1,
                        d if d == (1u64 << (8 - f)).wrapping_neg() & 0xff
                            || d == (1u64 << (8 - f)).wrapping_neg().wrapping_add(1) & 0xff =>
                        {
                            off += 1
                        }
                        d => panic!("f {f} z {z} r {r}: off by {d:#x}"),
                    }
                }
                if (-64..64).contains(&z) {
                    assert_eq!(off, 0, "f {f} z {z}: in range");
                    assert_eq!(up, (z as u64 & ((1 << f) - 1)) << (8 - f), "f {f} z {z}");
                } else {
                    assert_eq!(off, 2 * (z.abs() - 64), "f {f} z {z}: outside the range");
                }
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
        assert!(fits(6, 8) && !fits(7, 8) && fits(62, 64) && !fits(63, 64));
    }

    #[test]
    fn top_bits_travel_per_instance() {
        // 16-bit elements four to a word, 6 instances a slot (two words,
        // the second half empty), two gates: 12 bits.
        let t = TopBits::<Packed<16>>::new(16, 2, 6, 2);
        assert_eq!(t.words(), 1);
        let tops = Packed::<16>::ONE << 15;
        let c = [
            0x8000_0000_8000_0000u64,
            0xffff_ffff_0000_8000,
            0x0000_8000_0000_0000,
            0x8000_0000_0000_ffff,
        ];
        let bits = t.pack(&c, tops);
        assert_eq!(bits, vec![0b0101_0001_1010]);
        assert_eq!(t.unpack(&bits, 0, 0), 0x0001_0000_0001_0000);
        assert_eq!(t.unpack(&bits, 0, 1), 0x0000_0000_0000_0001);
        assert_eq!(t.unpack(&bits, 1, 0), 0x0000_0001_0000_0000);
        assert_eq!(t.unpack(&bits, 1, 1), 0x0000_0000_0000_0001);
    }
}
