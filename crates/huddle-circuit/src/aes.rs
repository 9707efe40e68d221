//! AES-128/192/256 encryption circuits (key schedule inside, or the expanded
//! key as input) whose S-boxes have AND-depth 4, 3 or 2.
//!
//! Only the S-box is non-linear. It is synthesized here from the tower view
//! of GF(2^8) used by Canright and by Boyar–Peralta: x = h·y + l with h, l in
//! GF(2^4) and y^2 = y + ν, so that
//!
//! ```text
//! d = ν·h^2 + h·l + l^2          (GF(2^4); only h·l is non-linear: 9 ANDs)
//! e = d^-1 = d^14                (degree 3 in the bits of d)
//! x^-1 = (h·e)·y + ((h + l)·e)   (two GF(2^4) products sharing e: 18 ANDs)
//! ```
//!
//! GF(2^4) products use the two-level Karatsuba forms (9 ANDs each). The
//! depths differ in how the inversion is done; all three searches below
//! work on truth tables of functions of the 4 bits of d, modulo affine
//! functions (which are free):
//! - depth 4 (2-input ANDs): a two-layer inversion whose second-layer
//!   inputs may XOR in first-layer results; the search finds 6 ANDs, so
//!   9 + 6 + 18 = 33 ANDs (Boyar–Peralta's depth-16 circuit has 34);
//! - depth 3 (≤ 3-input ANDs): one layer of products of up to three affine
//!   functions of d spanning e modulo affine functions: 5 ANDs, so 32 in all;
//! - depth 2 (≤ 4-input ANDs): e is never formed. Each Karatsuba form of e
//!   is written as its cheapest sum of products of at most three affine
//!   functions of d (one linear, one quadratic, one cubic term), and each
//!   product is multiplied in one AND with the other operand's form: 61 ANDs
//!   (25 of 2 inputs, 18 of 3, 18 of 4) against the paper's 66 (22 each).
//!
//! The field representation (GF(2^4) modulus, ν, the image of the AES
//! generator, and for depth 2 a constant c with h·e = (c^-1·h)·(c·e))
//! changes the counts, so every choice is tried once per process and the
//! cheapest kept by MFI-3PC communication (a k-input AND costs 2^k - k - 1
//! elements), then ANDs, then gates. Tests check every S-box on all 256
//! inputs.

use crate::builder::Builder;
use crate::model::{Circuit, WireId};
use std::cmp::Reverse;
use std::collections::HashMap;
use std::sync::OnceLock;

/// AND-depth of the S-box; it fixes the largest AND fan-in (2, 3 or 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SboxDepth {
    Four,
    Three,
    Two,
}

impl SboxDepth {
    /// The S-box a fan-in budget allows: 2 → depth 4, 3 → depth 3, ≥ 4 → depth 2.
    pub fn for_fan_in(fan_in: usize) -> SboxDepth {
        match fan_in {
            0..=2 => SboxDepth::Four,
            3 => SboxDepth::Three,
            _ => SboxDepth::Two,
        }
    }

    pub fn and_depth(self) -> u32 {
        match self {
            SboxDepth::Four => 4,
            SboxDepth::Three => 3,
            SboxDepth::Two => 2,
        }
    }

    pub fn fan_in(self) -> usize {
        match self {
            SboxDepth::Four => 2,
            SboxDepth::Three => 3,
            SboxDepth::Two => 4,
        }
    }

    fn index(self) -> usize {
        match self {
            SboxDepth::Four => 0,
            SboxDepth::Three => 1,
            SboxDepth::Two => 2,
        }
    }
}

/// Multiplication in GF(2^8) with the AES polynomial x^8 + x^4 + x^3 + x + 1.
pub fn gf256_mul(mut a: u8, mut b: u8) -> u8 {
    let mut r = 0;
    while b != 0 {
        if b & 1 == 1 {
            r ^= a;
        }
        let high = a & 0x80 != 0;
        a <<= 1;
        if high {
            a ^= 0x1b;
        }
        b >>= 1;
    }
    r
}

/// The AES S-box by its definition (inverse, then the affine map); the
/// reference the synthesized circuits are checked against.
pub fn sbox_value(x: u8) -> u8 {
    // x^254 = x^-1 (and 0 for 0).
    let mut inv = 1u8;
    for _ in 0..254 {
        inv = gf256_mul(inv, x);
    }
    affine_linear(inv) ^ 0x63
}

fn affine_linear(b: u8) -> u8 {
    b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4)
}

fn gf16_mul(modulus: u8, mut a: u8, b: u8) -> u8 {
    let mut r = 0;
    for i in 0..4 {
        if b >> i & 1 == 1 {
            r ^= a;
        }
        a <<= 1;
        if a & 0x10 != 0 {
            a ^= modulus;
        }
    }
    r
}

/// GF(2^8) as GF(2^4)[y]/(y^2 + y + ν), GF(2^4) = GF(2)[z]/(modulus) in
/// polynomial basis; element bits 0-3 are l, bits 4-7 are h. `beta` is the
/// image of the AES generator x.
#[derive(Clone, Copy, Debug)]
struct Tower {
    modulus: u8,
    nu: u8,
    beta: u8,
    /// The depth-2 S-box works with c·e instead of e (c = scale), which
    /// changes how sparse its forms are; the other depths use 1.
    scale: u8,
}

impl Tower {
    fn mul16(&self, a: u8, b: u8) -> u8 {
        gf16_mul(self.modulus, a, b)
    }

    fn mul(&self, a: u8, b: u8) -> u8 {
        let (h1, l1, h2, l2) = (a >> 4, a & 15, b >> 4, b & 15);
        let hh = self.mul16(h1, h2);
        let h = hh ^ self.mul16(h1, l2) ^ self.mul16(l1, h2);
        let l = self.mul16(hh, self.nu) ^ self.mul16(l1, l2);
        h << 4 | l
    }

    /// The field isomorphism from AES's representation (GF(2)-linear).
    fn map(&self, x: u8) -> u8 {
        let mut image = 0;
        let mut power = 1u8;
        for i in 0..8 {
            if x >> i & 1 == 1 {
                image ^= power;
            }
            power = self.mul(power, self.beta);
        }
        image
    }

