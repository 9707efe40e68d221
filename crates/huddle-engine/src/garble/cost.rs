//! Multiparty garbling's cost model: what every party sends and receives,
//! phase by phase and chunk by chunk, as `party.rs` runs them (Ben-Efraim
//! and Omri, Sections 3 and 4; see the module documentation of
//! [`super`]). Sizes in bytes: a GF(2^128) element or key is 16, a
//! permutation-bit share 2 with the subfield (16 without), masked inputs
//! and output bits one bit each, packed.
//!
//! Per chunk of c instances, with A AND gates, B buffer gates, k key
//! contributors and the default optimizations: round 1 (offline) every
//! party sends every other its bit shares of A + (its input wires) λs and,
//! if it contributes, 16 bytes of R, per instance (Figure 1, step 1; PRSS
//! replaces it for bgw2-mal, Section 4: no message); round 2 (BGW3 only,
//! dependent) the degree reduction, A bit shares per instance and link;
//! round 3 (dependent) every party sends the evaluator (4A + 2B)·k rows
//! and, semi-honest, its output λ shares, 16 bytes each (Section 3.2), a
//! few instances per message.
//! Online (Figure 2): the masked inputs to the contributors, the
//! contributors' input keys to the evaluator, and the output bits to every
//! party (bgw2-mal: the output keys to each contributor, which confirm the
//! bits to every party). What huddle adds: the pairwise zero-sharing seeds
//! and PRSS's key setup (phase `setup`).

use super::dependent::instances_per_message;
use super::linear::{held_sets, outside, LinearChoice};
use super::options::{Optimizations, Variant};
use super::party::chunk_instances;
use super::plan::Plan;
use super::EVALUATOR;
use crate::cost::{Plays, Script, Work};
use crate::error::RunError;
use huddle_circuit::Circuit;
use huddle_net::{PartyId, Phase};

/// The scripts of a garbling run of `variant` among `parties` parties on
/// `instances` instances of `circuit`.
pub(crate) fn predict(
    variant: Variant,
    parties: usize,
    circuit: &Circuit,
    instances: usize,
    options: &crate::RunOptions,
) -> Result<Plays, RunError> {
    let malicious = variant.is_malicious();
    let plan = Plan::new(circuit, parties, malicious)?;
    let t = variant.threshold(parties);
    let contributors = options.garble.contributors(variant, parties);
    let model = Model {
        chunk: chunk_instances(&plan, contributors, options, malicious),
        plan,
        variant,
        opts: options.garble,
        n: parties,
        t,
        contributors,
        instances,
        prss: malicious && options.linear.resolve(parties, t) != LinearChoice::TrustedDealer,
        everyone_learns: options.reveal_to.is_none(),
    };
    let scripts: Vec<Script> = (0..parties).map(|me| model.party(me)).collect();
    Ok(Plays::single(scripts))
}

/// What every party's script follows from.
struct Model {
    plan: Plan,
    variant: Variant,
    opts: Optimizations,
    n: usize,
    t: usize,
    contributors: usize,
    instances: usize,
    /// Instances per chunk.
    chunk: usize,
    /// bgw2-mal's linear preprocessing by PRSS (else the trusted dealer,
    /// which sends the parties nothing over the run's links).
    prss: bool,
    everyone_learns: bool,
}

impl Model {
    /// Party `me`'s script: setup, then chunk by chunk (bgw2-mal: every
    /// chunk garbled and its inputs exchanged before any is opened).
    fn party(&self, me: PartyId) -> Script {
        let mut s = Script::new(me);
        self.setup(&mut s);
        let chunks: Vec<usize> = (0..self.instances)
            .step_by(self.chunk)
            .map(|first| self.chunk.min(self.instances - first))
            .collect();
        if self.variant.is_malicious() {
            for &c in &chunks {
                self.preprocess(&mut s, c);
                s.set_phase(Phase::Online);
                self.masked_inputs(&mut s, c);
            }
            for &c in &chunks {
                self.open_outputs(&mut s, c);
            }
            return s;
        }
        for &c in &chunks {
            self.preprocess(&mut s, c);
            s.set_phase(Phase::Online);
            self.masked_inputs(&mut s, c);
            self.open_outputs(&mut s, c);
        }
        self.send_outputs(&mut s);
        s
    }

