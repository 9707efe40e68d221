//! Constant-round multiparty garbling (BMR) with an honest majority:
//! Ben-Efraim and Omri's BGW3_opt (t = ⌈n/2⌉ − 1, three offline rounds) and
//! BGW2_opt (t = ⌈n/3⌉ − 1, two offline rounds), semi-honest, and
//! BGW2_opt^mal (malicious, with abort), any n ≥ 3.
//!
//! Offline (the functionality F_GC of their Figure 1, Section 3.3):
//! 1. every party Shamir-shares (degree t) a random permutation bit for
//!    every AND output; the owner of an input wire shares its λ alone; each
//!    key-contributing party j ∈ {0..t} shares its offset R^j;
//! 2. BGW3_opt only: GRR degree reduction of the products λ_u·λ_v;
//! 3. for every AND gate, (α, β) and j ≤ t each party converts its share of
//!    ((λ_u ⊕ α)(λ_v ⊕ β) ⊕ λ_w)·R^j to an additive share (times its
//!    reconstruction constant), adds its own F² values and, for j itself,
//!    k^j_{w,0}, masks with a PRG-derived additive sharing of zero and sends
//!    the result to the evaluator (party 0), who sums the garbled rows.
//!    Output wires' λ shares go to the evaluator as well.
//!
//! The optimizations of Sections 3.1–3.2, each switchable ([`Optimizations`]):
//! PRF values and keys are never Shamir-shared (only λ and R are), only
//! t + 1 parties contribute keys (superseeds of (t + 1)·16 bytes), zero
//! shares come from pairwise PRG seeds agreed in the setup phase, and the
//! last round may run over a hypercube.
//!
//! BGW2_opt^mal (Section 4, t < n/3, security with abort): round 1 is
//! replaced by the linear-preprocessing functionalities ([`linear`]: PRSS or
//! a trusted dealer), so it costs no communication; every output wire that
//! is not the output of an AND gets a garbled buffer gate (two rows), and
//! every output permutation bit is a sharing of 0, so the evaluator learns
//! the outputs from the external values alone and no λ is ever opened. The
//! evaluator then sends each key contributor j its part k^j of every output
//! superseed; j checks it against its two labels and sends the output bits
//! to every party; a party accepts only t + 1 equal reports (one of them
//! from an honest contributor), else aborts.
//!
//! Phases: setup (zero-sharing seeds; PRSS keys), offline =
//! function-independent preprocessing (round 1 and dealt zero shares),
//! dependent = function-dependent preprocessing (rounds 2 and 3), online.
//!
//! Online (their Figure 2): input owners send e_w = x ⊕ λ_w to the key
//! contributors, the contributors send k^j_{w,e_w} to the evaluator, the
//! evaluator decrypts layer by layer (free XOR; an AND row yields every
//! contributor's key, and the evaluator's own part tells e_out or that the
//! row was forged: abort) and sends the outputs to every other party: three
//! rounds whatever the depth (four with the malicious output confirmation).

// Loops run over party ids and contributor indices that index several
// tables at once; index loops say that more plainly than zipped iterators.
#![allow(clippy::needless_range_loop)]

pub mod field;
pub mod linear;
mod options;

pub use options::{Optimizations, Variant};

use crate::error::RunError;
use crate::transport::Transport;
use field::{reconstruction, share_batch, share_each, DoubleKeyPrf};
use huddle_circuit::{BitMatrix, Circuit, Domain, Op, Schedule, ScheduleOptions, Storage};
use huddle_core::{Gf128, Prg};
use huddle_net::{PartyId, Phase};
use linear::{Dealt, DealtHeader, LinearChoice, LinearSource, Recorder, Recording, TrustedDealer};
use std::sync::Arc;

