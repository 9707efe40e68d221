//! One party's garbling run from start to end: what is refused before it
//! starts ([`Variant::check_run`]), the setup, then chunk by chunk (as many
//! instances as the share memory holds) the offline, dependent and online
//! rounds. The semi-honest evaluator evaluates a chunk on a second thread
//! beside the next chunk's rounds; bgw2-mal runs its batch as one joint
//! evaluation (`malicious_batch`). The one module that calls the rounds, so
//! none of them depends on it.

use super::context::{Garbling, Run};
use super::dependent::{degree_reduction, garbled_rows};
use super::field::{reconstruction, DoubleKeyPrf};
use super::linear::{self, LinearSource};
use super::offline::{first_round, Independent};
use super::online::{exchange_masked_inputs, online, open_outputs, Online};
use super::options::{Optimizations, Variant};
use super::outputs::finish_outputs;
use super::plan::Plan;
use super::setup::{setup, LinearSupply};
use super::EVALUATOR;
use crate::error::{Refusal, RunError};
use crate::transport::Transport;
use huddle_circuit::{BitMatrix, Circuit};
use huddle_core::{Gf128, Prg};
use huddle_net::Phase;

impl Variant {
    /// Everything about a garbling run that is refused before it starts:
    /// the party count, `--reveal-to` (the semi-honest variants: the
    /// evaluator alone or everyone; the malicious variant's key contributors
    /// decode the outputs to confirm them, so it cannot keep them from
    /// those parties), and the malicious variant's optimizations and linear
    /// preprocessing. The request checks it, and so does a direct call.
    pub fn check_run(self, n: usize, options: &crate::RunOptions) -> Result<(), RunError> {
        self.check_parties(n)?;
        match (options.reveal_to, self.is_malicious()) {
            (None, _) | (Some(EVALUATOR), false) => {}
            (Some(_), true) => return Err(RunError::refused(
                Refusal::Option { option: "reveal-to" },
                "bgw2-mal cannot reveal to one party only: its key contributors decode the outputs to confirm them (drop --reveal-to)",
            )),
            (Some(to), false) => return Err(RunError::refused(
                Refusal::Option { option: "reveal-to" },
                format!("in BMR the evaluator (party 0) learns the outputs; --reveal-to {to} is not supported (only 0, or every party)"),
            )),
        }
        if self.is_malicious() {
            if !options.garble.reduced_complexity {
                return Err(RunError::refused(
                    Refusal::Option { option: "opt" },
                    "bgw2-mal builds on the reduced-complexity rows: --opt must include `reduced`",
                ));
            }
            let t = self.threshold(n);
            linear::check_choice(options.linear.resolve(n, t), n, t)?;
        }
        Ok(())
    }
}

