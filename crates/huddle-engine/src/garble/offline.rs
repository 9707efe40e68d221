//! Round 1, phase `offline` (function-independent: it needs only the
//! numbers of AND gates and inputs): every party's Shamir shares of its
//! permutation bits λ and, if it contributes keys, of its offset R (or,
//! malicious, all of it from the linear source without a message:
//! [`linear_round`]), its keys, and without the optimizations the dealt zero
//! shares and the Shamir-shared PRF values. Also the encoding of bit shares
//! (subfield coordinates or 16-byte elements), which the degree reduction
//! sends too.

use super::context::{Garbling, Run};
use super::encoding::{from_bytes, to_bytes, xor_le_u128s};
use super::field::{self, share_batch, share_each};
use super::gate_prf::gate_prf;
use super::linear::LinearSource;
use super::options::Variant;
use super::plan::{and_gates, Plan, Step};
use crate::error::RunError;
use crate::transport::Transport;
use huddle_core::{Gf128, Prg};
use huddle_net::{PartyId, Phase};

/// What the function-independent round leaves a party with.
pub(super) struct Independent {
    pub(super) states: Vec<Garbling>,
    /// This party's R per instance (0 unless it contributes).
    pub(super) my_offset: Vec<Gf128>,
    /// Shares of every contributor's R, per instance.
    pub(super) offset_shares: Vec<Vec<Gf128>>,
    /// Without PRG zero sharing: the dealt additive shares of zero.
    pub(super) dealt_zero: Vec<u128>,
    /// Without reduced complexity: Shamir shares of Σ F per row and of
    /// k^j_{w,0} per gate and j.
    pub(super) row_shares: Vec<Gf128>,
    pub(super) key_shares: Vec<Gf128>,
}

/// Round 1 (phase `offline`, function-independent): λ and R shares (or the
/// linear source), this party's keys, and without the optimizations the
/// dealt zero shares and the Shamir-shared PRF values. Every message of the
/// round is sent before any is received.
pub(super) fn first_round<T: Transport>(
    run: &Run,
    net: &mut T,
    prg: &mut Prg,
    source: &mut Option<Box<dyn LinearSource>>,
) -> Result<Independent, RunError> {
    net.set_phase(Phase::Offline);
    let and_outputs: Vec<u32> = and_gates(run.plan).map(|(_, _, o)| o).collect();
    let mut mine = share_my_randomness(run, net, prg, source, &and_outputs)?;
    let dealt = run.opts.zero_sharing() && !run.opts.prg_zero_sharing;
    let mut dealt_zero = if dealt {
        deal_zero_shares(run, net, prg)?
    } else {
        Vec::new()
    };
    let own_prf_shares = if !run.opts.reduced_complexity && run.me < run.contributors {
        share_prf_values(run, net, prg, &mine.states, &mine.my_offset)?
    } else {
        Vec::new()
    };
    if !run.variant.is_malicious() {
        receive_lambda_shares(run, net, &mut mine, &and_outputs)?;
    }
    if dealt {
        for d in (0..=run.t).filter(|&d| d != run.me) {
            let bytes = net.recv(d, 16 * dealt_zero.len())?;
            xor_le_u128s(&mut dealt_zero, &bytes);
        }
    }
    let (row_shares, key_shares) = if run.opts.reduced_complexity {
        (Vec::new(), Vec::new())
    } else {
        receive_prf_shares(run, net, own_prf_shares)?
    };
    for state in mine.states.iter_mut() {
        // Free gates: λ follows (constants have λ = 0).
        for s in &run.plan.steps {
            match *s {
                Step::Xor(a, b, o) => {
                    state.lambda[o as usize] = state.lambda[a as usize] + state.lambda[b as usize];
                }
                Step::Inv(a, o) | Step::Copy(a, o) => {
                    state.lambda[o as usize] = state.lambda[a as usize];
                }
                Step::Const(o) => state.lambda[o as usize] = Gf128::ZERO,
                Step::And(..) | Step::Buffer(..) => {}
            }
        }
    }
    Ok(Independent {
        states: mine.states,
        my_offset: mine.my_offset,
        offset_shares: mine.offset_shares,
        dealt_zero,
        row_shares,
        key_shares,
    })
}

/// What a party draws in round 1, before it hears from the others.
struct MyRandomness {
    states: Vec<Garbling>,
    my_offset: Vec<Gf128>,
    /// Per instance, this party's own shares of what it shared.
    own_shares: Vec<Vec<Gf128>>,
    offset_shares: Vec<Vec<Gf128>>,
}

