//! The two share domains as one interface: a `u64` is either a bitsliced word
//! of 64 Boolean instances (+ and - are XOR, * is AND) or one ring element of
//! Z_2^k kept mod 2^64 (wrapping arithmetic; reduced mod 2^k only when sent
//! or revealed, which is sound because 2^k divides 2^64). Protocols write
//! their formulas once against this trait and run in both domains.

/// Arithmetic on share words.
pub trait Arith: Copy + Send + Sync + 'static {
    /// The circuit domain whose shares these are.
    const DOMAIN: huddle_circuit::Domain;
    /// The element 1 (all ones for bitsliced words: 1 in every instance).
    const ONE: u64;
    /// The inverse of 3 (1 in Z_2; 0xAA..AB mod 2^64, hence mod every 2^k).
    const INV3: u64;
    fn add(a: u64, b: u64) -> u64;
    fn sub(a: u64, b: u64) -> u64;
    fn mul(a: u64, b: u64) -> u64;
    fn neg(a: u64) -> u64;
}

/// prod[m] = the product of value(i) over the bits i of m, for every subset
/// m of the operands (prod[0] = 1): each from one smaller subset, one
/// multiplication per entry (the l-input products of MFI-3PC and ca2pc).
#[inline]
pub fn subset_products<R: Arith>(prod: &mut [u64], value: impl Fn(usize) -> u64) {
    prod[0] = R::ONE;
    for m in 1..prod.len() {
        prod[m] = R::mul(prod[m & (m - 1)], value(m.trailing_zeros() as usize));
    }
}

/// Bitsliced Boolean words.
#[derive(Clone, Copy, Debug)]
pub struct Bits;

impl Arith for Bits {
    const DOMAIN: huddle_circuit::Domain = huddle_circuit::Domain::Bit;
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
pub struct Ring;

impl Arith for Ring {
    const DOMAIN: huddle_circuit::Domain = huddle_circuit::Domain::Ring;
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
}