/// Runs one party of `variant` for `instances` instances; `own_inputs`
/// holds a matrix (rows = instances) for every input value this party
/// owns, by index. Returns every output value at the parties that learn
/// them (party 0 always does; `reveal_to` other than 0 is refused). The
/// malicious variant takes its linear preprocessing from PRSS, or from a
/// trusted dealer's `supply` where `options.linear` resolves to it.
pub(crate) fn run_with_supply<T: Transport>(
    net: &mut T,
    variant: Variant,
    circuit: &Circuit,
    instances: usize,
    own_inputs: &[(usize, BitMatrix)],
    options: crate::RunOptions,
    supply: Option<LinearSupply>,
) -> Result<Vec<BitMatrix>, RunError> {
    let (me, n) = (net.party(), net.parties());
    let malicious = variant.is_malicious();
    variant.check_run(n, &options)?;
    crate::inputs::check_own_inputs(me, n, circuit, instances, own_inputs)?;
    let plan = Plan::new(circuit, n, malicious)?;
    let t = variant.threshold(n);
    let linear_choice = options.linear.resolve(n, t);
    let contributors = options.garble.contributors(variant, n);
    let mut run = Run {
        plan: &plan,
        variant,
        opts: options.garble,
        me,
        n,
        t,
        first: 0,
        instances,
        contributors,
        constants: reconstruction(n),
        prf: DoubleKeyPrf::new(),
    };
    let mut prg = options
        .randomness
        .draw(me, crate::options::draws::GARBLING)?;
    let (mut zero, mut source) = setup(&run, net, &mut prg, linear_choice, supply, circuit)?;
    // A batch larger than the share memory is garbled and evaluated chunk
    // by chunk (same setup, the rounds once per chunk), so a party holds
    // one chunk's garbled circuit and state, not the whole batch's. With
    // more than one thread, the semi-honest evaluator evaluates a chunk
    // beside the next one's garbling (evaluating sends nothing), so it
    // holds two chunks and each is half as large.
    let overlap = overlaps(malicious, &options);
    let chunk = chunk_instances(&plan, contributors, &options, malicious);
    let per_instance = instance_bytes(&plan, contributors, options.garble);
    if malicious {
        // A batch is one joint evaluation: every chunk's garbled circuit
        // waits until every chunk's masked inputs are in.
        crate::check_memory(
            &format!(
                "bgw2-mal on {instances} instances of this circuit (held until every input is in)"
            ),
            per_instance as u128 * instances as u128,
        )?;
        return malicious_batch(
            &mut run,
            net,
            chunk,
            own_inputs,
            &mut prg,
            &mut source,
            &mut zero,
        )
        .and_then(|bits| {
            run.first = 0;
            run.instances = instances;
            finish_outputs(&run, net, bits, options.reveal_to.is_none())
        });
    }
    std::thread::scope(|s| {
        // Output bits, instance after instance, as far as this party knows them.
        let mut bits: Vec<bool> = Vec::new();
        let mut evaluating: Option<std::thread::ScopedJoinHandle<'_, _>> = None;
        let finished = |h: std::thread::ScopedJoinHandle<'_, Result<Vec<bool>, RunError>>| {
            h.join()
                .map_err(|_| RunError::Internal("the evaluation thread panicked".into()))?
        };
        for first in (0..instances).step_by(chunk) {
            run.first = first;
            run.instances = chunk.min(instances - first);
            let mut independent = first_round(&run, net, &mut prg, &mut source)?;
            let products = degree_reduction(&run, net, &mut prg, &independent.states)?;
            let rows = garbled_rows(&run, net, &mut independent, &products, &mut zero)?;
            drop(products);
            let Independent {
                states, my_offset, ..
            } = independent;
            match online(&run, net, &states, &rows, own_inputs, &my_offset, overlap)? {
                Online::Known(known) => bits.extend(known),
                Online::Evaluate(evaluation) => {
                    if let Some(h) = evaluating.take() {
                        bits.extend(finished(h)?);
                    }
                    let chunk_run = run.for_chunk();
                    evaluating = Some(s.spawn(move || {
                        evaluation.evaluate(&chunk_run, &states, &rows, &my_offset, None)
                    }));
                }
            }
        }
        if let Some(h) = evaluating.take() {
            bits.extend(finished(h)?);
        }
        run.first = 0;
        run.instances = instances;
        finish_outputs(&run, net, bits, options.reveal_to.is_none())
    })
}

/// A chunk of a malicious run, garbled and with its masked inputs in,
/// waiting for its outputs to be opened.
struct HeldChunk {
    first: usize,
    instances: usize,
    states: Vec<Garbling>,
    rows: Vec<u128>,
    my_offset: Vec<Gf128>,
    external: Vec<Vec<bool>>,
}