    /// Phase `setup`: the pairwise zero-sharing seeds (the lower party of
    /// each pair draws), with PRSS's contributions in the same round, then
    /// PRSS's digests of the shared keys.
    fn setup(&self, s: &mut Script) {
        let (me, n) = (s.party(), self.n);
        s.set_phase(Phase::Setup);
        let seeded = if self.opts.zero_sharing() && self.opts.prg_zero_sharing {
            n
        } else {
            0
        };
        for p in me + 1..seeded {
            s.send(p, 16);
        }
        // PRSS's keys (only where PRSS runs: C(n, t) sets).
        let sets = if self.prss {
            held_sets(n, self.t, me)
        } else {
            Vec::new()
        };
        let shared = |p: PartyId| 16 * sets.iter().filter(|&&set| outside(set, p)).count() as u64;
        let others = || (0..n).filter(move |&p| p != me);
        if self.prss {
            for p in others() {
                s.send(p, shared(p));
            }
        }
        for p in 0..me.min(seeded) {
            s.recv(p, 16);
        }
        if self.prss {
            for p in others() {
                s.recv(p, shared(p));
            }
            for p in others() {
                s.send(p, 32);
            }
            for p in others() {
                s.recv(p, 32);
            }
        }
    }

    /// Bytes of `count` permutation-bit shares (`offline::bit_share_bytes`).
    fn bit_shares(&self, count: usize) -> u64 {
        (count * if self.opts.small_field { 2 } else { 16 }) as u64
    }

    /// Rows of one instance's garbled circuit: four per AND gate and two
    /// per buffer gate, per contributor.
    fn rows(&self) -> usize {
        (4 * self.plan.ands + 2 * self.plan.buffers) * self.contributors
    }

    /// Rounds 1 to 3 of a chunk of `c` instances (`offline.rs`, `dependent.rs`).
    fn preprocess(&self, s: &mut Script, c: usize) {
        let (me, n, t, plan) = (s.party(), self.n, self.t, &self.plan);
        let others = || (0..n).filter(move |&p| p != me);
        let contributes = |p: PartyId| p < self.contributors;
        let malicious = self.variant.is_malicious();
        s.set_phase(Phase::Offline);
        // Round 1: λ (and R) shares, per instance to every other party.
        let lambdas = |p: PartyId| {
            self.bit_shares(plan.ands + plan.input_wires_of(p)) + 16 * u64::from(contributes(p))
        };
        if !malicious {
            for _ in 0..c {
                for p in others() {
                    s.send(p, lambdas(me));
                }
            }
        }
        // Without PRG zero sharing the first t + 1 parties deal zero shares.
        let dealt = self.opts.zero_sharing() && !self.opts.prg_zero_sharing;
        let dealt_bytes = 16 * (c * self.rows()) as u64;
        if dealt && me <= t {
            for p in others() {
                s.send(p, dealt_bytes);
            }
        }
        // Without reduced complexity the contributors Shamir-share their
        // PRF values: 4k + 1 elements per AND gate and instance.
        let prf_bytes = 16 * (c * plan.ands * (4 * self.contributors + 1)) as u64;
        let shamir = !self.opts.reduced_complexity;
        if shamir && contributes(me) {
            for p in others() {
                s.send(p, prf_bytes);
            }
        }
        if !malicious {
            for p in others() {
                for _ in 0..c {
                    s.recv(p, lambdas(p));
                }
            }
        }
        if dealt {
            for d in (0..=t).filter(|&d| d != me) {
                s.recv(d, dealt_bytes);
            }
        }
        if shamir {
            for p in (0..self.contributors).filter(|&p| p != me) {
                s.recv(p, prf_bytes);
            }
        }
        s.set_phase(Phase::Dependent);
        // Round 2, BGW3: the degree reduction of λ_u·λ_v.
        if self.variant == Variant::Bgw3 {
            for _ in 0..c {
                for p in others() {
                    s.send(p, self.bit_shares(plan.ands));
                }
            }
            for p in others() {
                for _ in 0..c {
                    s.recv(p, self.bit_shares(plan.ands));
                }
            }
        }
        // Round 3: the rows (and output λ shares) summed at the evaluator,
        // a few instances per message, each party garbling its share of
        // them (over every wire's keys and λ) before it sends.
        let lambdas = if malicious { 0 } else { plan.output_wires() };
        let instance_bytes = 16 * (self.rows() + lambdas);
        let per_message = instances_per_message(instance_bytes);
        for first in (0..c).step_by(per_message) {
            let g = per_message.min(c - first);
            s.work(Work::GarbleInstance, g as f64);
            s.work(Work::GarbleGate, (plan.garbled_gates() * g) as f64);
            s.work(Work::GarbleWire, (plan.wires * g) as f64);
            self.sum_at_evaluator(s, (g * instance_bytes) as u64);
        }
    }