/// The party that evaluates the garbled circuit.
pub const EVALUATOR: PartyId = 0;

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
            (Some(_), true) => return Err(RunError::Input(
                "bgw2-mal cannot reveal to one party only: its key contributors decode the outputs to confirm them (drop --reveal-to)".into(),
            )),
            (Some(to), false) => return Err(RunError::Input(format!(
                "in BMR the evaluator (party 0) learns the outputs; --reveal-to {to} is not supported (only 0, or every party)"
            ))),
        }
        if self.is_malicious() {
            if !options.garble.reduced_complexity {
                return Err(RunError::Input(
                    "bgw2-mal builds on the reduced-complexity rows: --opt must include `reduced`"
                        .into(),
                ));
            }
            let t = self.threshold(n);
            linear::check_choice(options.linear.resolve(n, t), n, t)?;
        }
        Ok(())
    }
}

/// The circuit as garbling sees it: 2-input ANDs and free gates.
#[derive(Clone, Copy, Debug)]
enum Step {
    Xor(u32, u32, u32),
    Inv(u32, u32),
    Copy(u32, u32),
    Const(u32),
    And(u32, u32, u32),
    /// A garbled buffer gate (malicious variant): input, output.
    Buffer(u32, u32),
}

struct Plan {
    steps: Vec<Step>,
    wires: usize,
    ands: usize,
    /// Garbled buffer gates (the last steps; malicious variant only).
    buffers: usize,
    /// Per AND gate: whether its output is a circuit output (its λ is 0
    /// in the malicious variant).
    and_is_output: Vec<bool>,
    /// (owner, wires) per input value.
    inputs: Vec<(PartyId, Vec<u32>)>,
    consts: Vec<(u32, bool)>,
    outputs: Vec<Vec<u32>>,
    /// Step ranges of independent AND gates (one AND layer each), which
    /// the evaluator decrypts together.
    and_batches: Vec<std::ops::Range<usize>>,
    /// The wires whose keys are drawn at random (no free gate drives them).
    fresh_keys: Vec<u32>,
    /// The AND gates in step order, (input, input, output): every phase
    /// walks them, and most steps of a circuit are free.
    and_list: Vec<(u32, u32, u32)>,
}

impl Plan {
    /// The circuit in garbling steps; `buffered` adds a buffer gate for each
    /// output wire that no AND gate drives and points the output there.
    fn new(circuit: &Circuit, parties: usize, buffered: bool) -> Result<Plan, RunError> {
        if !circuit.is_boolean() {
            return Err(RunError::Input(
                "garbling runs Boolean circuits only".into(),
            ));
        }
        // Every wire keeps its slot (its keys and λ are revisited in every
        // phase); the AND rounds are the layers the evaluator decrypts together.
        let schedule = Schedule::compile(
            circuit,
            ScheduleOptions {
                storage: Storage::PerWire,
                ..ScheduleOptions::rounds(2)
            },
        );
        let mut steps = Vec::with_capacity(schedule.steps().len());
        let mut consts = Vec::new();
        for g in schedule.steps() {
            let (i, o) = (schedule.inputs_of(g), schedule.outputs_of(g));
            steps.push(match g.op {
                Op::Xor => Step::Xor(i[0], i[1], o[0]),
                Op::Inv => Step::Inv(i[0], o[0]),
                Op::Copy => Step::Copy(i[0], o[0]),
                Op::ConstBit(v) => {
                    consts.push((o[0], v));
                    Step::Const(o[0])
                }
                Op::And => Step::And(i[0], i[1], o[0]),
                other => {
                    return Err(RunError::Input(format!(
                        "garbling runs Boolean circuits only, not {}",
                        other.name()
                    )))
                }
            });
        }
        let ands = steps.iter().filter(|s| matches!(s, Step::And(..))).count();
        let and_batches = schedule
            .groups()
            .iter()
            .filter(|g| schedule.is_round(g))
            .cloned()
            .collect();
        let inputs = schedule
            .input_slots()
            .iter()
            .enumerate()
            .map(|(i, slots)| (circuit.owner(i, parties), slots.clone()))
            .collect();
        let mut outputs: Vec<Vec<u32>> = schedule.output_slots().to_vec();
        let mut wires = schedule.slots(Domain::Bit);
        let mut is_and_output = vec![false; wires];
        for s in &steps {
            if let Step::And(_, _, o) = *s {
                is_and_output[o as usize] = true;
            }
        }
        let mut buffers = 0;
        if buffered {
            let mut buffer_of: std::collections::HashMap<u32, u32> = Default::default();
            for w in outputs.iter_mut().flatten() {
                if is_and_output[*w as usize] {
                    continue;
                }
                let out = *buffer_of.entry(*w).or_insert_with(|| {
                    steps.push(Step::Buffer(*w, wires as u32));
                    wires += 1;
                    buffers += 1;
                    wires as u32 - 1
                });
                *w = out;
            }
        }
        let output_set: std::collections::HashSet<u32> =
            outputs.iter().flatten().copied().collect();
        let and_is_output = steps
            .iter()
            .filter_map(|s| match *s {
                Step::And(_, _, o) => Some(output_set.contains(&o)),
                _ => None,
            })
            .collect();
        let mut free_output = vec![false; wires];
        for s in &steps {
            if let Step::Xor(_, _, o) | Step::Inv(_, o) | Step::Copy(_, o) = *s {
                free_output[o as usize] = true;
            }
        }
        let fresh_keys = (0..wires as u32)
            .filter(|&w| !free_output[w as usize])
            .collect();
        let and_list = steps
            .iter()
            .filter_map(|s| match *s {
                Step::And(a, b, o) => Some((a, b, o)),
                _ => None,
            })
            .collect();
        Ok(Plan {
            steps,
            wires,
            ands,
            buffers,
            and_is_output,
            inputs,
            consts,
            outputs,
            and_batches,
            fresh_keys,
            and_list,
        })
    }