/// bgw2-mal's batch as one joint evaluation: every chunk is garbled and its
/// masked inputs exchanged (round A, which fixes every party's inputs)
/// before any chunk's input keys go to the evaluator (round B), which lets
/// it evaluate; so a cheating party sees no output of the batch before it
/// has committed all its inputs. The garbled chunks are held meanwhile.
/// Returns the output bits, instance after instance.
#[allow(clippy::too_many_arguments)]
fn malicious_batch<T: Transport>(
    run: &mut Run,
    net: &mut T,
    chunk: usize,
    own_inputs: &[(usize, BitMatrix)],
    prg: &mut Prg,
    source: &mut Option<Box<dyn LinearSource>>,
    zero: &mut [Option<Prg>],
) -> Result<Vec<bool>, RunError> {
    let instances = run.instances;
    let mut held = Vec::with_capacity(instances.div_ceil(chunk));
    for first in (0..instances).step_by(chunk) {
        run.first = first;
        run.instances = chunk.min(instances - first);
        let mut independent = first_round(run, net, prg, source)?;
        let products = degree_reduction(run, net, prg, &independent.states)?;
        let rows = garbled_rows(run, net, &mut independent, &products, zero)?;
        drop(products);
        let Independent {
            states, my_offset, ..
        } = independent;
        net.set_phase(Phase::Online);
        let external = exchange_masked_inputs(run, net, &states, own_inputs)?;
        held.push(HeldChunk {
            first,
            instances: run.instances,
            states,
            rows,
            my_offset,
            external,
        });
    }
    let mut bits = Vec::new();
    for h in held {
        run.first = h.first;
        run.instances = h.instances;
        match open_outputs(
            run,
            net,
            &h.states,
            &h.rows,
            &h.my_offset,
            h.external,
            false,
        )? {
            Online::Known(known) => bits.extend(known),
            Online::Evaluate(_) => {
                return Err(RunError::Internal(
                    "a malicious evaluation was deferred".into(),
                ))
            }
        }
    }
    Ok(bits)
}

/// Instances per chunk of a run of `variant` among `parties` parties on
/// `circuit` with `options`: the most a run holds at once, and the most a
/// run can have whose phases follow each other instead of overlapping
/// chunk by chunk (what calibration's probes need).
pub(crate) fn chunk_of(
    variant: Variant,
    parties: usize,
    circuit: &huddle_circuit::Circuit,
    options: &crate::RunOptions,
) -> Result<usize, crate::error::RunError> {
    let malicious = variant.is_malicious();
    let plan = Plan::new(circuit, parties, malicious)?;
    let contributors = options.garble.contributors(variant, parties);
    Ok(chunk_instances(&plan, contributors, options, malicious))
}

/// Whether the semi-honest evaluator evaluates a chunk on a second thread
/// beside the next chunk's rounds (more than one thread).
pub(super) fn overlaps(malicious: bool, options: &crate::RunOptions) -> bool {
    !malicious && options.worker_threads() > 1
}

/// Instances per chunk: as many as the share memory holds (half of it
/// where two chunks are held at once, see [`overlaps`]), at least one.
pub(super) fn chunk_instances(
    plan: &Plan,
    contributors: usize,
    options: &crate::RunOptions,
    malicious: bool,
) -> usize {
    let budget = options.share_memory / if overlaps(malicious, options) { 2 } else { 1 };
    let for_instances = budget.saturating_sub(evaluation_bytes(plan, contributors));
    (for_instances / instance_bytes(plan, contributors, options.garble)).max(1)
}

/// What one instance holds at its peak at the evaluator (the other parties
/// hold less): its garbled rows, λ and key per wire, the reduced products
/// and the χ·R terms, and without reduced complexity the Shamir-shared rows.
fn instance_bytes(plan: &Plan, contributors: usize, opts: Optimizations) -> usize {
    let rows = (4 * plan.ands + 2 * plan.buffers) * contributors;
    let shamir_rows = if opts.reduced_complexity { 0 } else { rows };
    let words = rows + shamir_rows + plan.wires * 2 + plan.ands * (contributors + 1);
    (16 * words + plan.wires).max(1)
}

/// What the evaluation of a chunk holds whatever its size: every
/// contributor's key per wire, for one instance at a time.
fn evaluation_bytes(plan: &Plan, contributors: usize) -> usize {
    16 * plan.wires * contributors
}
