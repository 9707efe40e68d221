//! The secret-sharing engine's cost model: what every party of a run sends
//! and receives, step by step, without running anything ([`predict`]).
//!
//! The engine's part is the walk: the batch cut as the run cuts it
//! ([`Plan`]), and per lane and slice the steps the run takes (setup,
//! preprocessing, inputs, layers, conversions with their recombining
//! programs, checkpoints, verification, reveal, held outputs), in the run's
//! order (`lanes.rs`, `evaluate.rs`, `outputs.rs`). A protocol's part is
//! [`SharingCost`], stated beside its implementation: at each step the
//! messages its party sends and receives, sized in share words, which
//! [`Dry`] turns into bytes with the very encoding the run's channel uses
//! (`wire.rs`).

use super::convert::{side_instances, SplitJob};
use super::lanes::role_of;
use super::plan::Plan;
use super::program::{Conversion, Layer, MulGate, Program, Step};
use super::protocol::{Capabilities, Sharing};
use super::wire::Encoding;
use super::InputValues;
use crate::cost::{Plays, Script, Work};
use crate::error::RunError;
use huddle_circuit::{Circuit, Domain};
use huddle_net::{PartyId, Phase};

/// A protocol's messages at each step of a run, for one party (the role the
/// instance was built for), as its [`Sharing`] implementation sends them.
/// Sizes are in share words of the step's encoding, which the engine sets
/// as the run does; keys, digests and verdicts travel as raw words
/// ([`Dry::send_raw`]).
pub(crate) trait SharingCost: Sharing {
    /// Key agreement (phase `setup`).
    fn setup_cost(&mut self, ch: &mut Dry);
    /// Preprocessing before a slice's inputs (phase `offline`), for a slice
    /// of `instances` instances.
    fn preprocess_cost(
        &mut self,
        _ch: &mut Dry,
        _program: &Program,
        _inputs: &[InputValues; 2],
        _instances: usize,
    ) {
    }
    /// Sharing `inputs`, `w` words per slot.
    fn share_inputs_cost(&mut self, ch: &mut Dry, inputs: &InputValues, w: usize);
    /// One multiplication layer, `w` words per slot.
    fn multiply_cost(&mut self, ch: &mut Dry, program: &Program, layer: &Layer, w: usize);
    /// Units of gate work (per word) one gate of a layer costs: its
    /// 2-input products, one per operand beyond the first, or one per pair
    /// of a dot product. Protocols whose l-input gates take a product per
    /// subset of operands say so.
    fn gate_work(&self, gate: &MulGate) -> usize {
        two_input_products(gate)
    }
    /// A conversion step's split (protocols with conversions).
    fn split_cost(&mut self, _ch: &mut Dry, _job: &SplitJob) {}
    /// Opening `slots` slots of `domain`, `w` words each, to `to` (None:
    /// every party).
    fn reveal_cost(
        &mut self,
        ch: &mut Dry,
        domain: Domain,
        slots: usize,
        w: usize,
        to: Option<PartyId>,
    );
    /// Comparing views before any output (malicious protocols).
    fn verify_cost(&mut self, _ch: &mut Dry) {}
    /// A checkpoint between layers (`--verify-every`).
    fn checkpoint_cost(&mut self, _ch: &mut Dry) {}
}

/// The channel a [`SharingCost`] talks through: it counts what
/// [`Channel`](super::Channel) would send, words of the current encoding.
pub(crate) struct Dry {
    script: Script,
    encoding: Encoding,
}

impl Dry {
    fn new(me: PartyId, encoding: Encoding) -> Dry {
        Dry {
            script: Script::new(me),
            encoding,
        }
    }

    pub(crate) fn party(&self) -> PartyId {
        self.script.party()
    }

    pub(crate) fn set_encoding(&mut self, encoding: Encoding) {
        self.encoding = encoding;
    }

    pub(crate) fn phase(&self) -> Phase {
        self.script.phase()
    }

    pub(crate) fn set_phase(&mut self, phase: Phase) {
        self.script.set_phase(phase);
    }

    /// `f`'s messages under `phase`, then back to the current phase.
    pub(crate) fn in_phase<T>(&mut self, phase: Phase, f: impl FnOnce(&mut Self) -> T) -> T {
        let now = self.phase();
        self.set_phase(phase);
        let out = f(self);
        self.set_phase(now);
        out
    }

    /// `count` units of local `work`.
    pub(crate) fn work(&mut self, work: Work, count: f64) {
        self.script.work(work, count);
    }