    fn input_wires_of(&self, p: PartyId) -> usize {
        self.inputs
            .iter()
            .filter(|(o, _)| *o == p)
            .map(|(_, w)| w.len())
            .sum()
    }

    fn all_input_wires(&self) -> usize {
        self.inputs.iter().map(|(_, w)| w.len()).sum()
    }

    fn output_wires(&self) -> usize {
        self.outputs.iter().map(Vec::len).sum()
    }
}

/// Size of the garbled circuit: 4 rows of one 16-byte key per contributor
/// for every AND gate.
pub fn garbled_circuit_bytes(ands: usize, contributors: usize) -> usize {
    4 * ands * contributors * 16
}

/// What the malicious variant adds: 2 rows per buffer gate.
pub fn buffer_gate_bytes(buffers: usize, contributors: usize) -> usize {
    2 * buffers * contributors * 16
}

/// (AND gates, buffer gates) the malicious variant garbles for `circuit`.
pub fn malicious_gate_counts(circuit: &Circuit) -> Result<(usize, usize), RunError> {
    let plan = Plan::new(circuit, 3, true)?;
    Ok((plan.ands, plan.buffers))
}

fn to_bytes(values: &[Gf128]) -> Vec<u8> {
    // A Gf128 is its u128.
    words_to_bytes(values.len(), values.iter().map(|v| v.0))
}

fn u128s_to_bytes(values: &[u128]) -> Vec<u8> {
    words_to_bytes(values.len(), values.iter().copied())
}

/// A message of `count` 16-byte little-endian words, filled without a
/// capacity check per word.
fn words_to_bytes(count: usize, words: impl Iterator<Item = u128>) -> Vec<u8> {
    let mut out = huddle_net::message_buffer(16 * count);
    let start = out.len();
    out.resize(start + 16 * count, 0);
    for (bytes, v) in out[start..].chunks_exact_mut(16).zip(words) {
        bytes.copy_from_slice(&v.to_le_bytes());
    }
    out
}

/// The 16-byte little-endian values of a message.
fn le_u128s(bytes: &[u8]) -> impl Iterator<Item = u128> + '_ {
    bytes.chunks_exact(16).map(|c| {
        let mut b = [0u8; 16];
        b.copy_from_slice(c);
        u128::from_le_bytes(b)
    })
}

/// XORs a message's 16-byte little-endian values into `values`.
fn xor_le_u128s(values: &mut [u128], bytes: &[u8]) {
    for (z, v) in values.iter_mut().zip(le_u128s(bytes)) {
        *z ^= v;
    }
}

