//! The S-box's XOR networks: several linear combinations of the same wires
//! formed together, sharing partial sums by Paar's heuristic
//! ([`linear_layer`]), and two caches of XORs formed once, over the input
//! byte ([`Linear`]) and over any columns ([`AffineWires`]). Linear layers
//! are free in every protocol but still cost gates, so they are shared.

use crate::builder::Builder;
use crate::model::WireId;
use std::cmp::Reverse;
use std::collections::HashMap;

/// XOR networks for several linear combinations of the same wires
/// (`targets[t]` bit i: wire `vars[i]`), sharing partial sums by Paar's
/// greedy heuristic: while a pair of columns occurs together in two or more
/// targets, the most frequent pair becomes one new XOR used by all of them.
/// Each target is then the XOR of its remaining columns (`None`: empty).
/// Ties go to the first pair, so the circuit is the same in every process.
pub(super) fn linear_layer(
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
pub(super) struct Linear {
    pub(super) base: Vec<WireId>,
    pub(super) cache: HashMap<u8, WireId>,
}

impl Linear {
    /// The XORs of all of `masks` at once, sharing partial sums.
    pub(super) fn precompute(&mut self, b: &mut Builder, masks: &[u8]) {
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

    pub(super) fn wire(&mut self, b: &mut Builder, mask: u8) -> Option<WireId> {
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

pub(super) fn xor_opt(b: &mut Builder, acc: Option<WireId>, w: Option<WireId>) -> Option<WireId> {
    match (acc, w) {
        (Some(x), Some(y)) => Some(b.xor(x, y)),
        (x, None) | (None, x) => x,
    }
}

/// Wires of XORs of columns (masks, bit i: column i), each formed once:
/// [`form`](Self::form) makes a batch of them in one shared linear layer,
/// [`wire`](Self::wire) reads one, with a NOT where asked (also once).
#[derive(Default)]
pub(super) struct AffineWires {
    formed: HashMap<(u128, bool), WireId>,
}

impl AffineWires {
    pub(super) fn form(
        &mut self,
        b: &mut Builder,
        cols: &[WireId],
        masks: impl Iterator<Item = u128>,
    ) {
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

    pub(super) fn wire(&mut self, b: &mut Builder, mask: u128, invert: bool) -> WireId {
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
