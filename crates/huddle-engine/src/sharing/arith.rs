//! The share domains as one interface: a `u64` is a bitsliced word of 64
//! Boolean instances (+ and - are XOR, * is AND), one ring element of Z_2^k
//! kept mod 2^64 (wrapping arithmetic; reduced mod 2^k only when sent or
//! revealed, which is sound because 2^k divides 2^64), or 64/k elements of
//! Z_2^k packed side by side (lane i in bits ki..k(i+1), each lane computed
//! exactly mod 2^k). Protocols write their formulas once against this trait
//! and run in every domain.
//!
//! Packing is what makes narrow rings cheap: a 32-bit product moves, draws
//! and stores half the bytes of a 64-bit one. It serves ring-only programs;
//! a mixed program's conversions move elements one by one and keep one
//! element per word ([`super::program::Program::ring_lanes`]).

/// Arithmetic on share words.
pub(crate) trait Arith: Copy + Send + Sync + 'static {
    /// The circuit domain whose shares these are.
    const DOMAIN: huddle_circuit::Domain;
    /// Instances per word.
    const LANES: usize;
    /// The element 1 (all ones for bitsliced words: 1 in every instance).
    const ONE: u64;
    /// The inverse of 3 (1 in Z_2; 0xAA..AB mod 2^64, hence mod every 2^k).
    const INV3: u64;
    fn add(a: u64, b: u64) -> u64;
    fn sub(a: u64, b: u64) -> u64;
    fn mul(a: u64, b: u64) -> u64;
    fn neg(a: u64) -> u64;
    /// Probabilistic truncation's local step on a masked value u of Z_2^k
    /// (`mask` = 2^k − 1): each element read as unsigned, shifted right by
    /// `f`. With u = v + e for a uniform e, ⌊u/2^f⌋ − ⌊e/2^f⌋ is ⌊v/2^f⌋ or
    /// one more unless v + e wraps around 2^k (probability |v|/2^k).
    #[inline(always)]
    fn shift_masked(u: u64, mask: u64, f: u8) -> u64 {
        (u & mask) >> f
    }
}

/// `prod[m]` = the product of value(i) over the bits i of m, for every subset
/// m of the operands (`prod[0]` = 1): each from one smaller subset, one
/// multiplication per entry (the l-input products of MFI-3PC and ca2pc).
#[inline]
pub(crate) fn subset_products<R: Arith>(prod: &mut [u64], value: impl Fn(usize) -> u64) {
    prod[0] = R::ONE;
    for m in 1..prod.len() {
        prod[m] = R::mul(prod[m & (m - 1)], value(m.trailing_zeros() as usize));
    }
}

/// Bitsliced Boolean words.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bits;

impl Arith for Bits {
    const DOMAIN: huddle_circuit::Domain = huddle_circuit::Domain::Bit;
    const LANES: usize = 64;
    const ONE: u64 = u64::MAX;
    const INV3: u64 = u64::MAX;
    #[inline(always)]
    fn add(a: u64, b: u64) -> u64 {
        a ^ b
    }
    #[inline(always)]
    fn sub(a: u64, b: u64) -> u64 {
        a ^ b
    }
    #[inline(always)]
    fn mul(a: u64, b: u64) -> u64 {
        a & b
    }
    #[inline(always)]
    fn neg(a: u64) -> u64 {
        a
    }
}

/// Ring elements mod 2^k, computed mod 2^64.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ring;

impl Arith for Ring {
    const DOMAIN: huddle_circuit::Domain = huddle_circuit::Domain::Ring;
    const LANES: usize = 1;
    const ONE: u64 = 1;
    const INV3: u64 = 0xAAAA_AAAA_AAAA_AAAB;
    #[inline(always)]
    fn add(a: u64, b: u64) -> u64 {
        a.wrapping_add(b)
    }
    #[inline(always)]
    fn sub(a: u64, b: u64) -> u64 {
        a.wrapping_sub(b)
    }
    #[inline(always)]
    fn mul(a: u64, b: u64) -> u64 {
        a.wrapping_mul(b)
    }
    #[inline(always)]
    fn neg(a: u64) -> u64 {
        a.wrapping_neg()
    }
}

/// 64/K elements of Z_2^K per word, lane i in bits K·i..K·(i+1) (K = 8,
/// 16 or 32). Sums and differences are computed on the whole word with the
/// carries kept out of the neighbouring lane (the top bit of each lane is
/// added separately, as an XOR); products lane by lane.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Packed<const K: u32>;

impl<const K: u32> Packed<K> {
    /// 1 in every lane.
    const ONES: u64 = u64::MAX / ((1u64 << K) - 1);
    /// The top bit of every lane.
    const TOPS: u64 = Self::ONES << (K - 1);
    /// A lane's mask, in lane 0.
    const LANE: u64 = (1u64 << K) - 1;

