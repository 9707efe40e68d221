//! One party's additive share of one instance's garbled rows
//! ([`InstanceRows`]): the χ·R terms in batches, its own F² values and zero
//! keys if it contributes, or the Shamir-shared ones. Computation only:
//! [`super::dependent`] masks the rows and sends them.

use super::context::{Garbling, Run};
use super::gate_prf::{gate_prf, gate_prf_inputs};
use super::plan::{and_gates, Step};
use huddle_core::Gf128;

/// Buffers reused from instance to instance while computing rows.
#[derive(Default)]
pub(super) struct RowScratch {
    /// (λ_uv + λ_w), λ_u and λ_v of every AND gate.
    factors: [Vec<Gf128>; 3],
    /// Those factors times c_me·[R^j] (block k·C + j holds factor k, contributor j).
    scaled: Vec<Gf128>,
    /// This contributor's F² values of every AND gate.
    and_prf: Vec<u128>,
    /// A buffer gate's F² values.
    buffer_prf: Vec<u128>,
}

/// One party's additive share of one instance's garbled rows.
pub(super) struct InstanceRows<'a> {
    pub(super) run: &'a Run<'a>,
    pub(super) inst: usize,
    pub(super) state: &'a Garbling,
    /// c_me·[R^j] per contributor j.
    pub(super) offsets: &'a [Gf128],
    /// This party's own R (0 unless it contributes).
    pub(super) my_offset: u128,
    /// Without reduced complexity: the Shamir shares of Σ F per row and of
    /// k^j per gate (see `offline::receive_prf_shares`).
    pub(super) shamir: Option<(&'a [Gf128], &'a [Gf128])>,
}

impl InstanceRows<'_> {
    /// Appends the rows: per AND gate (α, β) and j, then per buffer gate α and j.
    pub(super) fn push(&self, products: &[Gf128], scratch: &mut RowScratch, rows: &mut Vec<u128>) {
        let (plan, contributors) = (self.run.plan, self.run.contributors);
        self.chi_terms(products, scratch);
        let contributes = self.run.me < contributors;
        scratch.and_prf.clear();
        scratch.and_prf.reserve(4 * contributors * plan.ands);
        if self.shamir.is_none() && contributes {
            // Every AND gate's F² values in one AES batch.
            for (g, (a, b)) in and_gates(plan).map(|(a, b, _)| (a, b)).enumerate() {
                let keys = (
                    self.state.keys[a as usize],
                    Some(self.state.keys[b as usize]),
                );
                gate_prf_inputs(
                    keys,
                    self.my_offset,
                    (self.run.first + self.inst, g),
                    contributors,
                    &mut scratch.and_prf,
                );
            }
            self.run.prf.apply(&mut scratch.and_prf);
        }
        for (and_index, (_, _, o)) in and_gates(plan).enumerate() {
            self.push_and(and_index, o, scratch, rows);
        }
        // Buffer gates are the plan's last steps.
        let buffers = plan.steps[plan.steps.len() - plan.buffers..]
            .iter()
            .filter_map(|s| match *s {
                Step::Buffer(input, o) => Some((input, o)),
                _ => None,
            });
        for (buffer_index, (input, o)) in buffers.enumerate() {
            self.push_buffer(buffer_index, input, o, &mut scratch.buffer_prf, rows);
        }
    }

    /// χ·S terms of every AND gate and contributor j, in batches:
    /// (λ_uv + λ_w)·S_j, λ_u·S_j and λ_v·S_j.
    fn chi_terms(&self, products: &[Gf128], scratch: &mut RowScratch) {
        let (ands, contributors) = (self.run.plan.ands, self.run.contributors);
        let l = &self.state.lambda;
        for f in scratch.factors.iter_mut() {
            f.clear();
            f.reserve(ands);
        }
        for (g, (a, b, o)) in and_gates(self.run.plan).enumerate() {
            scratch.factors[0].push(products[g] + l[o as usize]);
            scratch.factors[1].push(l[a as usize]);
            scratch.factors[2].push(l[b as usize]);
        }
        scratch.scaled.resize(3 * contributors * ands, Gf128::ZERO);
        for (k, f) in scratch.factors.iter().enumerate() {
            for j in 0..contributors {
                let at = (k * contributors + j) * ands;
                Gf128::scale(&mut scratch.scaled[at..at + ands], f, self.offsets[j]);
            }
        }
    }

    /// The four rows per contributor of AND gate `and_index` with output `o`.
    fn push_and(&self, and_index: usize, o: u32, scratch: &RowScratch, rows: &mut Vec<u128>) {
        let (me, contributors, ands) = (self.run.me, self.run.contributors, self.run.plan.ands);
        let local = self.shamir.is_none() && me < contributors;
        let prf: &[u128] = if local {
            &scratch.and_prf[and_index * 4 * contributors..]
        } else {
            &[]
        };
        let gate = self.inst * ands + and_index;
        let c_me = self.run.constants[me];
        // χ_αβ·S = (λ_uv + λ_w)·S + β·(λ_u·S) + α·(λ_v·S) + αβ·S with
        // S = c_me·[R^j]: three multiplications per j instead of four.
        // Rows in their order (αβ, then j), appended without zero-filling.
        for ab in 0..4 {
            let (alpha, beta) = (ab >> 1 == 1, ab & 1 == 1);
            for j in 0..contributors {
                let term = |k: usize| scratch.scaled[(k * contributors + j) * ands + and_index].0;
                let mut v = term(0);
                if beta {
                    v ^= term(1);
                }
                if alpha {
                    v ^= term(2);
                }
                if alpha && beta {
                    v ^= self.offsets[j].0;
                }
                let row = ab * contributors + j;
                if local {
                    v ^= prf[row];
                    if me == j {
                        v ^= self.state.keys[o as usize];
                    }
                } else if let Some((row_shares, key_shares)) = self.shamir {
                    // Shamir shares of Σ F and k^j, converted like χ·R.
                    v ^= ((row_shares[gate * 4 * contributors + row]
                        + key_shares[gate * contributors + j])
                        * c_me)
                        .0;
                }
                rows.push(v);
            }
        }
    }

    /// Equation (2): the two rows per contributor of a buffer gate, χ_α·R^j
    /// with χ_α = λ_in ⊕ α ⊕ λ_out (λ_out a sharing of 0); only the
    /// reduced-complexity form.
    fn push_buffer(
        &self,
        buffer_index: usize,
        input: u32,
        o: u32,
        prf: &mut Vec<u128>,
        rows: &mut Vec<u128>,
    ) {
        let (me, contributors) = (self.run.me, self.run.contributors);
        let contributes = me < contributors;
        if contributes {
            gate_prf(
                &self.run.prf,
                (self.state.keys[input as usize], None),
                self.my_offset,
                (
                    self.run.first + self.inst,
                    self.run.plan.ands + buffer_index,
                ),
                contributors,
                prf,
            );
        }
        let chi = self.state.lambda[input as usize] + self.state.lambda[o as usize];
        let base_at = rows.len();
        rows.resize(base_at + 2 * contributors, 0);
        for j in 0..contributors {
            let s = self.offsets[j];
            let base = (chi * s).0;
            for alpha in 0..2 {
                let row = alpha * contributors + j;
                let mut v = if alpha == 1 { base ^ s.0 } else { base };
                if contributes {
                    v ^= prf[row];
                    if me == j {
                        v ^= self.state.keys[o as usize];
                    }
                }
                rows[base_at + row] = v;
            }
        }
    }
}