    /// A message of `words` share words to `to`.
    pub(crate) fn send(&mut self, to: PartyId, words: usize) {
        let bytes = self.encoding.wire_len(words) as u64;
        self.script.send(to, bytes);
    }

    /// [`send`](Self::send) under `phase`.
    pub(crate) fn send_in(&mut self, phase: Phase, to: PartyId, words: usize) {
        self.in_phase(phase, |ch| ch.send(to, words));
    }

    /// A message of `words` share words from `from`.
    pub(crate) fn recv(&mut self, from: PartyId, words: usize) {
        let bytes = self.encoding.wire_len(words) as u64;
        self.script.recv(from, bytes);
    }

    /// A message of `words` raw 64-bit words (keys, digests, verdicts) to `to`.
    pub(crate) fn send_raw(&mut self, to: PartyId, words: usize) {
        self.script.send(to, Encoding::RAW.wire_len(words) as u64);
    }

    /// A message of `words` raw 64-bit words from `from`.
    pub(crate) fn recv_raw(&mut self, from: PartyId, words: usize) {
        self.script.recv(from, Encoding::RAW.wire_len(words) as u64);
    }
}

/// The scripts of a run of the protocol `make` builds for a role, on
/// `instances` instances of `circuit` with `options`: every lane's roles'.
pub(crate) fn predict<P: SharingCost, F: Fn(PartyId) -> P>(
    make: F,
    circuit: &Circuit,
    instances: usize,
    options: &crate::RunOptions,
) -> Result<Plays, RunError> {
    let probe = make(0);
    let parties = probe.parties();
    let walk = Walk {
        plan: Plan::new(
            &probe,
            std::borrow::Cow::Borrowed(circuit),
            instances,
            options,
        )?,
        circuit,
        input_parties: parties - usize::from(probe.dealer().is_some()),
        hold_outputs: !probe.messages().is_empty(),
        options,
    };
    let mut plays = Plays::default();
    for (lane, roles) in walk.plan.roles.iter().enumerate() {
        let scripts: Vec<Script> = (0..parties)
            .map(|role| walk.lane(make(role), role, lane, roles))
            .collect();
        plays.add_lane(roles.clone(), scripts);
    }
    Ok(plays)
}

/// What every lane's walk reads.
struct Walk<'a> {
    plan: Plan,
    circuit: &'a Circuit,
    input_parties: usize,
    hold_outputs: bool,
    options: &'a crate::RunOptions,
}

impl Walk<'_> {
    /// The script of role `me` of lane `lane` (its roles played by
    /// `roles`), as `Lane::run` sends: setup, then slice after slice.
    fn lane<P: SharingCost>(
        &self,
        mut protocol: P,
        me: PartyId,
        lane: usize,
        roles: &[PartyId],
    ) -> Script {
        let program = &self.plan.program;
        let ranges = self.plan.lane_ranges(lane);
        let main = program.main_domain();
        let mut ch = Dry::new(
            me,
            program.encoding(main, ranges.first().map_or(0, |r| r.len())),
        );
        let to = self.options.reveal_to.map(|p| role_of(roles, p));
        ch.set_phase(Phase::Setup);
        protocol.setup_cost(&mut ch);
        let slots: [Vec<Vec<u32>>; 2] = [Domain::Bit, Domain::Ring].map(|d| {
            program
                .inputs
                .iter()
                .filter(|(domain, _)| *domain == d)
                .map(|(_, s)| s.clone())
                .collect()
        });
        let owners: [Vec<PartyId>; 2] = [Domain::Bit, Domain::Ring].map(|d| {
            (0..program.inputs.len())
                .filter(|&i| program.inputs[i].0 == d)
                .map(|i| role_of(roles, self.circuit.owner(i, self.input_parties)))
                .collect()
        });
        let mut held = Vec::new();
        for range in &ranges {
            protocol.begin_batch();
            let inputs = [0, 1].map(|d| InputValues {
                owners: owners[d].clone(),
                slots: &slots[d],
                own: vec![None; slots[d].len()],
                reveal_to: to,
            });
            self.slice(&mut protocol, &mut ch, &inputs, range.len());
            if self.hold_outputs {
                held.push(range.len());
                continue;
            }
            reveal(&mut protocol, &mut ch, program, range.len(), to);
        }
        if !held.is_empty() {
            ch.set_phase(Phase::Online);
        }
        for n in held {
            reveal(&mut protocol, &mut ch, program, n, to);
        }
        ch.script
    }

    /// One slice, as `evaluate_slice` runs it.
    fn slice<P: SharingCost>(
        &self,
        protocol: &mut P,
        ch: &mut Dry,
        inputs: &[InputValues; 2],
        n: usize,
    ) {
        let program = &self.plan.program;
        ch.set_phase(Phase::Offline);
        protocol.preprocess_cost(ch, program, inputs, n);
        ch.set_phase(Phase::Online);
        for d in [Domain::Bit, Domain::Ring] {
            if !program.shares_inputs(d) {
                continue;
            }
            ch.set_encoding(program.encoding(d, n));
            let words = program.words(d, n);
            let wires: usize = inputs[d as usize].slots.iter().map(Vec::len).sum();
            ch.work(io_unit(d), (wires * words) as f64);
            protocol.share_inputs_cost(ch, &inputs[d as usize], words);
        }
        if protocol.evaluates_online() {
            evaluate(protocol, ch, program, n, self.options.verify_every);
        }
        ch.set_encoding(program.encoding(program.main_domain(), n));
        protocol.verify_cost(ch);
    }
}

