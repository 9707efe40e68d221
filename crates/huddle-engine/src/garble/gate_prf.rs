//! The F² inputs of a garbled gate: what a key contributor masks its rows
//! with ([`gate_prf`]) and what the evaluator opens them with
//! ([`push_eval_inputs`]). Both come from one [`tweak`] and sit side by
//! side, so that garbling and evaluation cannot drift apart.

use super::field::DoubleKeyPrf;
use huddle_core::Gf128;

fn tweak(instance: usize, gate: usize, j: usize) -> u128 {
    (instance as u128) << 80 | (gate as u128) << 16 | j as u128
}

/// This contributor's F² values for one garbled gate, in row order: for α
/// (and β for an AND gate) and every contributor j,
/// F²_{k_{u,α}, k_{v,β}}(instance ‖ gate ‖ j). A buffer gate has one input
/// (`kb` None): the PRF with a zero second key, two rows.
pub(super) fn gate_prf(
    prf: &DoubleKeyPrf,
    keys: (u128, Option<u128>),
    offset: u128,
    at: (usize, usize),
    contributors: usize,
    out: &mut Vec<u128>,
) {
    out.clear();
    gate_prf_inputs(keys, offset, at, contributors, out);
    prf.apply(out);
}

/// The inputs of [`gate_prf`], appended (the caller applies the PRF, so a
/// whole instance's gates can go through AES in one batch).
pub(super) fn gate_prf_inputs(
    (ka, kb): (u128, Option<u128>),
    offset: u128,
    (inst, gate): (usize, usize),
    contributors: usize,
    out: &mut Vec<u128>,
) {
    let betas = if kb.is_some() { 2 } else { 1 };
    for alpha in 0..2u128 {
        for beta in 0..betas {
            let k1 = Gf128(ka ^ (offset * alpha));
            let k2 = Gf128(kb.map_or(0, |k| k ^ (offset * beta)));
            // The tweak enters linearly: double the keys once per row.
            let keyed = DoubleKeyPrf::input(k1, k2, 0);
            for j in 0..contributors {
                out.push(keyed ^ tweak(inst, gate, j));
            }
        }
    }
}

/// The evaluator's F² inputs for one garbled gate, appended: for every
/// contributor j (whose key the row yields) and every contributor i (whose
/// input keys enter it), 2·k^i_u ⊕ 4·k^i_v ⊕ tweak(instance, gate, j); a
/// buffer gate has no second input (a zero key).
pub(super) fn push_eval_inputs(
    keys: &[u128],
    (a, b): (u32, Option<u32>),
    (inst, gate): (usize, usize),
    contributors: usize,
    out: &mut Vec<u128>,
) {
    let key = |w: u32, i: usize| keys[w as usize * contributors + i];
    for j in 0..contributors {
        for i in 0..contributors {
            let kb = b.map_or(0, |b| key(b, i));
            out.push(DoubleKeyPrf::input(
                Gf128(key(a, i)),
                Gf128(kb),
                tweak(inst, gate, j),
            ));
        }
    }
}
