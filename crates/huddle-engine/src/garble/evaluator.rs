//! The evaluator's decryption of the garbled circuit: [`Evaluation`], a
//! chunk's inputs to it (all the semi-honest evaluator hands to a second
//! thread), and the walk over an instance's steps: each AND layer in one
//! AES batch, buffer gates one by one, free gates by free XOR. A row that
//! opens to neither of the evaluator's own keys aborts the run.

use super::context::{Garbling, Run};
use super::gate_prf::push_eval_inputs;
use super::plan::Step;
use crate::error::{FailedCheck, RunError};
use huddle_core::Gf128;

/// The evaluator's inputs to the evaluation of one chunk.
pub(super) struct Evaluation {
    /// Every contributor's keys of the input wires and constants.
    pub(super) keys_from: Vec<Vec<u128>>,
    /// External values known so far, per instance.
    pub(super) external: Vec<Vec<bool>>,
}

impl Evaluation {
    /// Decrypts the chunk instance by instance into its output bits;
    /// malicious, also collects each contributor's part of every output
    /// superseed.
    pub(super) fn evaluate(
        mut self,
        run: &Run,
        states: &[Garbling],
        rows: &[u128],
        offsets: &[Gf128],
        mut output_keys: Option<&mut [Vec<u128>]>,
    ) -> Result<Vec<bool>, RunError> {
        let (plan, contributors) = (run.plan, run.contributors);
        let mut results: Vec<bool> = Vec::with_capacity(states.len() * plan.output_wires());
        let mut evaluator = Evaluator {
            run,
            keys: vec![0u128; plan.wires * contributors],
            prf_in: Vec::with_capacity(contributors * contributors),
        };
        let rows_per_instance = (4 * plan.ands + 2 * plan.buffers) * contributors;
        for (inst, state) in states.iter().enumerate() {
            let ext = &mut self.external[inst];
            evaluator.load_inputs(inst, &self.keys_from, ext);
            let rows = &rows[inst * rows_per_instance..(inst + 1) * rows_per_instance];
            evaluator.evaluate(inst, state, offsets[inst].0, rows, ext)?;
            results.extend(
                plan.outputs
                    .iter()
                    .flatten()
                    .zip(&state.output_lambda)
                    .map(|(&w, &l)| ext[w as usize] ^ l),
            );
            if let Some(out) = output_keys.as_deref_mut() {
                for &w in plan.outputs.iter().flatten() {
                    for (j, part) in out.iter_mut().enumerate() {
                        part.push(evaluator.keys[w as usize * contributors + j]);
                    }
                }
            }
        }
        Ok(results)
    }
}

/// The evaluator's decryption of the garbled circuit.
struct Evaluator<'a> {
    run: &'a Run<'a>,
    /// Every contributor's key per wire (wire-major), reused across instances.
    keys: Vec<u128>,
    /// PRF inputs of one AND layer or buffer gate.
    prf_in: Vec<u128>,
}