/// The steps of `program` on a slice of `instances` instances, as
/// [`evaluate`](super::evaluate) runs them: each layer through
/// `multiply_cost`, each conversion through `split_cost` and its recombining
/// program; a checkpoint after every `verify_every` layers but the last.
pub(crate) fn evaluate<P: SharingCost>(
    protocol: &mut P,
    ch: &mut Dry,
    program: &Program,
    instances: usize,
    verify_every: Option<usize>,
) {
    let mut done = 0;
    for step in &program.steps {
        match step {
            Step::Linear(domain, run) => {
                let w = program.words(*domain, instances);
                ch.work(Work::LinearWord, (run.len() * w) as f64);
            }
            Step::Layer(i) => {
                let layer = &program.layers[*i];
                ch.set_encoding(program.encoding(layer.domain, instances));
                let w = program.words(layer.domain, instances);
                let products: usize = layer.gates.iter().map(|g| protocol.gate_work(g)).sum();
                let unit = match layer.domain {
                    Domain::Bit => Work::BitGateWord,
                    Domain::Ring => Work::RingGateWord,
                };
                ch.work(unit, (products * w) as f64);
                protocol.multiply_cost(ch, program, layer, w);
                done += 1;
                let due = verify_every.is_some_and(|n| done % n == 0);
                if due && done < program.layers.len() {
                    protocol.checkpoint_cost(ch);
                }
            }
            Step::Convert(i) => convert(protocol, ch, program, &program.conversions[*i], instances),
        }
    }
}

/// A conversion step, as `run_conversion` runs it: the split, then the
/// recombining program on every conversion's instances side by side.
fn convert<P: SharingCost>(
    protocol: &mut P,
    ch: &mut Dry,
    program: &Program,
    conversion: &Conversion,
    instances: usize,
) {
    let sub = program.recombining(conversion.kind);
    let side = side_instances(conversion.gates(), instances);
    let job = SplitJob {
        kind: conversion.kind,
        sources: &conversion.sources,
        terms: [&sub.inputs[0].1, &sub.inputs[1].1],
        instances,
    };
    ch.set_encoding(program.encoding(conversion.kind.target(), side));
    protocol.split_cost(ch, &job);
    evaluate(protocol, ch, sub, side, None);
}

/// Opening a slice's outputs, domain by domain, as `reveal_outputs` does.
fn reveal<P: SharingCost>(
    protocol: &mut P,
    ch: &mut Dry,
    program: &Program,
    instances: usize,
    to: Option<PartyId>,
) {
    for d in [Domain::Bit, Domain::Ring] {
        if !program.reveals(d) {
            continue;
        }
        ch.set_encoding(program.encoding(d, instances));
        let slots = program.output_slots(d).len();
        let words = program.words(d, instances);
        ch.work(io_unit(d), (slots * words) as f64);
        protocol.reveal_cost(ch, d, slots, words, to);
    }
}

/// A gate's 2-input products: `per_product` for one product of its
/// operands, once per pair of a dot product.
pub(crate) fn products(gate: &MulGate, per_product: usize) -> usize {
    if gate.dot {
        gate.len as usize / 2
    } else {
        per_product
    }
}

/// A gate's 2-input products: one per operand beyond the first, or one
/// per pair of a dot product (the default [`SharingCost::gate_work`]).
pub(crate) fn two_input_products(gate: &MulGate) -> usize {
    products(gate, gate.fan_in().max(2) - 1)
}

/// The unit of sharing or opening one wire's word of `domain`.
fn io_unit(domain: Domain) -> Work {
    match domain {
        Domain::Bit => Work::BitIoWord,
        Domain::Ring => Work::RingIoWord,
    }
}
