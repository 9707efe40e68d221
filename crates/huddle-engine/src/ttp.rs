//! The trusted third party (protocol name `ttp`): not secure, by design; the
//! baseline for correctness and speed.
//!
//! Online phase, one round each way: every input owner sends party 0 its
//! input values (all instances, instance-major words); party 0 evaluates with
//! the plaintext evaluator and sends every other party all output values.

use crate::cost::{Plays, Script, Work};
use crate::descriptor::{Descriptor, Family, PartyRule, Security};
use crate::error::RunError;
use crate::inputs;
use huddle_circuit::eval::EvalOptions;
use huddle_circuit::{BitMatrix, Circuit, PlainEvaluator};
use huddle_net::{Network, PartyId, Phase};

/// The TTP's row of the protocol table.
pub(crate) const DESCRIPTOR: Descriptor = Descriptor {
    name: "ttp",
    summary: "trusted third party: party 0 evaluates in the clear (baseline, not secure)",
    parties: PartyRule::AtLeast(1),
    max_fan_in: None,
    separate_preprocessing: false,
    preprocessing: false,
    security: Security::None,
    rings: true,
    conversions: true,
    fused_truncation: false,
    family: Family::Clear,
    messages: &[],
    dealer: None,
};

/// The party that evaluates.
pub(crate) const EVALUATOR: PartyId = 0;

/// Runs one party of the TTP protocol for `instances` instances.
/// `own_inputs` holds a matrix (rows = instances) for every input value this
/// party owns, keyed by input index. Returns all output values.
pub(crate) fn run(
    net: &mut Network,
    circuit: &Circuit,
    instances: usize,
    own_inputs: &[(usize, BitMatrix)],
    options: crate::RunOptions,
) -> Result<Vec<BitMatrix>, RunError> {
    let (me, parties) = (net.party(), net.parties());
    let (threads, to) = (options.worker_threads(), options.reveal_to);
    inputs::check_reveal_to(to, parties)?;
    let learns = |p: PartyId| inputs::learns(p, to);
    inputs::check_own_inputs(me, parties, circuit, instances, own_inputs)?;
    let io_bits: usize = (0..circuit.inputs().len())
        .map(|i| circuit.input_bits(i))
        .chain((0..circuit.outputs().len()).map(|o| circuit.output_bits(o)))
        .sum();
    // Inputs and outputs, each held about twice (matrices and messages).
    crate::check_memory(
        &format!("ttp on {instances} instances of this circuit"),
        io_bits as u128 * 4 * instances.div_ceil(64) as u128 * 8,
    )?;
    net.set_phase(Phase::Online);
    let words = |bits: usize| instances * bits.div_ceil(64);
    if me != EVALUATOR {
        if !own_inputs.is_empty() {
            let mut msg = Vec::new();
            for (_, m) in own_inputs {
                msg.extend(m.as_words().iter().flat_map(|w| w.to_le_bytes()));
            }
            net.send(EVALUATOR, msg)?;
        }
        if !learns(me) {
            return Ok(Vec::new());
        }
        let total: usize = (0..circuit.outputs().len())
            .map(|o| words(circuit.output_bits(o)) * 8)
            .sum();
        let bytes = net.recv(EVALUATOR, total)?;
        return Ok(split(
            &bytes,
            circuit.outputs().len(),
            |o| circuit.output_bits(o),
            instances,
        ));
    }
    // The evaluator gathers every input value.
    let mut inputs: Vec<Option<BitMatrix>> = (0..circuit.inputs().len()).map(|_| None).collect();
    for (i, m) in own_inputs {
        inputs[*i] = Some(m.clone());
    }
    for from in (0..parties).filter(|&p| p != EVALUATOR) {
        let theirs: Vec<usize> = (0..circuit.inputs().len())
            .filter(|&i| circuit.owner(i, parties) == from)
            .collect();
        if theirs.is_empty() {
            continue;
        }
        let total: usize = theirs
            .iter()
            .map(|&i| words(circuit.input_bits(i)) * 8)
            .sum();
        let bytes = net.recv(from, total)?;
        let values = split(
            &bytes,
            theirs.len(),
            |k| circuit.input_bits(theirs[k]),
            instances,
        );
        for (&i, m) in theirs.iter().zip(values) {
            inputs[i] = Some(m);
        }
    }
    let inputs: Vec<BitMatrix> = inputs
        .into_iter()
        .map(|m| m.ok_or_else(|| RunError::Input("an input value has no owner".into())))
        .collect::<Result<_, _>>()?;
    let outputs = PlainEvaluator::with_options(
        circuit,
        EvalOptions {
            chunk_words: None,
            threads,
        },
    )
    .evaluate(&inputs)
    .map_err(|e| RunError::Input(e.to_string()))?;
    let msg: Vec<u8> = outputs
        .iter()
        .flat_map(|m| m.as_words().iter().flat_map(|w| w.to_le_bytes()))
        .collect();
    for p in (0..parties).filter(|&p| p != EVALUATOR && learns(p)) {
        net.send(p, msg.clone())?;
    }
    Ok(if learns(EVALUATOR) {
        outputs
    } else {
        Vec::new()
    })
}

/// The TTP's scripts (see [`run`]): in phase `online`, every other party
/// that owns inputs sends party 0 all of them (8 bytes per 64 bits of a row,
/// per instance), and party 0 sends every other party that learns the
/// outputs all of them: two rounds where a party both gives and learns.
pub(crate) fn cost(
    parties: usize,
    circuit: &Circuit,
    instances: usize,
    options: &crate::RunOptions,
) -> Result<Plays, RunError> {
    let bytes = |bits: usize| (instances * bits.div_ceil(64) * 8) as u64;
    let learns = |p: PartyId| inputs::learns(p, options.reveal_to);
    let mut scripts: Vec<Script> = (0..parties).map(Script::new).collect();
    let output_bytes: u64 = (0..circuit.outputs().len())
        .map(|o| bytes(circuit.output_bits(o)))
        .sum();
    for (p, script) in scripts.iter_mut().enumerate() {
        script.set_phase(Phase::Online);
        let input_bytes = |from: PartyId| -> u64 {
            (0..circuit.inputs().len())
                .filter(|&i| circuit.owner(i, parties) == from)
                .map(|i| bytes(circuit.input_bits(i)))
                .sum()
        };
        if p != EVALUATOR {
            script.send(EVALUATOR, input_bytes(p));
            if learns(p) {
                script.recv_even_empty(EVALUATOR, output_bytes);
            }
            continue;
        }
        for from in (0..parties).filter(|&q| q != EVALUATOR) {
            script.recv(from, input_bytes(from));
        }
        let words = instances.div_ceil(64) as f64;
        script.work(Work::ClearGateWord, circuit.gates().len() as f64 * words);
        for to in (0..parties).filter(|&q| q != EVALUATOR && learns(q)) {
            // The network itself: a circuit without outputs sends an empty message.
            script.send_even_empty(to, output_bytes);
        }
    }
    Ok(Plays::single(scripts))
}

/// Cuts a byte string into `count` matrices of `instances` rows and `bits(k)` columns.
fn split(
    bytes: &[u8],
    count: usize,
    bits: impl Fn(usize) -> usize,
    instances: usize,
) -> Vec<BitMatrix> {
    let mut offset = 0;
    (0..count)
        .map(|k| {
            let mut m = BitMatrix::zeros(instances, bits(k));
            let n = m.as_words().len();
            let words: Vec<u64> = bytes[offset..offset + 8 * n]
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect();
            offset += 8 * n;
            m.row_range_mut(0, instances).copy_from_slice(&words);
            m
        })
        .collect()
}