impl Evaluator<'_> {
    /// The contributors' keys of the input wires and constants of one
    /// instance; constants' external values are their values.
    fn load_inputs(&mut self, inst: usize, keys_from: &[Vec<u128>], ext: &mut [bool]) {
        let (plan, contributors) = (self.run.plan, self.run.contributors);
        let per_inst = plan.all_input_wires() + plan.consts.len();
        let wires = plan.inputs.iter().flat_map(|(_, w)| w.iter().copied());
        let consts = plan.consts.iter().map(|&(w, _)| w);
        for (k, w) in wires.chain(consts).enumerate() {
            for j in 0..contributors {
                self.keys[w as usize * contributors + j] = keys_from[j][inst * per_inst + k];
            }
        }
        for &(w, v) in &plan.consts {
            ext[w as usize] = v;
        }
    }

    /// Walks the steps of one instance: AND layers decrypted in one AES batch
    /// each, buffer gates one by one, free gates by free XOR.
    fn evaluate(
        &mut self,
        inst: usize,
        state: &Garbling,
        offset: u128,
        rows: &[u128],
        ext: &mut [bool],
    ) -> Result<(), RunError> {
        let (plan, contributors) = (self.run.plan, self.run.contributors);
        // The evaluator's own key tells the external value, or that a row was forged.
        let external_of = |w: u32, key: u128, gate: usize| {
            if key == state.keys[w as usize] {
                Ok(false)
            } else if key == state.keys[w as usize] ^ offset {
                Ok(true)
            } else {
                Err(RunError::abort(
                    FailedCheck::GarbledGate {
                        gate,
                        instance: self.run.first + inst,
                    },
                    None,
                ))
            }
        };
        let (mut and_index, mut buffer_index) = (0, 0);
        let mut batches = plan.and_batches.iter().peekable();
        let mut at = 0;
        while at < plan.steps.len() {
            if let Some(batch) = batches.next_if(|b| b.start == at) {
                let layer = &plan.steps[batch.clone()];
                self.open_and_layer(inst, and_index, layer, rows, ext)?;
                for (k, s) in layer.iter().enumerate() {
                    if let Step::And(_, _, o) = *s {
                        let key = self.keys[o as usize * contributors];
                        ext[o as usize] = external_of(o, key, and_index + k)?;
                    }
                }
                and_index += layer.len();
                at = batch.end;
                continue;
            }
            let step = plan.steps[at];
            at += 1;
            if let Step::Buffer(a, o) = step {
                let gate = plan.ands + buffer_index;
                self.prf_in.clear();
                push_eval_inputs(
                    &self.keys,
                    (a, None),
                    (self.run.first + inst, gate),
                    contributors,
                    &mut self.prf_in,
                );
                self.run.prf.apply(&mut self.prf_in);
                let e = ext[a as usize];
                let row = (4 * plan.ands + 2 * buffer_index + usize::from(e)) * contributors;
                open_row(&rows[row..], &self.prf_in, o, contributors, &mut self.keys);
                ext[o as usize] = external_of(o, self.keys[o as usize * contributors], gate)?;
                buffer_index += 1;
            } else {
                self.free_step(step, ext)?;
            }
        }
        Ok(())
    }

    /// Opens the row (e_a, e_b) of every AND gate of one layer, with all F²
    /// values of the layer in one AES batch.
    fn open_and_layer(
        &mut self,
        inst: usize,
        first_and: usize,
        layer: &[Step],
        rows: &[u128],
        ext: &[bool],
    ) -> Result<(), RunError> {
        let contributors = self.run.contributors;
        self.prf_in.clear();
        for (k, s) in layer.iter().enumerate() {
            let Step::And(a, b, _) = *s else {
                return Err(RunError::Internal("a free gate inside an AND layer".into()));
            };
            let at = (self.run.first + inst, first_and + k);
            push_eval_inputs(&self.keys, (a, Some(b)), at, contributors, &mut self.prf_in);
        }
        self.run.prf.apply(&mut self.prf_in);
        for (k, s) in layer.iter().enumerate() {
            let Step::And(a, b, o) = *s else { continue };
            let (ea, eb) = (ext[a as usize], ext[b as usize]);
            let gate = first_and + k;
            let row = (gate * 4 + usize::from(ea) * 2 + usize::from(eb)) * contributors;
            let values = &self.prf_in[k * contributors * contributors..];
            open_row(&rows[row..], values, o, contributors, &mut self.keys);
        }
        Ok(())
    }

    /// A free gate: external values and keys follow from the inputs.
    fn free_step(&mut self, step: Step, ext: &mut [bool]) -> Result<(), RunError> {
        let c = self.run.contributors;
        let keys = &mut self.keys;
        match step {
            Step::Xor(a, b, o) => {
                ext[o as usize] = ext[a as usize] ^ ext[b as usize];
                for j in 0..c {
                    keys[o as usize * c + j] = keys[a as usize * c + j] ^ keys[b as usize * c + j];
                }
            }
            Step::Inv(a, o) | Step::Copy(a, o) => {
                ext[o as usize] = ext[a as usize] ^ matches!(step, Step::Inv(..));
                for j in 0..c {
                    keys[o as usize * c + j] = keys[a as usize * c + j];
                }
            }
            Step::Const(..) => {}
            Step::And(..) | Step::Buffer(..) => {
                return Err(RunError::Internal(
                    "a garbled gate outside the AND layers".into(),
                ))
            }
        }
        Ok(())
    }
}

/// Opens a garbled row: contributor j's key of wire `o` is the row's j-th
/// value minus the F² values of every contributor's input keys.
fn open_row(row: &[u128], values: &[u128], o: u32, contributors: usize, keys: &mut [u128]) {
    for j in 0..contributors {
        let mut key = row[j];
        for i in 0..contributors {
            key ^= values[j * contributors + i];
        }
        keys[o as usize * contributors + j] = key;
    }
}
