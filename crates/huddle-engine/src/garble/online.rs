//! The online phase of a chunk: round A, the masked inputs from their
//! owners to the key contributors; round B, the contributors' input keys to
//! the evaluator, who evaluates (at once, or for the semi-honest evaluator
//! on a second thread beside the next chunk: [`Online::Evaluate`]); for the
//! malicious variant, rounds C and D ([`super::outputs`]).

use super::context::{Garbling, Run};
use super::encoding::{le_u128s, pack_bits, u128s_to_bytes, unpack_bits};
use super::evaluator::Evaluation;
use super::outputs::{check_output_keys, confirm_outputs};
use super::EVALUATOR;
use crate::error::RunError;
use crate::transport::Transport;
use huddle_circuit::BitMatrix;
use huddle_core::Gf128;
use huddle_net::Phase;

/// What the online phase leaves a party with for one chunk.
pub(super) enum Online {
    /// The output bits this party knows (at most parties: none until the end).
    Known(Vec<bool>),
    /// Semi-honest evaluator: what the evaluation needs, which sends
    /// nothing, so it may run beside the next chunk's rounds.
    Evaluate(Evaluation),
}

/// The online phase (three rounds, four with the malicious confirmation).
/// With `defer`, the semi-honest evaluator returns its evaluation undone.
pub(super) fn online<T: Transport>(
    run: &Run,
    net: &mut T,
    states: &[Garbling],
    rows: &[u128],
    own_inputs: &[(usize, BitMatrix)],
    offsets: &[Gf128],
    defer: bool,
) -> Result<Online, RunError> {
    net.set_phase(Phase::Online);
    let external = exchange_masked_inputs(run, net, states, own_inputs)?;
    open_outputs(run, net, states, rows, offsets, external, defer)
}

/// The online phase after the masked inputs (round A): round B, the
/// evaluation, and for the malicious variant rounds C and D.
pub(super) fn open_outputs<T: Transport>(
    run: &Run,
    net: &mut T,
    states: &[Garbling],
    rows: &[u128],
    offsets: &[Gf128],
    external: Vec<Vec<bool>>,
    defer: bool,
) -> Result<Online, RunError> {
    let (plan, me, instances, contributors) = (run.plan, run.me, run.instances, run.contributors);
    let malicious = run.variant.is_malicious();
    net.set_phase(Phase::Online);
    net.announce(crate::transport::REVEAL);
    if me >= contributors {
        if malicious {
            return confirm_outputs(net, plan, instances, contributors, None).map(Online::Known);
        }
        return Ok(Online::Known(Vec::new()));
    }
    // Round B: the contributors' keys for the inputs (and constants) to the evaluator.
    let key_of = |state: &Garbling, inst: usize, w: u32, e: bool| {
        state.keys[w as usize] ^ if e { offsets[inst].0 } else { 0 }
    };
    let per_inst = plan.all_input_wires() + plan.consts.len();
    let mut input_keys: Vec<u128> = Vec::with_capacity(per_inst * instances);
    for (inst, state) in states.iter().enumerate() {
        for (_, wires) in &plan.inputs {
            for &w in wires {
                input_keys.push(key_of(state, inst, w, external[inst][w as usize]));
            }
        }
        for &(w, v) in &plan.consts {
            input_keys.push(key_of(state, inst, w, v));
        }
    }
    if me != EVALUATOR {
        net.send(EVALUATOR, u128s_to_bytes(&input_keys))?;
        if malicious {
            let own = check_output_keys(net, run, states, offsets)?;
            return confirm_outputs(net, plan, instances, contributors, Some(own))
                .map(Online::Known);
        }
        return Ok(Online::Known(Vec::new()));
    }
    let mut keys_from: Vec<Vec<u128>> = vec![input_keys];
    for p in 1..contributors {
        keys_from.push(le_u128s(&net.recv(p, 16 * per_inst * instances)?).collect());
    }
    let evaluation = Evaluation {
        keys_from,
        external,
    };
    if !malicious {
        if defer {
            return Ok(Online::Evaluate(evaluation));
        }
        return evaluation
            .evaluate(run, states, rows, offsets, None)
            .map(Online::Known);
    }
    let mut output_keys: Vec<Vec<u128>> = vec![Vec::new(); contributors];
    let results = evaluation.evaluate(run, states, rows, offsets, Some(&mut output_keys))?;
    // Round C: contributor j gets its part of every output superseed.
    for (j, part) in output_keys.iter().enumerate().skip(1) {
        net.send(j, u128s_to_bytes(part))?;
    }
    confirm_outputs(net, plan, instances, contributors, Some(results)).map(Online::Known)
}

/// Round A: masked inputs e = x ⊕ λ from their owners to the contributors.
/// Returns the external value of every wire known so far, per instance.
pub(super) fn exchange_masked_inputs<T: Transport>(
    run: &Run,
    net: &mut T,
    states: &[Garbling],
    own_inputs: &[(usize, BitMatrix)],
) -> Result<Vec<Vec<bool>>, RunError> {
    let (plan, me, instances, contributors) = (run.plan, run.me, run.instances, run.contributors);
    let mut external: Vec<Vec<bool>> = vec![vec![false; plan.wires]; instances];
    let mut mine: Vec<bool> = Vec::new();
    for (inst, state) in states.iter().enumerate() {
        let mut k = 0;
        for (index, (owner, wires)) in plan.inputs.iter().enumerate() {
            if *owner != me {
                continue;
            }
            let (_, m) = own_inputs
                .iter()
                .find(|(i, _)| *i == index)
                .expect("checked: every owned input is given");
            for (col, &w) in wires.iter().enumerate() {
                let (lw, l) = state.own_lambda[k];
                debug_assert_eq!(lw, w);
                k += 1;
                let e = m.get(run.first + inst, col) ^ l;
                external[inst][w as usize] = e;
                mine.push(e);
            }
        }
    }
    let packed = pack_bits(&mine);
    for p in 0..contributors {
        if p != me && !packed.is_empty() {
            net.send(p, packed.clone())?;
        }
    }
    if me < contributors {
        for p in (0..run.n).filter(|&p| p != me) {
            let count = plan.input_wires_of(p) * instances;
            if count == 0 {
                continue;
            }
            let bits = unpack_bits(&net.recv(p, count.div_ceil(8))?, count);
            let mut it = bits.into_iter();
            for ext in external.iter_mut() {
                for (_, wires) in plan.inputs.iter().filter(|(o, _)| *o == p) {
                    for &w in wires {
                        ext[w as usize] = it.next().expect("counted");
                    }
                }
            }
        }
    }
    Ok(external)
}