fn from_bytes(bytes: &[u8]) -> Vec<Gf128> {
    bytes
        .chunks_exact(16)
        .map(|c| {
            let mut b = [0u8; 16];
            b.copy_from_slice(c);
            Gf128::from_bytes(b)
        })
        .collect()
}

fn pack_bits(bits: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    for (i, &b) in bits.iter().enumerate() {
        out[i / 8] |= u8::from(b) << (i % 8);
    }
    out
}

fn unpack_bits(bytes: &[u8], count: usize) -> Vec<bool> {
    (0..count)
        .map(|i| bytes[i / 8] >> (i % 8) & 1 == 1)
        .collect()
}

fn tweak(instance: usize, gate: usize, j: usize) -> u128 {
    (instance as u128) << 80 | (gate as u128) << 16 | j as u128
}

fn bit(b: bool) -> Gf128 {
    Gf128(u128::from(b))
}

/// What one party holds per instance after the offline phase.
struct Garbling {
    /// Shamir share of λ per wire.
    lambda: Vec<Gf128>,
    /// This party's zero keys per wire (key contributors only).
    keys: Vec<u128>,
    /// Permutation bits of this party's own input wires (wire, λ).
    own_lambda: Vec<(u32, bool)>,
    /// Evaluator: λ of every output wire, in output order.
    output_lambda: Vec<bool>,
}

/// Runs one party of `variant` for `instances` instances; `own_inputs` as in
/// [`crate::ttp::run`]. Returns every output value at the parties that
/// learn them (party 0 always does; `reveal_to` other than 0 is refused).
/// The malicious variant takes its linear preprocessing from PRSS here
/// (see [`run_with_supply`] for the trusted dealer).
pub fn run<T: Transport>(
    net: &mut T,
    variant: Variant,
    circuit: &Circuit,
    instances: usize,
    own_inputs: &[(usize, BitMatrix)],
    options: crate::RunOptions,
) -> Result<Vec<BitMatrix>, RunError> {
    run_with_supply(net, variant, circuit, instances, own_inputs, options, None)
}

/// Linear preprocessing handed to a malicious run from outside the
/// protocol, when `options.linear` resolves to the trusted dealer.
pub enum LinearSupply<'a> {
    /// This process's trusted dealer (`huddle local`).
    Dealer(&'a Arc<TrustedDealer>),
    /// The dealer's recording for this party (`huddle deal`, then
    /// `huddle party --dealt FILE`).
    Dealt(Vec<u8>),
}

/// The trusted dealer's material for every party of a bgw2-mal run whose
/// parties are on other hosts: file p holds only party p's shares (and the
/// secrets party p owns), for exactly this circuit, party count,
/// key-contributor count and number of instances.
pub fn deal(
    circuit: &Circuit,
    parties: usize,
    instances: usize,
    options: crate::RunOptions,
) -> Result<Vec<Vec<u8>>, RunError> {
    let variant = Variant::Bgw2Mal;
    variant.check_parties(parties)?;
    let plan = Plan::new(circuit, parties, true)?;
    let contributors = options.garble.contributors(variant, parties);
    let dealer = TrustedDealer::new(variant.threshold(parties), options.randomness)?;
    let mut deal = [0u8; 16];
    options
        .randomness
        .draw(0, crate::options::draws::DEAL_ID)?
        .fill_bytes(&mut deal);
    (0..parties)
        .map(|p| {
            let mut line = dealer.line(p);
            let mut recording = Recording::default();
            let mut recorder = Recorder {
                inner: &mut line,
                recording: &mut recording,
            };
            for _ in 0..instances {
                let mut lambda = vec![Gf128::ZERO; plan.wires];
                let mut own = Vec::new();
                linear_round(&mut recorder, &plan, p, contributors, &mut lambda, &mut own)?;
            }
            Ok(recording.encode(&DealtHeader {
                party: p,
                parties,
                instances,
                contributors,
                circuit: crate::circuit_hash(circuit),
                deal,
            }))
        })
        .collect()
}