    /// Every representation: three GF(2^4) moduli, every ν making
    /// y^2 + y + ν irreducible, every root of the AES polynomial.
    fn all() -> Vec<Tower> {
        let mut towers = Vec::new();
        for modulus in [0x13u8, 0x19, 0x1f] {
            for nu in 1..16u8 {
                if (0..16u8).any(|t| gf16_mul(modulus, t, t) ^ t == nu) {
                    continue;
                }
                for beta in 2..=255u8 {
                    let t = Tower {
                        modulus,
                        nu,
                        beta,
                        scale: 1,
                    };
                    let pow = |k: u32| (0..k).fold(1u8, |acc, _| t.mul(acc, beta));
                    if pow(8) ^ pow(4) ^ pow(3) ^ pow(1) ^ 1 == 0 {
                        towers.push(t);
                    }
                }
            }
        }
        towers
    }
}

/// The Karatsuba forms of a 4-bit operand: bits 0, 1, 0+1, 2, 3, 2+3,
/// 0+2, 1+3 and all four. Product (m·a)(m·b) over these spans every
/// coefficient of the polynomial product, hence every GF(2^4) product bit.
const FORMS: [u8; 9] = [0x1, 0x2, 0x3, 0x4, 0x8, 0xc, 0x5, 0xa, 0xf];

/// For each product bit k, the set (bit i) of Karatsuba products summing to it.
fn product_selection(modulus: u8) -> [u32; 4] {
    let rank_one: Vec<u32> = FORMS
        .iter()
        .map(|&m| {
            let mut v = 0;
            for i in 0..4 {
                for j in 0..4 {
                    if m >> i & m >> j & 1 == 1 {
                        v |= 1 << (4 * i + j);
                    }
                }
            }
            v
        })
        .collect();
    std::array::from_fn(|k| {
        let mut target = 0u32;
        for i in 0..4 {
            for j in 0..4 {
                if gf16_mul(modulus, 1 << i, 1 << j) >> k & 1 == 1 {
                    target |= 1 << (4 * i + j);
                }
            }
        }
        solve(&rank_one, target).expect("Karatsuba products span GF(2^4) multiplication")
    })
}

/// Which of `vectors` (bit i = vector i) XOR to `target`, if any (GF(2)).
fn solve(vectors: &[u32], target: u32) -> Option<u32> {
    // Echelon basis with distinct leading bits, highest first.
    let mut basis: Vec<(u32, u32)> = Vec::new();
    for (i, &v) in vectors.iter().enumerate() {
        let (v, combo) = reduce(&basis, v, 1 << i);
        if v != 0 {
            basis.push((v, combo));
            basis.sort_by_key(|&(b, _)| std::cmp::Reverse(b.leading_zeros() ^ 31));
        }
    }
    let (rest, combo) = reduce(&basis, target, 0);
    (rest == 0).then_some(combo)
}

fn reduce(basis: &[(u32, u32)], mut v: u32, mut combo: u32) -> (u32, u32) {
    for &(b, c) in basis {
        let lead = 31 - b.leading_zeros();
        if v >> lead & 1 == 1 {
            v ^= b;
            combo ^= c;
        }
    }
    (v, combo)
}

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
type Table = u16;

