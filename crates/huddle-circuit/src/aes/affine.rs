//! Functions of the four bits of d (the GF(2^4) value the S-box inverts) as
//! 16-bit truth tables, modulo affine functions (which cost no AND): their
//! algebraic normal form, affine functions of d plus earlier products
//! ([`Lin`]), products of affine functions ([`Term`]), and the cheapest way
//! to write a function as a sum of such products ([`decompose`]). The
//! inversion and depth-2 searches work in these terms.

use super::gf2::bits_of;
use std::collections::HashMap;

/// Algebraic normal form (bit S = monomial Π_{j∈S} d_j) of a 4-bit function.
fn anf(truth: impl Fn(u8) -> bool) -> u16 {
    let mut a: [bool; 16] = std::array::from_fn(|d| truth(d as u8));
    for i in 0..4 {
        for s in 0..16 {
            if s >> i & 1 == 1 {
                a[s] ^= a[s ^ (1 << i)];
            }
        }
    }
    (0..16).filter(|&s| a[s]).fold(0, |m, s| m | 1 << s)
}

/// Truth table of a function of the 4 bits of d: bit x is its value at d = x.
pub(super) type Table = u16;

/// ANF monomials of degree 2 or more.
pub(super) const NONLINEAR: u16 = {
    let mut m = 0u16;
    let mut s = 0;
    while s < 16 {
        if (s as u32).count_ones() >= 2 {
            m |= 1 << s;
        }
        s += 1;
    }
    m
};

fn anf_of(t: Table) -> u16 {
    anf(|d| t >> d & 1 == 1)
}

/// A function modulo affine functions (its non-linear ANF part).
pub(super) fn quotient(t: Table) -> u16 {
    anf_of(t) & NONLINEAR
}

fn affine_table(mask: u8, invert: bool) -> Table {
    (0..16u8)
        .filter(|&x| ((x & mask).count_ones() % 2 == 1) ^ invert)
        .fold(0, |t, x| t | 1 << x)
}

/// An affine function of the bits of d plus a sum of earlier products:
/// one XOR (and NOT) of wires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Lin {
    pub(super) d: u8,
    pub(super) invert: bool,
    pub(super) products: u8,
}

impl Lin {
    fn affine(d: u8, invert: bool) -> Lin {
        Lin {
            d,
            invert,
            products: 0,
        }
    }

    pub(super) fn table(&self, products: &[Table]) -> Table {
        bits_of(u32::from(self.products))
            .fold(affine_table(self.d, self.invert), |t, j| t ^ products[j])
    }

    /// Gates to form it from its wires alone: XORs, and a NOT.
    pub(super) fn weight(&self) -> u32 {
        (self.d.count_ones() + self.products.count_ones()).saturating_sub(1)
            + u32::from(self.invert)
    }

    /// The affine function `t` as a Lin (None if t is not affine).
    pub(super) fn of_affine(t: Table) -> Option<Lin> {
        let a = anf_of(t);
        if a & NONLINEAR != 0 {
            return None;
        }
        let d = (0..4)
            .filter(|j| a >> (1 << j) & 1 == 1)
            .fold(0u8, |m, j| m | 1 << j);
        Some(Lin::affine(d, a & 1 == 1))
    }
}

/// The 30 non-constant affine functions of d.
fn affine_factors() -> Vec<Lin> {
    (1..16u8)
        .flat_map(|d| [Lin::affine(d, false), Lin::affine(d, true)])
        .collect()
}

/// A product of affine functions of d (no factors: the constant 1).
#[derive(Clone, Debug)]
pub(super) struct Term {
    pub(super) table: Table,
    pub(super) factors: Vec<Lin>,
}

/// Every distinct product of at most `most` affine functions of d, each
/// with its fewest factors, in a fixed order.
pub(super) fn affine_products(most: usize) -> Vec<Term> {
    let factors = affine_factors();
    let mut seen: HashMap<Table, usize> = HashMap::new();
    let mut terms = vec![Term {
        table: 0xffff,
        factors: Vec::new(),
    }];
    seen.insert(0xffff, 0);
    let mut frontier: Vec<(usize, Vec<Lin>, Table)> = vec![(0, Vec::new(), 0xffff)];
    for _ in 0..most {
        let mut next = Vec::new();
        for (start, chosen, table) in &frontier {
            for (i, f) in factors.iter().enumerate().skip(*start) {
                let t = table & f.table(&[]);
                if t == 0 {
                    continue;
                }
                let mut with = chosen.clone();
                with.push(*f);
                if let std::collections::hash_map::Entry::Vacant(e) = seen.entry(t) {
                    e.insert(terms.len());
                    terms.push(Term {
                        table: t,
                        factors: with.clone(),
                    });
                }
                next.push((i + 1, with, t));
            }
        }
        frontier = next;
    }
    terms
}

/// Cost of a product of `factors` affine functions multiplied by one more
/// wire: a (factors + 1)-input AND costs 2^k - k - 1 elements in MFI-3PC.
pub(super) fn term_weight(factors: usize) -> u32 {
    match factors {
        0 => 0,
        k => (1u32 << (k + 1)) - k as u32 - 2,
    }
}

/// The cheapest way to write `f` as a sum of at most three products of at
/// most three affine functions of d.
/// `index[table]` is the position of that product in `terms` (u32::MAX: none);
/// an array rather than a map because the three-term search probes it
/// tens of thousands of times per function.
pub(super) fn decompose(f: Table, terms: &[Term], index: &[u32]) -> Vec<Term> {
    let lookup = |t: Table| match index[usize::from(t)] {
        u32::MAX => None,
        i => Some(i as usize),
    };
    let weight = |i: usize| term_weight(terms[i].factors.len());
    let mut best: Option<(u32, Vec<usize>)> = None;
    let mut offer = |cost: u32, chosen: Vec<usize>| {
        if best.as_ref().is_none_or(|(c, _)| cost < *c) {
            best = Some((cost, chosen));
        }
    };
    if f == 0 {
        return Vec::new();
    }
    if let Some(i) = lookup(f) {
        offer(weight(i), vec![i]);
    }
    for (i, t) in terms.iter().enumerate() {
        if let Some(j) = lookup(f ^ t.table) {
            if j > i {
                offer(weight(i) + weight(j), vec![i, j]);
            }
        }
    }
    for (i, ti) in terms.iter().enumerate() {
        for (j, tj) in terms.iter().enumerate().skip(i + 1) {
            if let Some(k) = lookup(f ^ ti.table ^ tj.table) {
                if k > j {
                    offer(weight(i) + weight(j) + weight(k), vec![i, j, k]);
                }
            }
        }
    }
    let (_, chosen) = best.expect("three products of affine functions suffice in four variables");
    chosen.into_iter().map(|i| terms[i].clone()).collect()
}