/// [`run`], with linear preprocessing from a trusted dealer for a malicious
/// run whose `options.linear` resolves to it.
pub fn run_with_supply<T: Transport>(
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
    let overlap = !malicious && options.worker_threads() > 1;
    let budget = options.share_memory / if overlap { 2 } else { 1 };
    let for_instances = budget.saturating_sub(evaluation_bytes(&plan, contributors));
    let per_instance = instance_bytes(&plan, contributors, options.garble);
    let chunk = (for_instances / per_instance).max(1);
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

/// One party's fixed view of a garbling run, shared by its rounds.
struct Run<'a> {
    plan: &'a Plan,
    variant: Variant,
    opts: Optimizations,
    me: PartyId,
    n: usize,
    t: usize,
    /// The chunk's first instance in the batch (instances are numbered
    /// across chunks in the PRF tweaks and in errors).
    first: usize,
    /// Instances in this chunk.
    instances: usize,
    contributors: usize,
    /// Reconstruction (share-conversion) constants of the n points.
    constants: Vec<Gf128>,
    prf: DoubleKeyPrf,
}

impl<'a> Run<'a> {
    /// A copy for a thread that evaluates this chunk while the run goes on.
    fn for_chunk(&self) -> Run<'a> {
        Run {
            constants: self.constants.clone(),
            prf: DoubleKeyPrf::new(),
            ..*self
        }
    }
}

/// What the function-independent round leaves a party with.
struct Independent {
    states: Vec<Garbling>,
    /// This party's R per instance (0 unless it contributes).
    my_offset: Vec<Gf128>,
    /// Shares of every contributor's R, per instance.
    offset_shares: Vec<Vec<Gf128>>,
    /// Without PRG zero sharing: the dealt additive shares of zero.
    dealt_zero: Vec<u128>,
    /// Without reduced complexity: Shamir shares of Σ F per row and of
    /// k^j_{w,0} per gate and j.
    row_shares: Vec<Gf128>,
    key_shares: Vec<Gf128>,
}

type SetupOutput = (Vec<Option<Prg>>, Option<Box<dyn LinearSource>>);

/// Setup: pairwise seeds for additive zero sharing and, malicious, the
/// linear preprocessing (PRSS keys, the dealer's line or its recording).
fn setup<T: Transport>(
    run: &Run,
    net: &mut T,
    prg: &mut Prg,
    linear_choice: LinearChoice,
    supply: Option<LinearSupply>,
    circuit: &Circuit,
) -> Result<SetupOutput, RunError> {
    let (me, n, t, instances) = (run.me, run.n, run.t, run.instances);
    let (opts, contributors, malicious) = (run.opts, run.contributors, run.variant.is_malicious());
    // Setup: pairwise seeds for additive zero sharing; the lower party of
    // each pair draws the seed.
    net.set_phase(Phase::Setup);
    let mut zero: Vec<Option<Prg>> = (0..n).map(|_| None).collect();
    let seeded = if opts.zero_sharing() && opts.prg_zero_sharing {
        n
    } else {
        0
    };
    for (p, slot) in zero.iter_mut().enumerate().take(seeded).skip(me + 1) {
        let seed = prg.next_seed();
        net.send(p, seed.to_vec())?;
        *slot = Some(Prg::from_seed(seed));
    }
    // Malicious with PRSS: the key contributions travel with the seeds.
    let mut prss = None;
    if malicious && linear_choice != LinearChoice::TrustedDealer {
        prss = Some(linear::Prss::begin_setup(net, t, prg)?);
    }
    for (p, slot) in zero.iter_mut().enumerate().take(me.min(seeded)) {
        let bytes = net.recv(p, 16)?;
        let mut seed = [0u8; 16];
        seed.copy_from_slice(&bytes);
        *slot = Some(Prg::from_seed(seed));
    }
    // Malicious: the linear preprocessing (PRSS keys agreed now, or the dealer).
    let mut source: Option<Box<dyn LinearSource>> = None;
    if malicious {
        source = Some(match linear_choice {
            LinearChoice::TrustedDealer => match supply {
                Some(LinearSupply::Dealer(d)) => Box::new(d.line(me)),
                Some(LinearSupply::Dealt(bytes)) => {
                    let header = DealtHeader {
                        party: me,
                        parties: n,
                        instances,
                        contributors,
                        circuit: crate::circuit_hash(circuit),
                        deal: [0; 16],
                    };
                    Box::new(Dealt::open(bytes, &header)?)
                }
                None => {
                    return Err(RunError::Input(format!(
                        "{n} parties at t = {t} need the trusted dealer: in `huddle local` it runs in the process; across hosts, `huddle deal` writes each party's material for `huddle party --dealt` (PRSS is limited to {} sets of t parties)",
                        linear::PRSS_MAX_SETS
                    )))
                }
            },
            _ => match prss.take() {
                Some(setup) => Box::new(setup.finish(net)?),
                None => return Err(RunError::Input("PRSS setup missing".into())),
            },
        });
    }

    Ok((zero, source))
}