/// ANF monomials of degree 2 or more.
const NONLINEAR: u16 = {
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
fn quotient(t: Table) -> u16 {
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
struct Lin {
    d: u8,
    invert: bool,
    products: u8,
}

impl Lin {
    fn affine(d: u8, invert: bool) -> Lin {
        Lin {
            d,
            invert,
            products: 0,
        }
    }

    fn table(&self, products: &[Table]) -> Table {
        bits_of(u32::from(self.products))
            .fold(affine_table(self.d, self.invert), |t, j| t ^ products[j])
    }

    /// Gates to form it from its wires alone: XORs, and a NOT.
    fn weight(&self) -> u32 {
        (self.d.count_ones() + self.products.count_ones()).saturating_sub(1)
            + u32::from(self.invert)
    }

    /// The affine function `t` as a Lin (None if t is not affine).
    fn of_affine(t: Table) -> Option<Lin> {
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
struct Term {
    table: Table,
    factors: Vec<Lin>,
}

/// Every distinct product of at most `most` affine functions of d, each
/// with its fewest factors, in a fixed order.
fn affine_products(most: usize) -> Vec<Term> {
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
fn term_weight(factors: usize) -> u32 {
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
fn decompose(f: Table, terms: &[Term], index: &[u32]) -> Vec<Term> {
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

/// For GF(2^4) modulus and scale c: each Karatsuba form of c·d^-1 as its
/// cheapest sum of products (cached: it depends on nothing else).
fn form_decompositions(modulus: u8, scale: u8) -> std::sync::Arc<Vec<Vec<Term>>> {
    use std::sync::{Arc, Mutex};
    type Forms = Arc<Vec<Vec<Term>>>;
    static CACHE: OnceLock<Mutex<HashMap<(u8, u8), Forms>>> = OnceLock::new();
    static TERMS: OnceLock<(Vec<Term>, Vec<u32>)> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(found) = cache.lock().expect("cache lock").get(&(modulus, scale)) {
        return found.clone();
    }
    let (terms, index) = TERMS.get_or_init(|| {
        let terms = affine_products(3);
        let mut index = vec![u32::MAX; 1 << 16];
        for (i, t) in terms.iter().enumerate() {
            index[usize::from(t.table)] = i as u32;
        }
        (terms, index)
    });
    let inverse = |d: u8| {
        let e = (0..14).fold(1u8, |acc, _| gf16_mul(modulus, acc, d));
        gf16_mul(modulus, scale, e)
    };
    let forms: Vec<Vec<Term>> = FORMS
        .iter()
        .map(|&m| {
            let f = (0..16u8)
                .filter(|&d| (inverse(d) & m).count_ones() % 2 == 1)
                .fold(0, |t, d| t | 1 << d);
            decompose(f, terms, index)
        })
        .collect();
    let forms = Arc::new(forms);
    cache
        .lock()
        .expect("cache lock")
        .insert((modulus, scale), forms.clone());
    forms
}

/// Echelon basis over GF(2) with distinct leading bits.
#[derive(Clone, Default)]
struct Echelon {
    rows: Vec<u32>,
}

impl Echelon {
    fn reduce(&self, mut v: u32) -> u32 {
        for &r in &self.rows {
            if v >> (31 - r.leading_zeros()) & 1 == 1 {
                v ^= r;
            }
        }
        v
    }

    /// Adds `v`; false if it was already in the span.
    fn insert(&mut self, v: u32) -> bool {
        let v = self.reduce(v);
        if v == 0 {
            return false;
        }
        self.rows.push(v);
        self.rows
            .sort_by_key(|r| std::cmp::Reverse(31 - r.leading_zeros()));
        true
    }

    fn dim(&self) -> usize {
        self.rows.len()
    }
}

/// A circuit for e = d^-1 in GF(2^4): ANDs in order, each of Lins over d
/// and earlier ANDs, then the four bits of e as Lins.
#[derive(Clone, Debug)]
struct InversionPlan {
    products: Vec<Vec<Lin>>,
    outputs: [Lin; 4],
}

/// How many inversion plans with the fewest ANDs are built and compared
/// (in search order): all of them would cost seconds per process.
const PLANS_COMPARED: usize = 64;

/// Finds an inversion circuit: for depth 3 one layer of ANDs of up to
/// three affine functions; for depth 4 two layers of 2-input ANDs whose
/// second layer may also XOR in first-layer results. The bits of e span,
/// modulo affine functions, a space V; the ANDs must span a space W ⊇ V.
/// W is searched by dimension from dim V + 1 upwards, so the plan has the
/// fewest ANDs this shape allows (5 for depth 3 and 6 for depth 4).
fn inversion_plan(modulus: u8, depth: SboxDepth) -> InversionPlan {
    use std::sync::Mutex;
    static CACHE: OnceLock<Mutex<HashMap<(u8, SboxDepth), InversionPlan>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(plan) = cache.lock().expect("cache lock").get(&(modulus, depth)) {
        return plan.clone();
    }
    let plan = search_inversion(modulus, depth);
    cache
        .lock()
        .expect("cache lock")
        .insert((modulus, depth), plan.clone());
    plan
}

fn search_inversion(modulus: u8, depth: SboxDepth) -> InversionPlan {
    let inverse = |d: u8| (0..14).fold(1u8, |acc, _| gf16_mul(modulus, acc, d));
    let e_tables: [Table; 4] = std::array::from_fn(|k| {
        (0..16u8)
            .filter(|&d| inverse(d) >> k & 1 == 1)
            .fold(0, |t, d| t | 1 << d)
    });
    let mut v = Echelon::default();
    for &t in &e_tables {
        v.insert(u32::from(quotient(t)));
    }
    // Coset representatives of the quotient space modulo V.
    let reps: Vec<u32> = (1..=u32::from(u16::MAX))
        .filter(|&w| w & !u32::from(NONLINEAR) == 0 && v.reduce(w) == w)
        .collect();
    let singles = affine_products(3);
    // Cheapest factors first (a stable sort: the order is otherwise kept).
    let mut pairs = affine_products(2);
    pairs.sort_by_key(|t| t.factors.iter().map(Lin::weight).sum::<u32>());
    for extra in 1..=3usize {
        // Every W = V + span(ws) with |ws| = extra, each once.
        let mut seen = std::collections::HashSet::new();
        let mut spaces: Vec<Echelon> = Vec::new();
        let mut stack: Vec<(usize, Echelon)> = vec![(0, v.clone())];
        while let Some((from, w)) = stack.pop() {
            if w.dim() == v.dim() + extra {
                let mut key: Vec<u32> =
                    reps.iter().copied().filter(|&r| w.reduce(r) == 0).collect();
                key.sort_unstable();
                if seen.insert(key) {
                    spaces.push(w);
                }
                continue;
            }
            for (i, &r) in reps.iter().enumerate().skip(from) {
                let mut bigger = w.clone();
                if bigger.insert(r) {
                    stack.push((i + 1, bigger));
                }
            }
        }
        let found: Vec<InversionPlan> = spaces
            .iter()
            .flat_map(|w| match depth {
                SboxDepth::Three => one_layer(w, &singles, extra + v.dim())
                    .into_iter()
                    .collect(),
                _ => two_layers(w, &pairs, extra + v.dim()),
            })
            .take(PLANS_COMPARED)
            .map(|products| finish_plan(products, &e_tables))
            .collect();
        // Of the plans with the fewest ANDs, the cheapest in MFI-3PC, then
        // with the fewest gates once its affine functions are formed together.
        if let Some(best) = found.into_iter().min_by_key(InversionPlan::cost) {
            return best;
        }
    }
    unreachable!("GF(2^4) inversion fits in V + 3 dimensions")
}

/// `dim` independent products of up to three affine functions inside `w`.
fn one_layer(w: &Echelon, terms: &[Term], dim: usize) -> Option<Vec<Vec<Lin>>> {
    let mut chosen = Echelon::default();
    let mut products = Vec::new();
    let mut sorted: Vec<&Term> = terms.iter().filter(|t| t.factors.len() >= 2).collect();
    sorted.sort_by_key(|t| t.factors.len());
    for t in sorted {
        let q = u32::from(quotient(t.table));
        if w.reduce(q) == 0 && chosen.insert(q) {
            products.push(t.factors.clone());
        }
    }
    (chosen.dim() == dim).then_some(products)
}

/// First-layer products of two affine functions (from `pairs`, in order),
/// then second-layer products of (affine + first-layer sums), `dim` in all,
/// inside `w`: one
/// plan per choice of first-layer products that can be completed (the
/// second layer chosen greedily, cheapest factors first), with the fewest
/// first-layer products that work.
fn two_layers(w: &Echelon, pairs: &[Term], dim: usize) -> Vec<Vec<Vec<Lin>>> {
    let mut plans = Vec::new();
    // One product per class modulo affine functions: second-layer factors
    // add every affine function anyway.
    let mut classes = std::collections::HashSet::new();
    let inside: Vec<&Term> = pairs
        .iter()
        .filter(|t| {
            let q = quotient(t.table);
            t.factors.len() == 2 && w.reduce(u32::from(q)) == 0 && classes.insert(q)
        })
        .collect();
    for first in 1..dim.min(4) {
        // Choose `first` independent first-layer products (in order).
        let mut stack: Vec<(usize, Vec<&Term>)> = vec![(0, Vec::new())];
        while let Some((from, chosen)) = stack.pop() {
            if chosen.len() < first {
                for (i, t) in inside.iter().enumerate().skip(from) {
                    let mut with = chosen.clone();
                    with.push(t);
                    stack.push((i + 1, with));
                }
                continue;
            }
            let mut span = Echelon::default();
            if !chosen
                .iter()
                .all(|t| span.insert(u32::from(quotient(t.table))))
            {
                continue;
            }
            let tables: Vec<Table> = chosen.iter().map(|t| t.table).collect();
            let mut factors: Vec<Lin> = (0..16u8)
                .flat_map(|d| [false, true].map(move |invert| (d, invert)))
                .flat_map(|(d, invert)| {
                    (0..1u8 << first).map(move |products| Lin {
                        d,
                        invert,
                        products,
                    })
                })
                .filter(|f| f.d != 0 || f.products != 0)
                .collect();
            // Cheapest factors first, so the greedy second layer takes them.
            factors.sort_by_key(Lin::weight);
            let mut products: Vec<Vec<Lin>> = chosen.iter().map(|t| t.factors.clone()).collect();
            let factor_tables: Vec<Table> = factors.iter().map(|f| f.table(&tables)).collect();
            'outer: for (i, (a, &ta)) in factors.iter().zip(&factor_tables).enumerate() {
                for (b, &tb) in factors[i + 1..].iter().zip(&factor_tables[i + 1..]) {
                    let q = u32::from(quotient(ta & tb));
                    if q != 0 && w.reduce(q) == 0 && span.insert(q) {
                        products.push(vec![*a, *b]);
                        if span.dim() == dim {
                            break 'outer;
                        }
                    }
                }
            }
            if span.dim() == dim {
                plans.push(products);
            }
        }
        if !plans.is_empty() {
            break;
        }
    }
    plans
}

impl InversionPlan {
    /// What it costs: its MFI-3PC communication (a k-input AND costs
    /// 2^k - k - 1 elements), then its gates as the S-box builds it
    /// ([`shared_inversion`]).
    fn cost(&self) -> (u64, usize) {
        let communication = self
            .products
            .iter()
            .map(|f| (1u64 << f.len()) - f.len() as u64 - 1)
            .sum();
        (communication, self.gates())
    }

    fn gates(&self) -> usize {
        let mut b = Builder::boolean(3);
        let d = b.input("d", 4);
        let forms = shared_inversion(&mut b, self, &d);
        b.output("forms", forms);
        b.finish().gates().len()
    }
}

/// The bits of e as Lins over d and the products.
fn finish_plan(products: Vec<Vec<Lin>>, e_tables: &[Table; 4]) -> InversionPlan {
    let mut tables: Vec<Table> = Vec::new();
    for factors in &products {
        let t = factors.iter().fold(0xffff, |acc, f| acc & f.table(&tables));
        tables.push(t);
    }
    let quotients: Vec<u32> = tables.iter().map(|&t| u32::from(quotient(t))).collect();
    let outputs = e_tables.map(|e| {
        let combo = solve(&quotients, u32::from(quotient(e))).expect("e lies in the span");
        let rest = bits_of(combo).fold(e, |acc, j| acc ^ tables[j]);
        let affine = Lin::of_affine(rest).expect("what remains is affine");
        Lin {
            products: combo as u8,
            ..affine
        }
    });
    InversionPlan { products, outputs }
}

/// XOR networks for several linear combinations of the same wires
/// (`targets[t]` bit i: wire `vars[i]`), sharing partial sums by Paar's
/// greedy heuristic: while a pair of columns occurs together in two or more
/// targets, the most frequent pair becomes one new XOR used by all of them.
/// Each target is then the XOR of its remaining columns (`None`: empty).
/// Ties go to the first pair, so the circuit is the same in every process.
fn linear_layer(
    b: &mut Builder,
    vars: &[WireId],
    targets: &[u128],
    share: bool,
) -> Vec<Option<WireId>> {
    let mut cols: Vec<WireId> = vars.to_vec();
    let mut t: Vec<u128> = targets.to_vec();
    if share {
        share_pairs(b, &mut cols, &mut t);
    }
    t.iter()
        .map(|&x| {
            (0..cols.len())
                .filter(|&i| x >> i & 1 == 1)
                .fold(None, |acc, i| xor_opt(b, acc, Some(cols[i])))
        })
        .collect()
}

/// Paar's loop of [`linear_layer`]: new columns (XORs of two) in `cols`,
/// and `t` rewritten over them.
fn share_pairs(b: &mut Builder, cols: &mut Vec<WireId>, t: &mut [u128]) {
    // Pair counts from each target's own columns (a few each), not from
    // every pair of columns, and cleared the same way: the depth-2 S-box
    // search runs this thousands of times.
    let mut counts = vec![0u16; 128 * 128];
    let pairs = |x: u128, f: &mut dyn FnMut(usize, usize)| {
        let mut rest = x;
        while rest != 0 {
            let i = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let mut others = rest;
            while others != 0 {
                f(i, others.trailing_zeros() as usize);
                others &= others - 1;
            }
        }
    };
    while cols.len() < 128 {
        let mut best = (1, 0, 0);
        for &x in t.iter() {
            pairs(x, &mut |i, j| {
                let c = &mut counts[i * 128 + j];
                *c += 1;
                // The first pair (by i, then j) to reach the top count.
                if (*c, Reverse((i, j))) > (best.0, Reverse((best.1, best.2))) {
                    best = (*c, i, j);
                }
            });
        }
        for &x in t.iter() {
            pairs(x, &mut |i, j| counts[i * 128 + j] = 0);
        }
        let (count, i, j) = best;
        if count < 2 {
            break;
        }
        let pair = 1u128 << i | 1u128 << j;
        let fresh = 1u128 << cols.len();
        cols.push(b.xor(cols[i], cols[j]));
        for x in t.iter_mut().filter(|x| **x & pair == pair) {
            *x = (*x & !pair) | fresh;
        }
    }
}

/// XORs of the 8 input wires by mask, each formed once.
struct Linear {
    base: Vec<WireId>,
    cache: HashMap<u8, WireId>,
}

impl Linear {
    /// The XORs of all of `masks` at once, sharing partial sums.
    fn precompute(&mut self, b: &mut Builder, masks: &[u8]) {
        let mut wanted: Vec<u8> = masks
            .iter()
            .copied()
            .filter(|&m| m.count_ones() > 1 && !self.cache.contains_key(&m))
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        let targets: Vec<u128> = wanted.iter().map(|&m| u128::from(m)).collect();
        for (m, w) in wanted
            .iter()
            .zip(linear_layer(b, &self.base, &targets, true))
        {
            self.cache.insert(*m, w.expect("a non-zero mask"));
        }
    }

    fn wire(&mut self, b: &mut Builder, mask: u8) -> Option<WireId> {
        if mask.count_ones() == 1 {
            return Some(self.base[mask.trailing_zeros() as usize]);
        }
        if mask == 0 {
            return None;
        }
        if let Some(&w) = self.cache.get(&mask) {
            return Some(w);
        }
        let low = mask & mask.wrapping_neg();
        let w = match self.wire(b, mask ^ low) {
            None => self.base[low.trailing_zeros() as usize],
            Some(rest) => b.xor(rest, self.base[low.trailing_zeros() as usize]),
        };
        self.cache.insert(mask, w);
        Some(w)
    }
}

fn xor_opt(b: &mut Builder, acc: Option<WireId>, w: Option<WireId>) -> Option<WireId> {
    match (acc, w) {
        (Some(x), Some(y)) => Some(b.xor(x, y)),
        (x, None) | (None, x) => x,
    }
}

fn bits_of(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |i| mask >> i & 1 == 1)
}

/// Masks over x of the other factor's Karatsuba forms: form i of
/// c^-1·(h + l) for output bits 0-3 and of c^-1·h for bits 4-7.
fn other_forms(t: &Tower) -> [[u8; 2]; 9] {
    let image: [u8; 8] = std::array::from_fn(|i| t.map(1 << i));
    let c_inv = (1..16u8)
        .find(|&v| t.mul16(v, t.scale) == 1)
        .expect("a non-zero scale");
    let other: [[u8; 4]; 2] = [0, 1].map(|half| {
        std::array::from_fn(|j| {
            (0..8)
                .filter(|&i| {
                    let (h, l) = (image[i] >> 4, image[i] & 15);
                    let v = if half == 1 { h } else { h ^ l };
                    t.mul16(c_inv, v) >> j & 1 == 1
                })
                .fold(0u8, |m, i| m | 1 << i)
        })
    });
    std::array::from_fn(|i| {
        [0, 1].map(|half| bits_of(u32::from(FORMS[i])).fold(0u8, |acc, j| acc ^ other[half][j]))
    })
}

/// The depth-2 output layer: for every distinct product term of the forms
/// of c·e, the masks H[k] it multiplies into output bit k and a basis of
/// their span (one AND per basis vector).
fn depth2_plan(t: &Tower) -> Vec<(Term, [u8; 8], Vec<u32>)> {
    let forms = form_decompositions(t.modulus, t.scale);
    let select = product_selection(t.modulus);
    let other = other_forms(t);
    let mut terms: Vec<&Term> = Vec::new();
    for decomposition in forms.iter() {
        for term in decomposition {
            if !terms.iter().any(|x| x.table == term.table) {
                terms.push(term);
            }
        }
    }
    terms
        .into_iter()
        .map(|term| {
            let h: [u8; 8] = std::array::from_fn(|k| {
                bits_of(select[k % 4])
                    .filter(|&i| forms[i].iter().any(|x| x.table == term.table))
                    .fold(0u8, |acc, i| acc ^ other[i][usize::from(k >= 4)])
            });
            let mut basis: Vec<u32> = Vec::new();
            for &v in &h {
                if v != 0 && solve(&basis, u32::from(v)).is_none() {
                    basis.push(u32::from(v));
                }
            }
            (term.clone(), h, basis)
        })
        .collect()
}

/// MFI-3PC cost of the depth-2 S-box in representation `t`, from its plan
/// alone: the 9 level-1 ANDs plus one (|factors| + 1)-input AND per basis
/// vector of every term.
fn depth2_cost(t: &Tower) -> u64 {
    9 + depth2_plan(t)
        .iter()
        .map(|(term, _, basis)| u64::from(term_weight(term.factors.len())) * basis.len() as u64)
        .sum::<u64>()
}

/// One S-box circuit (input `x`, output `s`, 8 bits each, LSB first) in
/// the representation `t`.
/// With `share`, the linear layers share partial sums ([`linear_layer`]);
/// without, each sum is its own chain (cheap to build, for ranking).
fn synthesize(t: &Tower, depth: SboxDepth, share: bool) -> Circuit {
    let mut b = Builder::boolean(depth.fan_in());
    let x = b.input("x", 8);
    let image: [u8; 8] = std::array::from_fn(|i| t.map(1 << i));
    // tower[k]: mask over x of tower bit k.
    let tower: [u8; 8] = std::array::from_fn(|k| {
        (0..8)
            .filter(|&i| image[i] >> k & 1 == 1)
            .fold(0, |m, i| m | 1 << i)
    });
    let h_form = |m: u8| bits_of(u32::from(m)).fold(0u8, |acc, j| acc ^ tower[4 + j]);
    let l_form = |m: u8| bits_of(u32::from(m)).fold(0u8, |acc, j| acc ^ tower[j]);
    let select = product_selection(t.modulus);
    let mut lin = Linear {
        base: x.clone(),
        cache: HashMap::new(),
    };
    let wire = |b: &mut Builder, lin: &mut Linear, mask: u8| {
        lin.wire(b, mask)
            .expect("forms of independent tower bits are non-zero")
    };
    // Other factor of the output products: c^-1·h (bits 4-7) and
    // c^-1·(h + l) (bits 0-3), so that h·e = (c^-1·h)·(c·e).
    let other = other_forms(t);
    let other_form = |i: usize, k: usize| other[i][usize::from(k >= 4)];
    let plan2 = if depth == SboxDepth::Two {
        depth2_plan(t)
    } else {
        Vec::new()
    };
    if share {
        // Every combination of the input bits the S-box uses, formed
        // together (without sharing, each on its longest cached prefix).
        let mut masks: Vec<u8> = FORMS.iter().flat_map(|&m| [h_form(m), l_form(m)]).collect();
        masks.extend(d_linear_masks(t, &image));
        match depth {
            SboxDepth::Two => masks.extend(
                plan2
                    .iter()
                    .flat_map(|(_, _, basis)| basis.iter().map(|&v| v as u8)),
            ),
            _ => masks.extend((0..FORMS.len()).flat_map(|i| [other_form(i, 0), other_form(i, 4)])),
        }
        lin.precompute(&mut b, &masks);
    }

    // Level 1: d = ν h^2 + l^2 (linear) + h·l (9 ANDs).
    let hl: Vec<WireId> = FORMS
        .iter()
        .map(|&m| {
            let (wh, wl) = (
                wire(&mut b, &mut lin, h_form(m)),
                wire(&mut b, &mut lin, l_form(m)),
            );
            b.and(wh, wl)
        })
        .collect();
    // d_k: its linear part plus its Karatsuba products, formed together.
    let mut vars = hl.clone();
    let targets: Vec<u128> = d_linear_masks(t, &image)
        .iter()
        .zip(select)
        .map(|(&m, sel)| {
            let products = u128::from(sel);
            match lin.wire(&mut b, m) {
                Some(w) => {
                    vars.push(w);
                    products | 1 << (vars.len() - 1)
                }
                None => products,
            }
        })
        .collect();
    let d: Vec<WireId> = linear_layer(&mut b, &vars, &targets, share)
        .into_iter()
        .map(|w| w.expect("d has a non-linear part"))
        .collect();

    let lin_d = |b: &mut Builder, f: &Lin, products: &[WireId]| {
        let mut acc = None;
        for j in bits_of(u32::from(f.d)) {
            acc = xor_opt(b, acc, Some(d[j]));
        }
        for j in bits_of(u32::from(f.products)) {
            acc = xor_opt(b, acc, Some(products[j]));
        }
        match (acc, f.invert) {
            (Some(w), false) => w,
            (Some(w), true) => b.not(w),
            (None, v) => b.constant(v),
        }
    };
    // The output products, and each tower output bit as a set of them.
    let mut prods: Vec<WireId> = Vec::new();
    let mut out = [0u128; 8];
    match depth {
        SboxDepth::Two => {
            // out_k = Σ_i s_ki (form i of c·e)(form i of the other factor),
            // each form of c·e a sum of products of affine functions of d.
            // With sharing, every term's factors (affine functions of d)
            // are formed together first.
            let mut affine = AffineWires::default();
            if share {
                let masks = plan2.iter().flat_map(|(term, _, _)| term.factors.iter());
                affine.form(&mut b, &d, masks.map(|f| u128::from(f.d)));
            }
            for (term, h, basis) in plan2 {
                let factors: Vec<WireId> = term
                    .factors
                    .iter()
                    .map(|f| {
                        if share {
                            affine.wire(&mut b, u128::from(f.d), f.invert)
                        } else {
                            lin_d(&mut b, f, &[])
                        }
                    })
                    .collect();
                let products: Vec<WireId> = basis
                    .iter()
                    .map(|&v| {
                        let g = wire(&mut b, &mut lin, v as u8);
                        if factors.is_empty() {
                            g
                        } else {
                            let mut ins = factors.clone();
                            ins.push(g);
                            b.and_all(&ins)
                        }
                    })
                    .collect();
                let at = prods.len();
                prods.extend(products);
                for k in 0..8 {
                    let combo = solve(&basis, u32::from(h[k])).expect("in the span");
                    out[k] ^= u128::from(combo) << at;
                }
            }
        }
        SboxDepth::Three | SboxDepth::Four => {
            let plan = inversion_plan(t.modulus, depth);
            let e_forms = if share {
                shared_inversion(&mut b, &plan, &d)
            } else {
                let mut products: Vec<WireId> = Vec::new();
                for factors in &plan.products {
                    let ins: Vec<WireId> = factors
                        .iter()
                        .map(|f| lin_d(&mut b, f, &products))
                        .collect();
                    products.push(b.and_all(&ins));
                }
                let e: Vec<WireId> = plan
                    .outputs
                    .iter()
                    .map(|f| lin_d(&mut b, f, &products))
                    .collect();
                linear_layer(&mut b, &e, &FORMS.map(u128::from), false)
                    .into_iter()
                    .map(|w| w.expect("non-zero form"))
                    .collect()
            };
            for (i, ef) in e_forms.into_iter().enumerate() {
                for half in [0usize, 4] {
                    let g = wire(&mut b, &mut lin, other_form(i, half));
                    prods.push(b.and(ef, g));
                    for k in half..half + 4 {
                        if select[k % 4] >> i & 1 == 1 {
                            out[k] |= 1 << (prods.len() - 1);
                        }
                    }
                }
            }
        }
    }

    assert!(prods.len() <= 128, "output products fit the masks");
    let s = to_aes_output(&mut b, t, &prods, &out, share);
    b.output("s", s);
    b.finish()
}

/// Wires of XORs of columns (masks, bit i: column i), each formed once:
/// [`form`](Self::form) makes a batch of them in one shared linear layer,
/// [`wire`](Self::wire) reads one, with a NOT where asked (also once).
#[derive(Default)]
struct AffineWires {
    formed: HashMap<(u128, bool), WireId>,
}

impl AffineWires {
    fn form(&mut self, b: &mut Builder, cols: &[WireId], masks: impl Iterator<Item = u128>) {
        let mut wanted: Vec<u128> = masks
            .filter(|m| !self.formed.contains_key(&(*m, false)))
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        for (m, w) in wanted.iter().zip(linear_layer(b, cols, &wanted, true)) {
            self.formed
                .insert((*m, false), w.expect("a formed mask is not empty"));
        }
    }

    fn wire(&mut self, b: &mut Builder, mask: u128, invert: bool) -> WireId {
        let plain = self.formed[&(mask, false)];
        if !invert {
            return plain;
        }
        *self
            .formed
            .entry((mask, true))
            .or_insert_with(|| b.not(plain))
    }
}

/// The inversion `plan` on the bits `d` with its affine functions formed
/// together: each AND level's distinct factors in one shared linear layer
/// over d and the products so far, then the nine Karatsuba forms of e
/// directly over d and all products (e's bits are among them). Returns the
/// forms' wires, in `FORMS` order.
fn shared_inversion(b: &mut Builder, plan: &InversionPlan, d: &[WireId]) -> Vec<WireId> {
    // A Lin as a mask over the columns: d's bits, then the products.
    let mask = |f: &Lin| u128::from(f.d) | u128::from(f.products) << d.len();
    // Products not formed yet hold d[0] in their column: no factor of a
    // level reads a product of its own level or a later one.
    let mut cols: Vec<WireId> = d.to_vec();
    cols.resize(d.len() + plan.products.len(), d[0]);
    // The AND level of each product: 1 + the highest level it reads.
    let mut level: Vec<usize> = Vec::new();
    for factors in &plan.products {
        let reads = factors
            .iter()
            .flat_map(|f| bits_of(u32::from(f.products)))
            .map(|j| level[j])
            .max();
        level.push(reads.map_or(0, |l| l + 1));
    }
    let mut formed = AffineWires::default();
    for l in 0..=level.iter().copied().max().unwrap_or(0) {
        let at: Vec<usize> = (0..plan.products.len())
            .filter(|&i| level[i] == l)
            .collect();
        formed.form(
            b,
            &cols,
            at.iter().flat_map(|&i| plan.products[i].iter().map(mask)),
        );
        for &i in &at {
            let ins: Vec<WireId> = plan.products[i]
                .iter()
                .map(|f| formed.wire(b, mask(f), f.invert))
                .collect();
            cols[d.len() + i] = b.and_all(&ins);
        }
    }
    let forms: Vec<(u128, bool)> = FORMS
        .iter()
        .map(|&f| {
            bits_of(u32::from(f)).fold((0u128, false), |(m, inv), k| {
                (m ^ mask(&plan.outputs[k]), inv ^ plan.outputs[k].invert)
            })
        })
        .collect();
    let targets: Vec<u128> = forms.iter().map(|f| f.0).collect();
    linear_layer(b, &cols, &targets, true)
        .into_iter()
        .zip(&forms)
        .map(|(w, &(_, invert))| {
            let w = w.expect("a form of e is not constant");
            if invert {
                b.not(w)
            } else {
                w
            }
        })
        .collect()
}

/// The linear part of d = ν h^2 + l^2 as masks over x, one per bit of d
/// (squaring is linear in characteristic 2).
fn d_linear_masks(t: &Tower, image: &[u8; 8]) -> [u8; 4] {
    let mut masks = [0u8; 4];
    for (i, &img) in image.iter().enumerate() {
        let (h, l) = (img >> 4, img & 15);
        let v = t.mul16(t.nu, t.mul16(h, h)) ^ t.mul16(l, l);
        for (k, mask) in masks.iter_mut().enumerate() {
            if v >> k & 1 == 1 {
                *mask |= 1 << i;
            }
        }
    }
    masks
}

/// The inverse (tower bit k: the XOR of the products in `out[k]`) back in
/// AES's representation, then the S-box's affine map: each output bit a sum
/// of products, all eight formed together.
fn to_aes_output(
    b: &mut Builder,
    t: &Tower,
    prods: &[WireId],
    out: &[u128; 8],
    share: bool,
) -> Vec<WireId> {
    let mut column = [0u8; 8];
    for x in 0..=255u8 {
        let img = t.map(x);
        if img.is_power_of_two() {
            column[img.trailing_zeros() as usize] = affine_linear(x);
        }
    }
    let sums: Vec<u128> = (0..8)
        .map(|j| {
            (0..8)
                .filter(|&k| column[k] >> j & 1 == 1)
                .fold(0u128, |acc, k| acc ^ out[k])
        })
        .collect();
    linear_layer(b, prods, &sums, share)
        .into_iter()
        .enumerate()
        .map(|(j, acc)| {
            let acc = acc.expect("the S-box has no constant output bit");
            if 0x63 >> j & 1 == 1 {
                b.not(acc)
            } else {
                acc
            }
        })
        .collect()
}

/// How many of the best S-box candidates (by plain chains) are built again
/// with shared linear layers.
const SHARED_CANDIDATES: usize = 16;

/// The S-box circuit of the given depth: the cheapest representation
/// (fewest ANDs, then fewest other gates), chosen once per process.
pub fn sbox(depth: SboxDepth) -> &'static Circuit {
    static CACHE: [OnceLock<Circuit>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    CACHE[depth.index()].get_or_init(|| {
        let scales = if depth == SboxDepth::Two { 1..16 } else { 1..2 };
        let mut candidates: Vec<Tower> = Tower::all()
            .iter()
            .flat_map(|t| scales.clone().map(move |scale| Tower { scale, ..*t }))
            .collect();
        if depth == SboxDepth::Two {
            // The output layer's cost follows from its plan: build only the
            // cheapest representations.
            let costs: Vec<u64> = candidates.iter().map(depth2_cost).collect();
            let best = costs.iter().copied().min().unwrap_or(0);
            candidates = candidates
                .into_iter()
                .zip(costs)
                .filter(|&(_, c)| c == best)
                .map(|(t, _)| t)
                .collect();
        }
        // Ranked with plain chains, which is fast; only the best few are
        // built again with shared partial sums and the cheapest kept
        // (sharing every candidate's layers doubled the depth-2 search).
        let rank = |c: &Circuit| {
            let stats = crate::stats::Stats::of(c);
            let cost: u64 = stats
                .and_by_fanin
                .iter()
                .map(|(&k, &n)| ((1u64 << k) - k as u64 - 1) * n as u64)
                .sum();
            (cost, stats.and_count, c.gates().len())
        };
        let mut ranked: Vec<(_, &Tower)> = candidates
            .iter()
            .map(|t| (rank(&synthesize(t, depth, false)), t))
            .collect();
        ranked.sort_by_key(|&(r, _)| r);
        ranked
            .iter()
            .take(SHARED_CANDIDATES)
            .map(|&(_, t)| synthesize(t, depth, true))
            .min_by_key(|c| rank(c))
            .expect("GF(2^8) has tower representations")
    })
}

type Byte = [WireId; 8];

/// The bytes of a value whose hex has byte 0 leftmost: byte i's bits sit
/// on wires (n - 1 - i) * 8 .. + 8, least significant first.
fn bytes_of(wires: &[WireId]) -> Vec<Byte> {
    let n = wires.len() / 8;
    (0..n)
        .map(|i| std::array::from_fn(|j| wires[(n - 1 - i) * 8 + j]))
        .collect()
}

fn wires_of(bytes: &[Byte]) -> Vec<WireId> {
    bytes
        .iter()
        .rev()
        .flat_map(|byte| byte.iter().copied())
        .collect()
}

fn xor_bytes(b: &mut Builder, x: &Byte, y: &Byte) -> Byte {
    std::array::from_fn(|j| b.xor(x[j], y[j]))
}

fn xor_constant(b: &mut Builder, x: &Byte, c: u8) -> Byte {
    std::array::from_fn(|j| if c >> j & 1 == 1 { b.not(x[j]) } else { x[j] })
}

fn sub_byte(b: &mut Builder, s: &Circuit, x: &Byte) -> Byte {
    let out = b.call(s, &[x]);
    std::array::from_fn(|j| out[0][j])
}

/// Multiplication by x in GF(2^8): 3 XORs.
fn xtime(b: &mut Builder, a: &Byte) -> Byte {
    let mut r = [a[7]; 8];
    r[1..8].copy_from_slice(&a[0..7]);
    for j in [1, 3, 4] {
        r[j] = b.xor(a[j - 1], a[7]);
    }
    r
}

/// The round keys (Nr + 1 of 16 bytes) of a `key` of 16, 24 or 32 bytes.
fn expand_key(b: &mut Builder, s: &Circuit, key: &[Byte]) -> Vec<Vec<Byte>> {
    let nk = key.len() / 4;
    let rounds = nk + 6;
    let mut words: Vec<[Byte; 4]> = key.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
    let mut rcon = 1u8;
    for i in nk..4 * (rounds + 1) {
        let mut temp = words[i - 1];
        if i % nk == 0 {
            temp = [temp[1], temp[2], temp[3], temp[0]];
            temp = temp.map(|byte| sub_byte(b, s, &byte));
            temp[0] = xor_constant(b, &temp[0], rcon);
            rcon = gf256_mul(rcon, 2);
        } else if nk > 6 && i % nk == 4 {
            temp = temp.map(|byte| sub_byte(b, s, &byte));
        }
        let prev = words[i - nk];
        words.push(std::array::from_fn(|r| xor_bytes(b, &prev[r], &temp[r])));
    }
    words
        .chunks(4)
        .map(|w| w.iter().flat_map(|word| word.iter().copied()).collect())
        .collect()
}

/// AES encryption of one block. `key_bits` is 128, 192 or 256. Inputs:
/// the key (or, with `expanded`, the (Nr + 1) · 128-bit round keys, round 0
/// first), then the plaintext; output the ciphertext; all byte 0 leftmost
/// in hex, as in `shared/circuits/aes_128.txt`.
pub fn aes(key_bits: u32, expanded: bool, depth: SboxDepth) -> Result<Circuit, String> {
    if ![128, 192, 256].contains(&key_bits) {
        return Err(format!("AES keys are 128, 192 or 256 bits, not {key_bits}"));
    }
    let rounds = key_bits as usize / 32 + 6;
    let s = sbox(depth);
    let mut b = Builder::boolean(depth.fan_in());
    let key_input = if expanded {
        b.input("round_keys", 128 * (rounds as u32 + 1))
    } else {
        b.input("key", key_bits)
    };
    let state = bytes_of(&b.input("plaintext", 128));
    let round_keys: Vec<Vec<Byte>> = if expanded {
        bytes_of(&key_input)
            .chunks(16)
            .map(<[Byte]>::to_vec)
            .collect()
    } else {
        expand_key(&mut b, s, &bytes_of(&key_input))
    };
    Ok(encrypt(b, s, state, &round_keys))
}

fn encrypt(mut b: Builder, s: &Circuit, mut state: Vec<Byte>, keys: &[Vec<Byte>]) -> Circuit {
    let rounds = keys.len() - 1;
    for (i, byte) in state.iter_mut().enumerate() {
        *byte = xor_bytes(&mut b, byte, &keys[0][i]);
    }
    for (round, key) in keys.iter().enumerate().skip(1) {
        let sub: Vec<Byte> = state.iter().map(|x| sub_byte(&mut b, s, x)).collect();
        // ShiftRows: byte (row r, column c) = 4c + r takes column c + r.
        let mut shifted: Vec<Byte> = (0..16)
            .map(|i| sub[(i % 4) + 4 * ((i / 4 + i % 4) % 4)])
            .collect();
        if round < rounds {
            for column in shifted.chunks_mut(4) {
                // b_i = 2 a_i + 3 a_{i+1} + a_{i+2} + a_{i+3}
                //     = xtime(u_i) + u_{i+1} + a_{i+3}, u_i = a_i + a_{i+1}:
                // 108 XORs a column (the textbook a_i + t + xtime(u_i),
                // t the sum of all four, takes 116).
                let a: [Byte; 4] = [column[0], column[1], column[2], column[3]];
                let u: [Byte; 4] =
                    std::array::from_fn(|i| xor_bytes(&mut b, &a[i], &a[(i + 1) % 4]));
                for i in 0..4 {
                    let doubled = xtime(&mut b, &u[i]);
                    let rest = xor_bytes(&mut b, &u[(i + 1) % 4], &a[(i + 3) % 4]);
                    column[i] = xor_bytes(&mut b, &doubled, &rest);
                }
            }
        }
        state = shifted
            .iter()
            .enumerate()
            .map(|(i, x)| xor_bytes(&mut b, x, &key[i]))
            .collect();
    }
    b.output("ciphertext", wires_of(&state));
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::evaluate_one;
    use huddle_core::Prg;

    /// Paar's sharing never changes what a target computes: random targets
    /// over up to 40 wires, evaluated on random inputs, equal their parities.
    #[test]
    fn linear_layer_computes_every_target() {
        let mut prg = Prg::from_seed([7; 16]);
        for round in 0..200 {
            let n = 1 + (prg.next_u64() % 40) as usize;
            let count = 1 + (prg.next_u64() % 12) as usize;
            let targets: Vec<u128> = (0..count)
                .map(|_| u128::from(prg.next_u64()) & ((1u128 << n) - 1))
                .collect();
            let mut b = Builder::boolean(2);
            let x = b.input("x", n as u32);
            let outs = linear_layer(&mut b, &x, &targets, true);
            // Empty targets have no wire: output a constant 0 in their place.
            let wires: Vec<WireId> = outs
                .iter()
                .map(|w| w.unwrap_or_else(|| b.constant(false)))
                .collect();
            b.output("y", wires);
            let c = b.finish();
            let value = prg.next_u64() & ((1u64 << n) - 1);
            let got = evaluate_one(&c, &[vec![value]])[0][0];
            for (t, &target) in targets.iter().enumerate() {
                let want = (u128::from(value) & target).count_ones() as u64 & 1;
                assert_eq!(got >> t & 1, want, "round {round}, target {t}");
                assert_eq!(outs[t].is_none(), target == 0, "round {round}, target {t}");
            }
        }
    }
}