    /// `dependent::sum_at_evaluator` of one vector of `bytes` bytes:
    /// directly, or over a hypercube.
    fn sum_at_evaluator(&self, s: &mut Script, bytes: u64) {
        let (me, n) = (s.party(), self.n);
        if !self.opts.hypercube {
            if me != EVALUATOR {
                s.send(EVALUATOR, bytes);
            } else {
                for p in 1..n {
                    s.recv(p, bytes);
                }
            }
            return;
        }
        let mut step = 1;
        while step < n {
            if me % (2 * step) == step {
                s.send(me - step, bytes);
                return;
            }
            if me % (2 * step) == 0 && me + step < n {
                s.recv(me + step, bytes);
            }
            step *= 2;
        }
    }

    /// Round A: the masked inputs from their owners to the contributors,
    /// one bit per input wire and instance, packed.
    fn masked_inputs(&self, s: &mut Script, c: usize) {
        let (me, plan) = (s.party(), &self.plan);
        let packed = |p: PartyId| (plan.input_wires_of(p) * c).div_ceil(8) as u64;
        for p in (0..self.contributors).filter(|&p| p != me) {
            s.send(p, packed(me));
        }
        if me < self.contributors {
            for p in (0..self.n).filter(|&p| p != me) {
                s.recv(p, packed(p));
            }
        }
    }

    /// Round B, the contributors' input keys to the evaluator, and for
    /// bgw2-mal rounds C (each contributor's output keys from the
    /// evaluator) and D (every contributor's output bits to every party).
    fn open_outputs(&self, s: &mut Script, c: usize) {
        let (me, plan) = (s.party(), &self.plan);
        s.set_phase(Phase::Online);
        let malicious = self.variant.is_malicious();
        let outputs = plan.output_wires() * c;
        if me >= self.contributors {
            if malicious {
                self.confirm_outputs(s, outputs, false);
            }
            return;
        }
        let keys = 16 * ((plan.all_input_wires() + plan.consts.len()) * c) as u64;
        if me != EVALUATOR {
            s.send(EVALUATOR, keys);
            if malicious {
                s.recv(EVALUATOR, 16 * outputs as u64);
                self.confirm_outputs(s, outputs, true);
            }
            return;
        }
        for p in 1..self.contributors {
            s.recv(p, keys);
        }
        s.work(Work::EvaluateInstance, c as f64);
        s.work(Work::EvaluateGate, (plan.garbled_gates() * c) as f64);
        s.work(Work::EvaluateStep, (plan.walk_steps() * c) as f64);
        if malicious {
            for j in 1..self.contributors {
                s.send(j, 16 * outputs as u64);
            }
            self.confirm_outputs(s, outputs, true);
        }
    }

    /// Round D (`outputs::confirm_outputs`): a contributor sends the
    /// `count` output bits it checked to every other party; every party
    /// receives every other contributor's.
    fn confirm_outputs(&self, s: &mut Script, count: usize, own: bool) {
        let me = s.party();
        let bytes = count.div_ceil(8) as u64;
        if own {
            for p in (0..self.n).filter(|&p| p != me) {
                s.send(p, bytes);
            }
        }
        for j in (0..self.contributors).filter(|&j| j != me) {
            s.recv(j, bytes);
        }
    }

    /// Semi-honest, after the last chunk: the evaluator sends every output
    /// bit of the batch to every other party, unless only it learns them.
    fn send_outputs(&self, s: &mut Script) {
        if !self.everyone_learns {
            return;
        }
        let bytes = (self.plan.output_wires() * self.instances).div_ceil(8) as u64;
        if s.party() == EVALUATOR {
            for p in 1..self.n {
                s.send(p, bytes);
            }
        } else {
            s.recv(EVALUATOR, bytes);
        }
    }
}
