//! The rings Z_2^k that arithmetic circuits compute in.

use std::fmt;

/// A supported ring Z_2^k, the k-bit integers with wrapping arithmetic.
///
/// Every ring element is held in a `u64`: arithmetic modulo 2^64 agrees with
/// arithmetic modulo 2^k on the low k bits for addition, subtraction,
/// negation and multiplication, so one code path serves all widths and values
/// are reduced (masked, [`RingWidth::reduce`]) only where they leave the
/// evaluator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RingWidth {
    /// Z_2^8.
    W8,
    /// Z_2^16.
    W16,
    /// Z_2^32.
    W32,
    /// Z_2^64.
    W64,
}

impl RingWidth {
    /// Every supported ring, narrowest first.
    pub const ALL: [RingWidth; 4] = [
        RingWidth::W8,
        RingWidth::W16,
        RingWidth::W32,
        RingWidth::W64,
    ];

    /// k, the number of bits of an element.
    pub const fn bits(self) -> u32 {
        match self {
            RingWidth::W8 => 8,
            RingWidth::W16 => 16,
            RingWidth::W32 => 32,
            RingWidth::W64 => 64,
        }
    }

    /// The ring of `bits` bits, if huddle supports it.
    pub const fn from_bits(bits: u32) -> Option<RingWidth> {
        match bits {
            8 => Some(RingWidth::W8),
            16 => Some(RingWidth::W16),
            32 => Some(RingWidth::W32),
            64 => Some(RingWidth::W64),
            _ => None,
        }
    }

    /// The mask 2^k - 1 that reduces a `u64` into the ring.
    pub const fn mask(self) -> u64 {
        match self {
            RingWidth::W64 => u64::MAX,
            w => (1u64 << w.bits()) - 1,
        }
    }

    /// Reduces `x` modulo 2^k.
    #[inline(always)]
    pub const fn reduce(self, x: u64) -> u64 {
        x & self.mask()
    }

    /// `x` (any u64; its low k bits count) read as a signed k-bit number.
    #[inline(always)]
    pub const fn signed(self, x: u64) -> i64 {
        let unused = 64 - self.bits();
        ((x << unused) as i64) >> unused
    }

    /// Fixed-point truncation by `f` bits: ⌊x / 2^f⌋ for x read as a signed
    /// k-bit number (an arithmetic shift), reduced into the ring.
    #[inline(always)]
    pub const fn truncate(self, x: u64, f: u32) -> u64 {
        self.reduce((self.signed(x) >> f) as u64)
    }

    /// Whether `x` is negative as a signed k-bit number (its top bit).
    #[inline(always)]
    pub const fn is_negative(self, x: u64) -> bool {
        (x >> (self.bits() - 1)) & 1 == 1
    }
}

impl fmt::Display for RingWidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Z_2^{}", self.bits())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn truncation_is_an_arithmetic_shift_of_the_signed_value() {
        let r = RingWidth::W16;
        assert_eq!(r.signed(0xffff), -1);
        assert_eq!(r.signed(0x7fff), 32767);
        assert_eq!(r.signed(0x1_8000), -32768); // bits above k are ignored
        assert_eq!(r.truncate(0xffff, 4), 0xffff); // -1 >> 4 = -1
        assert_eq!(r.truncate((-40i64) as u64, 3), r.reduce((-5i64) as u64));
        assert_eq!(r.truncate((-41i64) as u64, 3), r.reduce((-6i64) as u64)); // floor
        assert_eq!(r.truncate(41, 3), 5);
        assert_eq!(r.truncate(0x8000, 15), 0xffff); // the most negative value / 2^15 = -1
        assert!(r.is_negative(0x8000) && !r.is_negative(0x7fff));
        assert_eq!(RingWidth::W64.truncate(u64::MAX, 63), u64::MAX);
        assert_eq!(RingWidth::W8.signed(0x80), -128);
    }

    #[test]
    fn widths_round_trip_and_masks() {
        for w in RingWidth::ALL {
            assert_eq!(RingWidth::from_bits(w.bits()), Some(w));
            assert_eq!(w.mask().count_ones(), w.bits());
        }
        assert_eq!(RingWidth::from_bits(12), None);
        assert_eq!(RingWidth::W16.to_string(), "Z_2^16");
    }

    proptest! {
        // The reason one u64 code path is sound: reduction commutes with the ring operations.
        #[test]
        fn reduction_is_a_ring_homomorphism(a: u64, b: u64) {
            for w in RingWidth::ALL {
                let (ra, rb) = (w.reduce(a), w.reduce(b));
                prop_assert_eq!(w.reduce(a.wrapping_add(b)), w.reduce(ra.wrapping_add(rb)));
                prop_assert_eq!(w.reduce(a.wrapping_sub(b)), w.reduce(ra.wrapping_sub(rb)));
                prop_assert_eq!(w.reduce(a.wrapping_mul(b)), w.reduce(ra.wrapping_mul(rb)));
                prop_assert_eq!(w.reduce(a.wrapping_neg()), w.reduce(ra.wrapping_neg()));
            }
        }

        // Truncation against the definition: floor division of the signed value.
        #[test]
        fn truncation_is_floor_division(x: u64, f in 0u32..64) {
            for w in RingWidth::ALL.into_iter().filter(|w| f < w.bits()) {
                let v = i128::from(w.signed(x));
                prop_assert!(v >= -(1i128 << (w.bits() - 1)) && v < 1i128 << (w.bits() - 1));
                prop_assert_eq!(w.reduce(v as u64), w.reduce(x));
                let want = w.reduce(v.div_euclid(1i128 << f) as u64);
                prop_assert_eq!(w.truncate(x, f), want);
                prop_assert_eq!(w.is_negative(x), v < 0);
            }
        }
    }
}
