//! Phase `dependent` (function-dependent preprocessing): round 2, BGW3's
//! degree reduction of the products λ_u·λ_v, and round 3, every party's
//! share of the garbled rows ([`super::rows`]) masked by the zero sharing
//! and summed at the evaluator, directly or over a hypercube, with the
//! output wires' λ shares.

use super::context::{Garbling, Run};
use super::encoding::{u128s_to_bytes, xor_le_u128s};
use super::offline::{
    bit_share_bytes, decode_bit_shares, encode_bit_shares, share_bits, Independent,
};
use super::options::Variant;
use super::plan::and_gates;
use super::rows::{InstanceRows, RowScratch};
use super::EVALUATOR;
use crate::error::{FailedCheck, RunError};
use crate::transport::Transport;
use huddle_core::{Gf128, Prg};
use huddle_net::Phase;

/// Phase `dependent` begins: λ_u·λ_v per AND gate, degree-reduced (round 2)
/// under BGW3.
pub(super) fn degree_reduction<T: Transport>(
    run: &Run,
    net: &mut T,
    prg: &mut Prg,
    states: &[Garbling],
) -> Result<Vec<Vec<Gf128>>, RunError> {
    let (plan, me, n, instances) = (run.plan, run.me, run.n, run.instances);
    let (variant, constants) = (run.variant, &run.constants);
    // Function-dependent preprocessing from here on (the paper's Section 5
    // phases): everything above needed only the number of ANDs and inputs.
    net.set_phase(Phase::Dependent);
    // Round 2 (BGW3 only): degree reduction of λ_u·λ_v.
    let products: Vec<Vec<Gf128>> = states
        .iter()
        .map(|s| {
            and_gates(plan)
                .map(|(a, b, _)| s.lambda[a as usize] * s.lambda[b as usize])
                .collect()
        })
        .collect();
    let products = match variant {
        Variant::Bgw2 | Variant::Bgw2Mal => products,
        Variant::Bgw3 => {
            // Per instance and link one message, as in round 1.
            // With the small field, products of subfield shares are in the
            // subfield, and so are the reshares and the constants.
            let mut reduced: Vec<Vec<Gf128>> = Vec::with_capacity(instances);
            for inst_products in &products {
                let mut own = vec![Gf128::ZERO; plan.ands];
                let shares = share_bits(run, inst_products, plan.ands, prg);
                for (p, shares) in shares.into_iter().enumerate() {
                    if p == me {
                        Gf128::scale(&mut own, &shares, constants[me]);
                    } else {
                        net.send(p, encode_bit_shares(run, &shares, plan.ands))?;
                    }
                }
                reduced.push(own);
            }
            for p in (0..n).filter(|&p| p != me) {
                for r in reduced.iter_mut() {
                    let bytes = net.recv(p, bit_share_bytes(run, plan.ands))?;
                    Gf128::scale_add(r, &decode_bit_shares(run, &bytes), constants[p]);
                }
            }
            reduced
        }
    };

    Ok(products)
}