/// Per instance: this party's permutation bits for every AND output and its
/// own input wires, its R if it contributes (Shamir-shared and sent, one
/// message per instance and link so that no party holds every instance's
/// shares at once), or all of it from the linear source; and its keys, free
/// gates' keys following by free XOR.
fn share_my_randomness<T: Transport>(
    run: &Run,
    net: &mut T,
    prg: &mut Prg,
    source: &mut Option<Box<dyn LinearSource>>,
    and_outputs: &[u32],
) -> Result<MyRandomness, RunError> {
    let (plan, me, instances) = (run.plan, run.me, run.instances);
    let contributes = me < run.contributors;
    let my_inputs: Vec<u32> = plan
        .inputs
        .iter()
        .filter(|(o, _)| *o == me)
        .flat_map(|(_, w)| w.iter().copied())
        .collect();
    let mut mine = MyRandomness {
        states: Vec::with_capacity(instances),
        my_offset: Vec::with_capacity(instances),
        own_shares: Vec::with_capacity(instances),
        offset_shares: vec![Vec::new(); instances],
    };
    for inst in 0..instances {
        let mut own_shares: Vec<Gf128> = Vec::new();
        let mut own_lambda = Vec::new();
        let mut lambda = vec![Gf128::ZERO; plan.wires];
        let offset = if let Some(source) = source.as_mut() {
            let (offset, shares) = linear_round(
                source.as_mut(),
                plan,
                me,
                run.contributors,
                &mut lambda,
                &mut own_lambda,
            )?;
            mine.offset_shares[inst] = shares;
            offset
        } else {
            // Random permutation bits, 64 per PRG word.
            let count = and_outputs.len() + my_inputs.len();
            let mut words = vec![0u64; count.div_ceil(64)];
            prg.fill_u64(&mut words);
            let random_bit = |i: usize| words[i / 64] >> (i % 64) & 1 == 1;
            let mut secrets: Vec<Gf128> = Vec::with_capacity(count + 1);
            secrets.extend((0..and_outputs.len()).map(|i| bit(random_bit(i))));
            for (k, &w) in my_inputs.iter().enumerate() {
                let l = random_bit(and_outputs.len() + k);
                own_lambda.push((w, l));
                secrets.push(bit(l));
            }
            let bits = secrets.len();
            let offset = contributes.then(|| field::random(prg));
            secrets.extend(offset);
            for (p, shares) in share_bits(run, &secrets, bits, prg).into_iter().enumerate() {
                if p == me {
                    own_shares = shares;
                } else {
                    net.send(p, encode_bit_shares(run, &shares, bits))?;
                }
            }
            offset.unwrap_or(Gf128::ZERO)
        };
        let mut keys = vec![0u128; if contributes { plan.wires } else { 0 }];
        if contributes {
            // Random keys where no free gate decides them.
            let mut fresh = vec![0u128; plan.fresh_keys.len()];
            prg.xor_into(&mut fresh);
            for (&w, k) in plan.fresh_keys.iter().zip(fresh) {
                keys[w as usize] = k;
            }
            for s in &plan.steps {
                match *s {
                    Step::Xor(a, b, o) => keys[o as usize] = keys[a as usize] ^ keys[b as usize],
                    Step::Inv(a, o) => keys[o as usize] = keys[a as usize] ^ offset.0,
                    Step::Copy(a, o) => keys[o as usize] = keys[a as usize],
                    Step::Const(_) | Step::And(..) | Step::Buffer(..) => {}
                }
            }
        }
        mine.my_offset.push(offset);
        mine.own_shares.push(own_shares);
        mine.states.push(Garbling {
            lambda,
            keys,
            own_lambda,
            output_lambda: Vec::new(),
        });
    }
    Ok(mine)
}

fn bit(b: bool) -> Gf128 {
    Gf128(u128::from(b))
}

/// Shares of `secrets` per party: the first `bits` are permutation bits or
/// their products (subfield coefficients with the small field), any after
/// them GF(2^128) secrets.
pub(super) fn share_bits(
    run: &Run,
    secrets: &[Gf128],
    bits: usize,
    prg: &mut Prg,
) -> Vec<Vec<Gf128>> {
    if run.opts.small_field {
        field::share_batch_small(secrets, bits, run.t, run.n, prg)
    } else {
        share_batch(secrets, run.t, run.n, prg)
    }
}

