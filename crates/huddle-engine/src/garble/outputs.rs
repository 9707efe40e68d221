//! The outputs to the parties that learn them: malicious, every key
//! contributor checks the evaluator's output keys against its own labels
//! (round C) and a party accepts only t + 1 equal reports (round D);
//! semi-honest, the evaluator sends the output bits once the batch is done.
//! Then the bits become the circuit's output matrices.

use super::context::{Garbling, Run};
use super::encoding::{le_u128s, pack_bits, unpack_bits};
use super::plan::Plan;
use super::EVALUATOR;
use crate::error::{FailedCheck, RunError};
use crate::transport::Transport;
use huddle_circuit::BitMatrix;
use huddle_core::Gf128;
use huddle_net::PartyId;

/// A contributor other than the evaluator: checks the evaluator's output
/// keys against its own two labels per output wire and returns the bits
/// they encode (λ of every output wire is 0).
pub(super) fn check_output_keys<T: Transport>(
    net: &mut T,
    run: &Run,
    states: &[Garbling],
    offsets: &[Gf128],
) -> Result<Vec<bool>, RunError> {
    let (plan, instances) = (run.plan, run.instances);
    let per = plan.output_wires();
    let bytes = net.recv(EVALUATOR, 16 * per * instances)?;
    let mut keys = le_u128s(&bytes);
    let mut bits = Vec::with_capacity(per * instances);
    for (inst, state) in states.iter().enumerate() {
        for (k, &w) in plan.outputs.iter().flatten().enumerate() {
            let key = keys.next().unwrap_or_default();
            let zero = state.keys[w as usize];
            bits.push(if key == zero {
                false
            } else if key == zero ^ offsets[inst].0 {
                true
            } else {
                return Err(RunError::abort(
                    FailedCheck::OutputLabel {
                        bit: k,
                        instance: run.first + inst,
                        contributor: net.party(),
                    },
                    Some(EVALUATOR),
                ));
            });
        }
    }
    Ok(bits)
}

/// Round D of the malicious output delivery: every contributor sends the
/// output bits it checked (`own`) to every other party; a party accepts
/// only if all t + 1 contributors report the same bits.
pub(super) fn confirm_outputs<T: Transport>(
    net: &mut T,
    plan: &Plan,
    instances: usize,
    contributors: usize,
    own: Option<Vec<bool>>,
) -> Result<Vec<bool>, RunError> {
    let (me, n) = (net.party(), net.parties());
    let count = plan.output_wires() * instances;
    let mut agreed: Option<(PartyId, Vec<u8>)> = None;
    if let Some(bits) = &own {
        let packed = pack_bits(bits);
        for p in (0..n).filter(|&p| p != me) {
            net.send(p, packed.clone())?;
        }
        agreed = Some((me, packed));
    }
    for j in (0..contributors).filter(|&j| j != me) {
        let report = net.recv(j, count.div_ceil(8))?;
        match &agreed {
            Some((first, bits)) if *bits != report => {
                return Err(RunError::abort(
                    FailedCheck::OutputReports {
                        first: *first,
                        other: j,
                    },
                    None,
                ));
            }
            Some(_) => {}
            None => agreed = Some((j, report)),
        }
    }
    Ok(agreed
        .map(|(_, b)| unpack_bits(&b, count))
        .unwrap_or_default())
}

/// The outputs of the whole batch, after its last chunk. Semi-honest,
/// round C: the evaluator sends every output bit to every other party at
/// once (unless only it learns them), so the others go on to the next
/// chunk while it evaluates. Malicious: every chunk's outputs were checked
/// and agreed in its own rounds already (`bits` holds them).
pub(super) fn finish_outputs<T: Transport>(
    run: &Run,
    net: &mut T,
    mut bits: Vec<bool>,
    everyone_learns: bool,
) -> Result<Vec<BitMatrix>, RunError> {
    let (plan, instances) = (run.plan, run.instances);
    if !run.variant.is_malicious() {
        if run.me == EVALUATOR {
            if everyone_learns {
                let packed = pack_bits(&bits);
                for p in 1..run.n {
                    net.send(p, packed.clone())?;
                }
            }
        } else if everyone_learns {
            let count = plan.output_wires() * instances;
            bits = unpack_bits(&net.recv(EVALUATOR, count.div_ceil(8))?, count);
        } else {
            net.stop_clock();
            return Ok(Vec::new());
        }
    }
    net.stop_clock();
    Ok(matrices(plan, &bits, instances))
}

fn matrices(plan: &Plan, flat: &[bool], instances: usize) -> Vec<BitMatrix> {
    let per = plan.output_wires();
    let mut out: Vec<BitMatrix> = plan
        .outputs
        .iter()
        .map(|w| BitMatrix::zeros(instances, w.len()))
        .collect();
    for inst in 0..instances {
        let mut k = inst * per;
        for (m, wires) in out.iter_mut().zip(&plan.outputs) {
            for col in 0..wires.len() {
                m.set(inst, col, flat[k]);
                k += 1;
            }
        }
    }
    out
}
