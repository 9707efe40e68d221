//! Gates on bits that may be the constant 0, and the carry network the
//! generated adders and comparators ([`crate::gen`]) and SHA-256's
//! additions share.
//!
//! The depth-optimized designs follow Faraji and Kerschbaum (Section 4): a
//! generate/propagate prefix network whose first level folds the generate
//! ANDs into blocks of l - 1 bits (an AND of a_j, b_j and up to l - 2
//! propagates) and whose later levels merge l blocks at once, so an n-bit
//! carry chain takes the least L with (l - 1) * l^(L - 1) >= n AND layers.
//! The terms of each combination exclude each other, so XOR replaces OR.

use crate::builder::Builder;
use crate::model::WireId;

/// A bit that may be the constant 0 (None), so constant-zero positions cost
/// no gates.
pub(crate) type Bit = Option<WireId>;

pub(crate) fn xor_bits(b: &mut Builder, bits: &[Bit]) -> Bit {
    let present: Vec<WireId> = bits.iter().flatten().copied().collect();
    match present.len() {
        0 => None,
        _ => Some(b.xor_all(&present)),
    }
}

/// AND of `bits` (0 if any is 0); callers keep it within the fan-in budget.
fn and_bits(b: &mut Builder, bits: &[Bit]) -> Bit {
    let wires: Option<Vec<WireId>> = bits.iter().copied().collect();
    wires.map(|w| b.and_all(&w))
}

/// Carry-style prefix: position j generates when all of `generate[j]` are 1
/// (None: never) and propagates when `propagate[j]` is 1. Returns, for every
/// position i, whether a carry leaves position i: G(0..=i).
pub(crate) fn prefix_carries(
    b: &mut Builder,
    generate: &[Option<[WireId; 2]>],
    propagate: &[Bit],
) -> Vec<Bit> {
    let n = propagate.len();
    let l = b.max_fan_in();
    // Level 1: blocks of l - 1 positions, generates folded into the ANDs.
    let first = (l - 1).max(1);
    let mut g: Vec<Bit> = vec![None; n];
    let mut p: Vec<Bit> = vec![None; n];
    for start in (0..n).step_by(first) {
        for i in start..(start + first).min(n) {
            let terms: Vec<Bit> = (start..=i)
                .map(|j| {
                    let gj = generate[j]?;
                    let mut bits: Vec<Bit> = vec![Some(gj[0]), Some(gj[1])];
                    bits.extend_from_slice(&propagate[j + 1..=i]);
                    and_bits(b, &bits)
                })
                .collect();
            g[i] = xor_bits(b, &terms);
            // Propagates of ranges starting at 0 are never needed.
            if start > 0 {
                p[i] = and_bits(b, &propagate[start..=i]);
            }
        }
    }
    // Later levels: super-blocks of l blocks.
    let mut block = first;
    while block < n {
        let sup = block * l;
        let (mut g2, mut p2) = (g.clone(), p.clone());
        for s in (0..n).step_by(sup) {
            for m in 1..l {
                let sub = s + m * block;
                if sub >= n {
                    break;
                }
                let last = |q: usize| s + q * block + block - 1;
                for i in sub..(sub + block).min(n) {
                    let mut terms = vec![g[i]];
                    for q in 0..m {
                        let mut bits = vec![g[last(q)], p[i]];
                        bits.extend((q + 1..m).map(|r| p[last(r)]));
                        terms.push(and_bits(b, &bits));
                    }
                    g2[i] = xor_bits(b, &terms);
                    if s > 0 {
                        let mut bits = vec![p[i]];
                        bits.extend((0..m).map(|r| p[last(r)]));
                        p2[i] = and_bits(b, &bits);
                    }
                }
            }
        }
        g = g2;
        p = p2;
        block = sup;
    }
    g
}

/// x + y over as many bits as the rows have, with the carry out appended.
pub(crate) fn add_rows(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Vec<Bit> {
    let generate: Vec<Option<[WireId; 2]>> =
        x.iter().zip(y).map(|(a, c)| Some([(*a)?, (*c)?])).collect();
    let propagate: Vec<Bit> = x
        .iter()
        .zip(y)
        .map(|(&a, &c)| xor_bits(b, &[a, c]))
        .collect();
    let carries = prefix_carries(b, &generate, &propagate);
    let mut sum = Vec::with_capacity(x.len() + 1);
    for i in 0..x.len() {
        let carry_in = if i == 0 { None } else { carries[i - 1] };
        sum.push(xor_bits(b, &[propagate[i], carry_in]));
    }
    sum.push(carries.last().copied().flatten());
    sum
}

pub(crate) fn wires(b: &mut Builder, bits: Vec<Bit>) -> Vec<WireId> {
    bits.into_iter()
        .map(|w| w.unwrap_or_else(|| b.constant(false)))
        .collect()
}

/// Majority of three bits with one AND: ((a ^ c) & (b ^ c)) ^ c.
pub(crate) fn full_adder_carry(b: &mut Builder, x: Bit, y: Bit, c: Bit) -> WireId {
    match (x, y, c) {
        (Some(x), Some(y), Some(c)) => {
            let (xc, yc) = (b.xor(x, c), b.xor(y, c));
            let t = b.and(xc, yc);
            b.xor(t, c)
        }
        _ => {
            let present: Vec<WireId> = [x, y, c].into_iter().flatten().collect();
            match present[..] {
                [p, q] => b.and(p, q),
                _ => b.constant(false),
            }
        }
    }
}
