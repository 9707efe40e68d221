//! The depth-2 S-box's output layer, where e = d^-1 is never formed: each
//! Karatsuba form of c·e written as its cheapest sum of products of affine
//! functions of d ([`form_decompositions`]), and per product term the
//! masks of the other factor it multiplies into each output bit, with the
//! basis that needs one AND per vector ([`depth2_plan`]). Its cost
//! ([`depth2_cost`]) ranks the representations before any is built.

use super::affine::{affine_products, decompose, term_weight, Term};
use super::field::{gf16_mul, product_selection, Tower, FORMS};
use super::gf2::{bits_of, solve};
use std::collections::HashMap;
use std::sync::OnceLock;

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

/// Masks over x of the other factor's Karatsuba forms: form i of
/// c^-1·(h + l) for output bits 0-3 and of c^-1·h for bits 4-7.
pub(super) fn other_forms(t: &Tower) -> [[u8; 2]; 9] {
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
pub(super) fn depth2_plan(t: &Tower) -> Vec<(Term, [u8; 8], Vec<u32>)> {
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
pub(super) fn depth2_cost(t: &Tower) -> u64 {
    9 + depth2_plan(t)
        .iter()
        .map(|(term, _, basis)| u64::from(term_weight(term.factors.len())) * basis.len() as u64)
        .sum::<u64>()
}