/// The message of [`share_bits`]' shares for one party: the first `bits`
/// in [`bit_share_bytes`], the rest 16 bytes each.
pub(super) fn encode_bit_shares(run: &Run, shares: &[Gf128], bits: usize) -> Vec<u8> {
    if !run.opts.small_field {
        return to_bytes(shares);
    }
    let (small, full) = shares.split_at(bits);
    let mut bytes = huddle_net::message_buffer(bit_share_bytes(run, bits) + 16 * full.len());
    field::Subfield::get().append_bytes(small, &mut bytes);
    for v in full {
        bytes.extend_from_slice(&v.to_bytes());
    }
    bytes
}

/// Bytes of a message of `count` permutation-bit (or product) shares.
pub(super) fn bit_share_bytes(run: &Run, count: usize) -> usize {
    count * if run.opts.small_field { 2 } else { 16 }
}

/// Decodes [`bit_share_bytes`] of shares.
pub(super) fn decode_bit_shares(run: &Run, bytes: &[u8]) -> Vec<Gf128> {
    if run.opts.small_field {
        field::Subfield::get().elements_of_bytes(bytes)
    } else {
        from_bytes(bytes)
    }
}

/// Without PRG zero sharing, the first t + 1 parties deal additive sharings
/// of zero for every garbled-row value in round 1. Returns this party's part
/// of what it dealt (the others' parts arrive later in the round).
fn deal_zero_shares<T: Transport>(
    run: &Run,
    net: &mut T,
    prg: &mut Prg,
) -> Result<Vec<u128>, RunError> {
    let rows_per_instance = (4 * run.plan.ands + 2 * run.plan.buffers) * run.contributors;
    let mut dealt_zero = vec![0u128; run.instances * rows_per_instance];
    if run.me <= run.t {
        let mut bytes = vec![0u8; 16 * dealt_zero.len()];
        for p in (0..run.n).filter(|&p| p != run.me) {
            prg.fill_bytes(&mut bytes);
            xor_le_u128s(&mut dealt_zero, &bytes);
            net.send(p, bytes.clone())?;
        }
    }
    Ok(dealt_zero)
}

/// The degree of the shared PRF values: that of χ·R.
fn row_degree(run: &Run) -> usize {
    match run.variant {
        Variant::Bgw3 => 2 * run.t,
        Variant::Bgw2 | Variant::Bgw2Mal => 3 * run.t,
    }
}

/// Without reduced complexity, a contributor Shamir-shares its F² values of
/// every row and its zero key of every AND output. Returns its own shares.
fn share_prf_values<T: Transport>(
    run: &Run,
    net: &mut T,
    prg: &mut Prg,
    states: &[Garbling],
    my_offset: &[Gf128],
) -> Result<Vec<Gf128>, RunError> {
    let (plan, me, n, contributors) = (run.plan, run.me, run.n, run.contributors);
    let per_gate = 4 * contributors + 1;
    let degree = row_degree(run);
    let mut msgs: Vec<Vec<Gf128>> =
        vec![Vec::with_capacity(run.instances * plan.ands * per_gate); n];
    let mut values = Vec::with_capacity(4 * contributors);
    for (inst, state) in states.iter().enumerate() {
        for (and_index, (a, b, o)) in and_gates(plan).enumerate() {
            gate_prf(
                &run.prf,
                (state.keys[a as usize], Some(state.keys[b as usize])),
                my_offset[inst].0,
                (run.first + inst, and_index),
                contributors,
                &mut values,
            );
            for &v in values
                .iter()
                .chain(std::iter::once(&state.keys[o as usize]))
            {
                share_each(Gf128(v), degree, n, prg, |p, sh| msgs[p].push(sh));
            }
        }
    }
    for (p, msg) in msgs.iter().enumerate() {
        if p != me {
            net.send(p, to_bytes(msg))?;
        }
    }
    Ok(std::mem::take(&mut msgs[me]))
}

/// Every party's round-1 shares, per instance: its AND λs (summed), the λs
/// of the input wires it owns, its R if it contributes.
fn receive_lambda_shares<T: Transport>(
    run: &Run,
    net: &mut T,
    mine: &mut MyRandomness,
    and_outputs: &[u32],
) -> Result<(), RunError> {
    let plan = run.plan;
    let per_instance =
        |p: PartyId| plan.ands + plan.input_wires_of(p) + usize::from(p < run.contributors);
    let bits_of = |p: PartyId| plan.ands + plan.input_wires_of(p);
    for p in 0..run.n {
        let owned: Vec<u32> = plan
            .inputs
            .iter()
            .filter(|(o, _)| *o == p)
            .flat_map(|(_, w)| w.iter().copied())
            .collect();
        for (inst, state) in mine.states.iter_mut().enumerate() {
            let values = if p == run.me {
                std::mem::take(&mut mine.own_shares[inst])
            } else {
                let bits = bit_share_bytes(run, bits_of(p));
                let offset = 16 * usize::from(p < run.contributors);
                let bytes = net.recv(p, bits + offset)?;
                let mut values = decode_bit_shares(run, &bytes[..bits]);
                values.extend(from_bytes(&bytes[bits..]));
                values
            };
            for (a, &w) in and_outputs.iter().enumerate() {
                state.lambda[w as usize] += values[a];
            }
            for (i, &w) in owned.iter().enumerate() {
                state.lambda[w as usize] = values[plan.ands + i];
            }
            if p < run.contributors {
                mine.offset_shares[inst].push(values[per_instance(p) - 1]);
            }
        }
    }
    Ok(())
}

