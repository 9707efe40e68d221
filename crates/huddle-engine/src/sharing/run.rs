//! The engine's entry, [`run`]: one party of a secret-sharing protocol on
//! a batch, compiled, cut into slices that fit the share memory and into
//! lanes, and run.

use super::input_words::{to_wire_words, DomainValues, OwnWords};
use super::lanes::{run_lanes, Lane};
use super::outputs::{OutputSink, RevealGate};
use super::plan::Plan;
use super::protocol::{Capabilities, Sharing};
use crate::error::RunError;
use crate::inputs::{learns, OwnValue};
use huddle_circuit::{BitMatrix, Circuit, Domain};
use huddle_net::{Network, PartyId};

/// Runs one party of the protocol `make` builds for a role (one instance
/// per lane) on `instances` instances of `circuit`, with `options.threads`
/// lanes, or one per assignment of roles with `options.split_roles`. The
/// shares a party keeps at once are bounded by `options.share_memory`: a
/// larger batch is evaluated slice by slice (same setup, more rounds), so
/// memory stays flat however large the batch.
/// `own_inputs` holds the values this party owns (see [`crate::ttp::run`]);
/// each is dropped once converted to share words, so that a large batch's
/// inputs are held once, not twice.
pub(crate) fn run<P: Sharing, F: Fn(PartyId) -> P + Sync>(
    make: F,
    net: &mut Network,
    circuit: std::borrow::Cow<'_, Circuit>,
    instances: usize,
    own_inputs: Vec<(usize, OwnValue)>,
    options: crate::RunOptions,
    progress: &crate::progress::Progress,
) -> Result<Vec<BitMatrix>, RunError> {
    let probe = make(net.party());
    if net.parties() != probe.parties() {
        return Err(RunError::Input(format!(
            "{} is a {}-party protocol, the run has {} parties",
            probe.name(),
            probe.parties(),
            net.parties()
        )));
    }
    let parties = probe.parties();
    // Round-robin owners skip a dealer (the last party).
    let input_parties = parties - usize::from(probe.dealer().is_some());
    crate::inputs::check_own_values(net.party(), input_parties, &circuit, instances, &own_inputs)?;
    // An owned circuit goes to the compiler, which drops it once scheduled;
    // from then on only the values' shapes are needed (its interface).
    let interface = match &circuit {
        std::borrow::Cow::Owned(c) => std::borrow::Cow::Owned(c.interface()),
        std::borrow::Cow::Borrowed(c) => std::borrow::Cow::Borrowed(*c),
    };
    let plan = Plan::new(&probe, circuit, instances, &options)?;
    let program = &plan.program;
    let circuit: &Circuit = &interface;
    let (unit, units, slice) = (plan.unit, plan.units, plan.slice);
    let per_unit = |d: Domain| program.words(d, unit) as u128;
    let slot_bytes = probe.components() as u128 * 8;
    let lanes = plan.lanes();
    // Inputs held whole (random ones are drawn slice by slice; given ones
    // in up to three copies while converted) and the outputs (one matrix
    // per value, a row of whole words per instance) at a party that learns.
    let input_bits: usize = own_inputs
        .iter()
        .filter(|(_, v)| matches!(v, OwnValue::Rows(_)))
        .map(|(_, v)| v.bits())
        .sum();
    let learner = learns(net.party(), options.reveal_to) && probe.dealer() != Some(net.party());
    let output_words: usize = if learner {
        (0..circuit.outputs().len())
            .map(|o| circuit.output_bits(o).div_ceil(64))
            .sum()
    } else {
        0
    };
    // A protocol secure against malicious parties evaluates the batch as
    // one joint evaluation: every slice's output shares are held until all
    // slices and lanes have their inputs and passed verification.
    let hold_outputs = !probe.messages().is_empty();
    let held_bytes: u128 = if hold_outputs {
        slot_bytes
            * [Domain::Bit, Domain::Ring]
                .into_iter()
                .filter(|&d| program.reveals(d))
                .map(|d| program.output_slots(d).len() as u128 * per_unit(d))
                .sum::<u128>()
            * units as u128
    } else {
        0
    };
    crate::check_memory(
        &format!("{} on {instances} instances of this circuit", probe.name()),
        plan.unit_bytes * units.min(slice) as u128
            + held_bytes
            + (input_bits as u128 * 3 / 8 + output_words as u128 * 8) * instances as u128,
    )?;
    let lane_ranges = |lane: usize| plan.lane_ranges(lane);
    let mut own_words: Vec<Option<OwnWords>> = (0..circuit.inputs().len()).map(|_| None).collect();
    for (i, v) in own_inputs {
        own_words[i] = Some(match v {
            OwnValue::Rows(m) => OwnWords::Whole(to_wire_words(circuit, i, m, program.ring_lanes)),
            OwnValue::Random(r) => OwnWords::Drawn(i, r),
        });
    }
    let mut values = |d: Domain| -> DomainValues {
        let indices: Vec<usize> = (0..program.inputs.len())
            .filter(|&i| program.inputs[i].0 == d)
            .collect();
        DomainValues {
            slots: indices
                .iter()
                .map(|&i| program.inputs[i].1.clone())
                .collect(),
            owners: indices
                .iter()
                .map(|&i| circuit.owner(i, input_parties))
                .collect(),
            own: indices.iter().map(|&i| own_words[i].take()).collect(),
            total: program.words(d, instances),
        }
    };
    // A party that learns the outputs gets each slice's as its lane
    // finishes it, written into the result at once.
    let sink = learner.then(|| OutputSink::new(circuit, program, instances));
    let gate = (hold_outputs && lanes > 1).then(|| RevealGate::new(lanes));
    let job = Lane {
        circuit,
        program,
        outputs: sink.as_ref(),
        values: [values(Domain::Bit), values(Domain::Ring)],
        reveal_to: options.reveal_to,
        randomness: options.randomness,
        fault: options.fault,
        verify_every: options.verify_every,
        share_memory: options.share_memory,
        hold_outputs,
        reveal_gate: gate.as_ref(),
        progress,
    };
    crate::inputs::check_reveal_to(options.reveal_to, parties)?;
    let malicious = hold_outputs;
    drop(probe);
    progress.start(
        net.party(),
        instances as u64,
        (plan.slices() * lanes * program.steps.len()) as u64,
    );
    progress.set_lanes(lanes);
    if let Err(e) = run_lanes(&job, &make, net, &plan.roles, &lane_ranges) {
        if let RunError::Abort {
            culprit: Some(c), ..
        } = e
        {
            net.blame(c);
        }
        return Err(e);
    }
    if malicious {
        // Nothing may follow the last message (a duplicate would go unread).
        net.finish()?;
    }
    net.stop_clock();
    Ok(sink.map_or_else(Vec::new, OutputSink::into_matrices))
}
