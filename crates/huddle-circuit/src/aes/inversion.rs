//! The inversion e = d^-1 in GF(2^4) for the depth-4 and depth-3 S-boxes:
//! the search for the plan with the fewest ANDs ([`inversion_plan`]: two
//! layers of 2-input ANDs, or one layer of up to 3-input ANDs) and the
//! circuit of a plan with its affine functions formed together
//! ([`shared_inversion`]). The depth-2 S-box never forms e (`depth2.rs`).

use super::affine::{affine_products, quotient, Lin, Table, Term, NONLINEAR};
use super::depth::SboxDepth;
use super::field::{gf16_mul, FORMS};
use super::gf2::{bits_of, solve, Echelon};
use super::linear::{linear_layer, AffineWires};
use crate::builder::Builder;
use crate::model::WireId;
use std::collections::HashMap;
use std::sync::OnceLock;

/// A circuit for e = d^-1 in GF(2^4): ANDs in order, each of Lins over d
/// and earlier ANDs, then the four bits of e as Lins.
#[derive(Clone, Debug)]
pub(super) struct InversionPlan {
    pub(super) products: Vec<Vec<Lin>>,
    pub(super) outputs: [Lin; 4],
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
pub(super) fn inversion_plan(modulus: u8, depth: SboxDepth) -> InversionPlan {
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

/// The inversion `plan` on the bits `d` with its affine functions formed
/// together: each AND level's distinct factors in one shared linear layer
/// over d and the products so far, then the nine Karatsuba forms of e
/// directly over d and all products (e's bits are among them). Returns the
/// forms' wires, in `FORMS` order.
pub(super) fn shared_inversion(b: &mut Builder, plan: &InversionPlan, d: &[WireId]) -> Vec<WireId> {
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