/// Sums the contributors' shared PRF values: shares of Σ_i F_i per row and
/// of k^j_{w,0} per gate and contributor j.
fn receive_prf_shares<T: Transport>(
    run: &Run,
    net: &mut T,
    mut own: Vec<Gf128>,
) -> Result<(Vec<Gf128>, Vec<Gf128>), RunError> {
    let (ands, contributors, instances) = (run.plan.ands, run.contributors, run.instances);
    let per_gate = 4 * contributors + 1;
    let rows_len = instances * (4 * ands + 2 * run.plan.buffers) * contributors;
    let mut row_shares = vec![Gf128::ZERO; rows_len];
    let mut key_shares = vec![Gf128::ZERO; instances * ands * contributors];
    for p in 0..contributors {
        let values = if p == run.me {
            std::mem::take(&mut own)
        } else {
            from_bytes(&net.recv(p, 16 * instances * ands * per_gate)?)
        };
        for (g, chunk) in values.chunks_exact(per_gate).enumerate() {
            for (r, &v) in chunk[..4 * contributors].iter().enumerate() {
                row_shares[g * 4 * contributors + r] += v;
            }
            key_shares[g * contributors + p] = chunk[4 * contributors];
        }
    }
    Ok((row_shares, key_shares))
}

/// Malicious round 1 by the linear-preprocessing functionalities, for one
/// instance, in an order every party follows: λ of AND outputs (RandSS_bin,
/// or RandSS_0 on output wires), of buffer outputs (RandSS_0), of each
/// input value (RandSS_bin^{owner}), then R^j (RandSS^{P_j}) for every
/// contributor. Fills `lambda` and `own_lambda`; returns this party's R (0
/// unless it contributes) and its shares of every R^j.
pub(super) fn linear_round(
    source: &mut dyn LinearSource,
    plan: &Plan,
    me: PartyId,
    contributors: usize,
    lambda: &mut [Gf128],
    own_lambda: &mut Vec<(u32, bool)>,
) -> Result<(Gf128, Vec<Gf128>), RunError> {
    let zeros_needed = plan.and_is_output.iter().filter(|&&o| o).count() + plan.buffers;
    let (mut random, mut zeros) = (Vec::new(), Vec::new());
    source.bits(plan.ands + plan.buffers - zeros_needed, &mut random)?;
    source.zeros(zeros_needed, &mut zeros)?;
    let (mut random, mut zeros) = (random.into_iter(), zeros.into_iter());
    let mut and_index = 0;
    for s in &plan.steps {
        match *s {
            Step::And(_, _, o) => {
                let from = if plan.and_is_output[and_index] {
                    &mut zeros
                } else {
                    &mut random
                };
                lambda[o as usize] = from.next().unwrap_or_default();
                and_index += 1;
            }
            Step::Buffer(_, o) => lambda[o as usize] = zeros.next().unwrap_or_default(),
            _ => {}
        }
    }
    let (mut shares, mut secrets) = (Vec::new(), Vec::new());
    for (owner, wires) in &plan.inputs {
        shares.clear();
        secrets.clear();
        source.owned_bits(*owner, wires.len(), &mut shares, &mut secrets)?;
        for (i, &w) in wires.iter().enumerate() {
            lambda[w as usize] = shares[i];
            if *owner == me {
                let l = secrets.get(i).copied().ok_or_else(|| {
                    RunError::Input(
                        "the linear preprocessing gave the owner no permutation bit".into(),
                    )
                })?;
                own_lambda.push((w, l));
            }
        }
    }
    let mut offset = Gf128::ZERO;
    let mut offsets = Vec::with_capacity(contributors);
    for j in 0..contributors {
        let (share, secret) = source.owned_element(j)?;
        if let Some(r) = secret {
            offset = r;
        }
        offsets.push(share);
    }
    Ok((offset, offsets))
}