/// Round 1 (phase `offline`, function-independent): λ and R shares (or the
/// linear source), this party's keys, and without the optimizations the
/// dealt zero shares and the Shamir-shared PRF values. Every message of the
/// round is sent before any is received.
fn first_round<T: Transport>(
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

/// Shares of `secrets` per party: the first `bits` are permutation bits or
/// their products (subfield coefficients with the small field), any after
/// them GF(2^128) secrets.
fn share_bits(run: &Run, secrets: &[Gf128], bits: usize, prg: &mut Prg) -> Vec<Vec<Gf128>> {
    if run.opts.small_field {
        field::share_batch_small(secrets, bits, run.t, run.n, prg)
    } else {
        share_batch(secrets, run.t, run.n, prg)
    }
}

/// The message of [`share_bits`]' shares for one party: the first `bits`
/// in [`bit_share_bytes`], the rest 16 bytes each.
fn encode_bit_shares(run: &Run, shares: &[Gf128], bits: usize) -> Vec<u8> {
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
fn bit_share_bytes(run: &Run, count: usize) -> usize {
    count * if run.opts.small_field { 2 } else { 16 }
}

/// Decodes [`bit_share_bytes`] of shares.
fn decode_bit_shares(run: &Run, bytes: &[u8]) -> Vec<Gf128> {
    if run.opts.small_field {
        field::Subfield::get().from_bytes(bytes)
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

/// Phase `dependent` begins: λ_u·λ_v per AND gate, degree-reduced (round 2)
/// under BGW3.
fn degree_reduction<T: Transport>(
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
/// shares) summed at the evaluator, instance by instance. Returns the
/// garbled circuit at the evaluator (empty elsewhere).
fn garbled_rows<T: Transport>(
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
    let mut rows_msg: Vec<u128> = Vec::with_capacity(rows_per_instance + plan.output_wires());
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
        rows_msg.clear();
        rows_of.push(&products[inst], &mut scratch, &mut rows_msg);
        // Zero masks: pairwise PRG streams drawn in the same order by both
        // ends, or the dealt sharings of round 1. Without zero sharing the
        // rows are (converted) Shamir shares of fresh random polynomials.
        if opts.zero_sharing() && opts.prg_zero_sharing {
            apply_zero_masks(&mut rows_msg, zero);
        } else if opts.zero_sharing() {
            let dealt = &dealt_zero[inst * rows_per_instance..(inst + 1) * rows_per_instance];
            for (v, z) in rows_msg.iter_mut().zip(dealt) {
                *v ^= z;
            }
        }
        // Output λ shares, made additive like the rows (malicious: they are 0).
        if !malicious {
            for &w in plan.outputs.iter().flatten() {
                rows_msg.push((state.lambda[w as usize] * run.constants[me]).0);
            }
        }
        // Instance by instance, so that only the evaluator holds the whole
        // garbled circuit.
        if sum_at_evaluator(net, &mut rows_msg, opts.hypercube)? {
            let (sum, out_l) = rows_msg.split_at(rows_per_instance);
            rows.extend_from_slice(sum);
            output_lambdas.push(permutation_bits(out_l)?);
        }
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

/// Reconstructed output permutation bits, which must be bits.
fn permutation_bits(values: &[u128]) -> Result<Vec<bool>, RunError> {
    values
        .iter()
        .map(|l| match l {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(RunError::abort(
                "an output permutation bit reconstructs to neither 0 nor 1",
                None,
            )),
        })
        .collect()
}

/// Buffers reused from instance to instance while computing rows.
#[derive(Default)]
struct RowScratch {
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
struct InstanceRows<'a> {
    run: &'a Run<'a>,
    inst: usize,
    state: &'a Garbling,
    /// c_me·[R^j] per contributor j.
    offsets: &'a [Gf128],
    /// This party's own R (0 unless it contributes).
    my_offset: u128,
    /// Without reduced complexity: the Shamir shares of Σ F per row and of
    /// k^j per gate (see [`receive_prf_shares`]).
    shamir: Option<(&'a [Gf128], &'a [Gf128])>,
}

impl InstanceRows<'_> {
    /// Appends the rows: per AND gate (α, β) and j, then per buffer gate α and j.
    fn push(&self, products: &[Gf128], scratch: &mut RowScratch, rows: &mut Vec<u128>) {
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

/// The AND gates of a plan in step order: (input, input, output).
fn and_gates(plan: &Plan) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
    plan.and_list.iter().copied()
}

/// Malicious round 1 by the linear-preprocessing functionalities, for one
/// instance, in an order every party follows: λ of AND outputs (RandSS_bin,
/// or RandSS_0 on output wires), of buffer outputs (RandSS_0), of each
/// input value (RandSS_bin^{owner}), then R^j (RandSS^{P_j}) for every
/// contributor. Fills `lambda` and `own_lambda`; returns this party's R (0
/// unless it contributes) and its shares of every R^j.
fn linear_round(
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

/// This contributor's F² values for one garbled gate, in row order: for α
/// (and β for an AND gate) and every contributor j,
/// F²_{k_{u,α}, k_{v,β}}(instance ‖ gate ‖ j). A buffer gate has one input
/// (`kb` None): the PRF with a zero second key, two rows.
fn gate_prf(
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
fn gate_prf_inputs(
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

/// What the online phase leaves a party with for one chunk.
enum Online {
    /// The output bits this party knows (at most parties: none until the end).
    Known(Vec<bool>),
    /// Semi-honest evaluator: what the evaluation needs, which sends
    /// nothing, so it may run beside the next chunk's rounds.
    Evaluate(Evaluation),
}

/// The evaluator's inputs to the evaluation of one chunk.
struct Evaluation {
    /// Every contributor's keys of the input wires and constants.
    keys_from: Vec<Vec<u128>>,
    /// External values known so far, per instance.
    external: Vec<Vec<bool>>,
}

impl Evaluation {
    /// Decrypts the chunk instance by instance into its output bits;
    /// malicious, also collects each contributor's part of every output
    /// superseed.
    fn evaluate(
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

/// The online phase (three rounds, four with the malicious confirmation).
/// With `defer`, the semi-honest evaluator returns its evaluation undone.
fn online<T: Transport>(
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
fn open_outputs<T: Transport>(
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
fn exchange_masked_inputs<T: Transport>(
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
                    format!("garbled gate {gate} of instance {} decrypts to neither of the evaluator's keys", self.run.first + inst),
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

/// The evaluator's F² inputs for one garbled gate, appended: for every
/// contributor j (whose key the row yields) and every contributor i (whose
/// input keys enter it), 2·k^i_u ⊕ 4·k^i_v ⊕ tweak(instance, gate, j); a
/// buffer gate has no second input (a zero key).
fn push_eval_inputs(
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

/// A contributor other than the evaluator: checks the evaluator's output
/// keys against its own two labels per output wire and returns the bits
/// they encode (λ of every output wire is 0).
fn check_output_keys<T: Transport>(
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
                    format!(
                        "the evaluator's key for output bit {k} of instance {} is neither of party {}'s labels",
                        run.first + inst,
                        net.party()
                    ),
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
fn confirm_outputs<T: Transport>(
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
                    format!("key contributors {first} and {j} report different outputs"),
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
fn finish_outputs<T: Transport>(
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