    /// `c` (its low K bits) in every lane.
    #[inline(always)]
    pub(crate) const fn splat(c: u64) -> u64 {
        (c & Self::LANE).wrapping_mul(Self::ONES)
    }
}

impl<const K: u32> Arith for Packed<K> {
    const DOMAIN: huddle_circuit::Domain = huddle_circuit::Domain::Ring;
    const LANES: usize = 64 / K as usize;
    const ONE: u64 = Self::ONES;
    const INV3: u64 = Self::splat(0xAAAA_AAAA_AAAA_AAAB);
    #[inline(always)]
    fn add(a: u64, b: u64) -> u64 {
        ((a & !Self::TOPS).wrapping_add(b & !Self::TOPS)) ^ ((a ^ b) & Self::TOPS)
    }
    #[inline(always)]
    fn sub(a: u64, b: u64) -> u64 {
        ((a | Self::TOPS).wrapping_sub(b & !Self::TOPS)) ^ ((a ^ !b) & Self::TOPS)
    }
    #[inline(always)]
    fn mul(a: u64, b: u64) -> u64 {
        if K == 32 {
            // Two 32 x 32-bit products (one PMULUDQ each when vectorized).
            let lo = (a & Self::LANE).wrapping_mul(b & Self::LANE) & Self::LANE;
            let hi = (a >> 32).wrapping_mul(b >> 32) << 32;
            lo | hi
        } else {
            let mut out = 0;
            for i in 0..Self::LANES {
                let s = K as usize * i;
                out |= ((a >> s).wrapping_mul(b >> s) & Self::LANE) << s;
            }
            out
        }
    }
    #[inline(always)]
    fn neg(a: u64) -> u64 {
        Self::sub(0, a)
    }
    #[inline(always)]
    fn shift_masked(u: u64, _mask: u64, f: u8) -> u64 {
        (u >> f) & Self::splat(Self::LANE >> f)
    }
}

/// Lane `i` of a packed word of K-bit lanes.
#[inline(always)]
pub(crate) fn lane(word: u64, bits: u32, i: usize) -> u64 {
    let v = word >> (bits as usize * i);
    if bits == 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_of_three() {
        assert_eq!(Ring::mul(3, Ring::INV3), 1);
        for k in [16u32, 32] {
            assert_eq!(Ring::mul(3, Ring::INV3) & ((1u64 << k) - 1), 1);
        }
        assert_eq!(
            Bits::mul(
                Bits::add(Bits::ONE, Bits::add(Bits::ONE, Bits::ONE)),
                Bits::INV3
            ),
            Bits::ONE
        );
    }

    fn check_packed<const K: u32>(a: u64, b: u64, f: u8) {
        let r = huddle_core::RingWidth::from_bits(K).expect("width");
        let each = |x: u64, y: u64, z: u64, op: &dyn Fn(u64, u64) -> u64| {
            for i in 0..Packed::<K>::LANES {
                let want = r.reduce(op(lane(x, K, i), lane(y, K, i)));
                assert_eq!(lane(z, K, i), want, "K={K} lane {i}");
            }
        };
        each(a, b, Packed::<K>::add(a, b), &|x, y| x.wrapping_add(y));
        each(a, b, Packed::<K>::sub(a, b), &|x, y| x.wrapping_sub(y));
        each(a, b, Packed::<K>::mul(a, b), &|x, y| x.wrapping_mul(y));
        each(a, 0, Packed::<K>::neg(a), &|x, _| x.wrapping_neg());
        let f = f % K as u8;
        each(a, 0, Packed::<K>::shift_masked(a, r.mask(), f), &|x, _| {
            Ring::shift_masked(x, r.mask(), f)
        });
        let one = Packed::<K>::mul(a, Packed::<K>::ONE);
        assert_eq!(one, a);
        assert_eq!(
            Packed::<K>::mul(Packed::<K>::splat(3), Packed::<K>::INV3),
            Packed::<K>::ONE
        );
    }

    proptest::proptest! {
        #[test]
        fn packed_lanes_compute_each_element_mod_2_to_the_k(a: u64, b: u64, f: u8) {
            check_packed::<8>(a, b, f);
            check_packed::<16>(a, b, f);
            check_packed::<32>(a, b, f);
        }
    }

    #[test]
    fn packed_carries_stay_in_their_lane() {
        // All-ones lanes overflow on + 1 and borrow on 0 - 1.
        check_packed::<32>(u64::MAX, Packed::<32>::ONE, 1);
        check_packed::<16>(0, Packed::<16>::ONE, 3);
        check_packed::<8>(0x80ff_7f01_00ff_8081, 0xff01_8080_7fff_0101, 7);
    }
}