/// Round 3: every party's additive share of the garbled rows (and output λ
/// shares) summed at the evaluator, a few instances per message
/// ([`instances_per_message`]). Returns the
/// garbled circuit at the evaluator (empty elsewhere).
pub(super) fn garbled_rows<T: Transport>(
    run: &Run,
    net: &mut T,
    independent: &mut Independent,
    products: &[Vec<Gf128>],
    zero: &mut [Option<Prg>],
) -> Result<Vec<u128>, RunError> {
    let (plan, me, instances, opts) = (run.plan, run.me, run.instances, run.opts);
    let malicious = run.variant.is_malicious();
    let rows_per_instance = (4 * plan.ands + 2 * plan.buffers) * run.contributors;
    let Independent {
        states,
        my_offset,
        offset_shares,
        dealt_zero,
        row_shares,
        key_shares,
    } = independent;
    let shamir = (!opts.reduced_complexity).then_some((&row_shares[..], &key_shares[..]));
    let mut scratch = RowScratch::default();
    let per_instance = rows_per_instance + if malicious { 0 } else { plan.output_wires() };
    let per_message = instances_per_message(16 * per_instance);
    let mut rows_msg: Vec<u128> = Vec::with_capacity(per_message * per_instance);
    let mut rows: Vec<u128> = Vec::with_capacity(if me == EVALUATOR {
        instances * rows_per_instance
    } else {
        0
    });
    let mut output_lambdas: Vec<Vec<bool>> = Vec::with_capacity(instances);
    for (inst, state) in states.iter().enumerate() {
        // c_me·[R^j]: the share conversion folded into the offset.
        let offsets: Vec<Gf128> = offset_shares[inst]
            .iter()
            .map(|&x| x * run.constants[me])
            .collect();
        let rows_of = InstanceRows {
            run,
            inst,
            state,
            offsets: &offsets,
            my_offset: my_offset[inst].0,
            shamir,
        };
        let start = rows_msg.len();
        rows_of.push(&products[inst], &mut scratch, &mut rows_msg);
        // Zero masks: pairwise PRG streams drawn in the same order by both
        // ends, or the dealt sharings of round 1. Without zero sharing the
        // rows are (converted) Shamir shares of fresh random polynomials.
        let instance_rows = &mut rows_msg[start..];
        if opts.zero_sharing() && opts.prg_zero_sharing {
            apply_zero_masks(instance_rows, zero);
        } else if opts.zero_sharing() {
            let dealt = &dealt_zero[inst * rows_per_instance..(inst + 1) * rows_per_instance];
            for (v, z) in instance_rows.iter_mut().zip(dealt) {
                *v ^= z;
            }
        }
        // Output λ shares, made additive like the rows (malicious: they are 0).
        if !malicious {
            for &w in plan.outputs.iter().flatten() {
                rows_msg.push((state.lambda[w as usize] * run.constants[me]).0);
            }
        }
        // A few instances per message, so that only the evaluator holds the
        // whole garbled circuit and no small instance costs a message.
        let first = inst - inst % per_message;
        if (inst + 1) % per_message != 0 && inst + 1 < instances {
            continue;
        }
        if sum_at_evaluator(net, &mut rows_msg, opts.hypercube)? {
            for k in 0..inst + 1 - first {
                let instance = &rows_msg[k * per_instance..(k + 1) * per_instance];
                let (sum, out_l) = instance.split_at(rows_per_instance);
                rows.extend_from_slice(sum);
                output_lambdas.push(permutation_bits(out_l)?);
            }
        }
        rows_msg.clear();
    }
    std::mem::take(dealt_zero);
    let mut output_lambdas = output_lambdas.into_iter();
    for state in states.iter_mut() {
        // Evaluator only (malicious: every output λ is 0).
        state.output_lambda = match output_lambdas.next() {
            Some(_) if malicious => vec![false; plan.output_wires()],
            Some(out_l) => out_l,
            None => Vec::new(),
        };
        // Not needed online; freed so that the online phase reuses the memory.
        state.lambda = Vec::new();
    }
    Ok(rows)
}

/// Instances whose garbled rows (of `instance_bytes` bytes each) go to
/// the evaluator in one message of round 3: as many as fit in 256 KiB, at
/// least one. Small circuits' instances would otherwise each pay a
/// message, and the evaluator a wait for every one.
pub(super) fn instances_per_message(instance_bytes: usize) -> usize {
    const MESSAGE_BYTES: usize = 256 << 10;
    (MESSAGE_BYTES / instance_bytes.max(1)).max(1)
}

/// Reconstructed output permutation bits, which must be bits.
fn permutation_bits(values: &[u128]) -> Result<Vec<bool>, RunError> {
    values
        .iter()
        .map(|l| match l {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(RunError::abort(FailedCheck::PermutationBit, None)),
        })
        .collect()
}

/// Sums every party's additive vector at the evaluator: directly (one
/// round) or over a hypercube (⌈log2 n⌉ rounds in which half of the
/// remaining parties send their running sum to a partner). Returns true at
/// the evaluator, whose `acc` then holds the sum.
fn sum_at_evaluator<T: Transport>(
    net: &mut T,
    acc: &mut [u128],
    hypercube: bool,
) -> Result<bool, RunError> {
    let (me, n) = (net.party(), net.parties());
    if !hypercube {
        if me != EVALUATOR {
            net.send(EVALUATOR, u128s_to_bytes(acc))?;
            return Ok(false);
        }
        for p in 1..n {
            let bytes = net.recv(p, 16 * acc.len())?;
            xor_le_u128s(acc, &bytes);
        }
        return Ok(true);
    }
    let mut step = 1;
    while step < n {
        if me % (2 * step) == step {
            net.send(me - step, u128s_to_bytes(acc))?;
            return Ok(false);
        }
        if me % (2 * step) == 0 && me + step < n {
            let bytes = net.recv(me + step, 16 * acc.len())?;
            xor_le_u128s(acc, &bytes);
        }
        step *= 2;
    }
    Ok(true)
}

/// XORs this party's additive share of zero into every value: one draw
/// from each pairwise stream, so each draw appears at exactly two parties.
fn apply_zero_masks(values: &mut [u128], streams: &mut [Option<Prg>]) {
    for stream in streams.iter_mut().flatten() {
        stream.xor_into(values);
    }
}
