//! Circuits on ring elements (signed integers and fixed point in Z_2^k).
//! Additions and multiplications by public constants are free gates;
//! comparisons are full-range signed (`Comparison::Signed`); a right shift
//! is exact, through the element's bits (one A2B, then B2A of the kept
//! bits), unlike the probabilistic truncation of a fixed-point product.

use crate::builder::{Builder, Comparison};
use crate::model::{Op, WireId};
use huddle_core::RingWidth;

fn ring(b: &Builder) -> RingWidth {
    b.ring()
        .expect("ring values exist only once the builder has a ring")
}

/// The ring constant c (reduced).
pub(super) fn constant(b: &mut Builder, c: u64) -> WireId {
    let c = ring(b).reduce(c);
    b.ring_op(Op::ConstRing(c), &[])
}

/// x + y.
pub(super) fn add(b: &mut Builder, x: WireId, y: WireId) -> WireId {
    b.ring_op(Op::Add, &[x, y])
}

/// x − y.
pub(super) fn sub(b: &mut Builder, x: WireId, y: WireId) -> WireId {
    b.ring_op(Op::Sub, &[x, y])
}

/// −x.
pub(super) fn neg(b: &mut Builder, x: WireId) -> WireId {
    b.ring_op(Op::Neg, &[x])
}

/// c·x for a public c: free.
pub(super) fn scale(b: &mut Builder, x: WireId, c: u64) -> WireId {
    let c = ring(b).reduce(c);
    if c == 1 {
        return x;
    }
    b.ring_op(Op::MulConst(c), &[x])
}

/// x·y: a MULC when either is a public constant, else one MUL.
pub(super) fn mul(b: &mut Builder, x: WireId, y: WireId) -> WireId {
    match (b.known(x), b.known(y)) {
        (_, Some(c)) => scale(b, x, c),
        (Some(c), _) => scale(b, y, c),
        _ => b.ring_op(Op::Mul, &[x, y]),
    }
}

/// The fixed-point product x·y truncated by f (one DOTTR).
pub(super) fn fixed_mul(b: &mut Builder, x: WireId, y: WireId, f: u8) -> WireId {
    b.fixed_mul(x, y, f)
}

/// The sum of `terms` (0 for none): the aggregates' ADD tree, with the
/// program's own (shared) constant for an empty sum.
pub(super) fn sum(b: &mut Builder, terms: &[WireId]) -> WireId {
    if terms.is_empty() {
        return constant(b, 0);
    }
    crate::aggregates::add_all(b, terms)
}

/// The bit x < y (signed).
pub(super) fn lt(b: &mut Builder, x: WireId, y: WireId) -> WireId {
    b.compare_lt(x, y, Comparison::Signed)
}

/// The bit x = y (one EQZ).
pub(super) fn eq(b: &mut Builder, x: WireId, y: WireId) -> WireId {
    b.eq(x, y)
}

/// c ? x : y = y + c·(x − y) (one BX2A).
pub(super) fn select(b: &mut Builder, c: WireId, x: WireId, y: WireId) -> WireId {
    let d = sub(b, x, y);
    let picked = b.bits_times(&[c], d);
    add(b, y, picked)
}

/// |x| = x − 2·[x < 0]·x (the least value stays itself, as it wraps).
pub(super) fn abs(b: &mut Builder, x: WireId) -> WireId {
    let negative = b.ltz(x);
    let part = b.bits_times(&[negative], x);
    let twice = scale(b, part, 2);
    sub(b, x, twice)
}

/// NOT x = −x − 1 (two's complement), free.
pub(super) fn not(b: &mut Builder, x: WireId) -> WireId {
    let n = neg(b, x);
    let mask = ring(b).mask();
    b.ring_op(Op::AddConst(mask), &[n])
}

/// x·2^s (0 if s ≥ k).
pub(super) fn shl(b: &mut Builder, x: WireId, s: u32) -> WireId {
    let c = if s >= 64 { 0 } else { 1u64 << s };
    scale(b, x, c)
}

/// ⌊x / 2^s⌋ exactly (an arithmetic shift): the bits s..k of x weighted
/// 2^(j−s), the sign bit's weight negative.
pub(super) fn shr(b: &mut Builder, x: WireId, s: u32) -> WireId {
    if s == 0 {
        return x;
    }
    let k = ring(b).bits();
    let bits = b.to_bits(x);
    let sign = b.bit_to_ring(bits[k as usize - 1]);
    if s >= k - 1 {
        // Only the sign is left: 0 or −1.
        return neg(b, sign);
    }
    let mut terms: Vec<WireId> = (s..k - 1)
        .map(|j| {
            let bit = b.bit_to_ring(bits[j as usize]);
            scale(b, bit, 1u64 << (j - s))
        })
        .collect();
    // The sign bit weighs −2^(k−1−s).
    terms.push(scale(b, sign, (1u64 << (k - 1 - s)).wrapping_neg()));
    sum(b, &terms)
}

/// The ring element Σ_j 2^(j+shift)·bits[j], the top bit weighing
/// negatively if `signed` (a Boolean integer into the ring).
pub(super) fn from_bits(b: &mut Builder, bits: &[WireId], signed: bool, shift: u32) -> WireId {
    let k = ring(b).bits();
    let top = bits.len() - 1;
    let terms: Vec<WireId> = bits
        .iter()
        .enumerate()
        .filter(|(j, _)| (*j as u32) + shift < k)
        .map(|(j, &bit)| {
            let one = b.bit_to_ring(bit);
            let weight = 1u64 << (j as u32 + shift);
            let weight = if signed && j == top {
                weight.wrapping_neg()
            } else {
                weight
            };
            scale(b, one, weight)
        })
        .collect();
    sum(b, &terms)
}
