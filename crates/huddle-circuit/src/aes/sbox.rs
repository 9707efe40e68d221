//! The S-box circuit: one representation synthesized ([`synthesize`]:
//! the level-1 products giving d, the inversion or the depth-2 output
//! layer, then back to AES's representation through the affine map), and
//! of all representations the cheapest, chosen once per process
//! ([`sbox`]).

use super::affine::Lin;
use super::depth::SboxDepth;
use super::depth2::{depth2_cost, depth2_plan, other_forms};
use super::field::{affine_linear, product_selection, Tower, FORMS};
use super::gf2::{bits_of, solve};
use super::inversion::{inversion_plan, shared_inversion};
use super::linear::{linear_layer, xor_opt, AffineWires, Linear};
use crate::builder::Builder;
use crate::model::{Circuit, WireId};
use std::collections::HashMap;
use std::sync::OnceLock;

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
