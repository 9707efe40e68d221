//! The helper protocols' messages at each step (ASTRA, Trio, MFI-3PC; see
//! the module documentation): P0 chooses K01 and K02; an input costs one
//! element per wire to each party that lacks its masked value (ASTRA spec
//! §3.2, HK-C Section V-A); the reveal one mask from P0 to each evaluator
//! (input-independent: ahead of everything under `--preprocess separate`)
//! and P2's value to P0 (ASTRA spec §3.3); conversions P0's masked term to
//! both evaluators (HK-C Appendix B in this sharing); each variant states
//! its multiplication ([`Variant::multiply_cost`]).

use super::{Core, Helper, Variant, HELPER};
use crate::inputs::learns;
use crate::options::Preprocess;
use crate::sharing::convert::{side_instances, SplitJob};
use crate::sharing::cost::{evaluate, Dry, SharingCost};
use crate::sharing::program::{Layer, MulGate, Program, Step};
use crate::sharing::InputValues;
use huddle_circuit::Domain;
use huddle_net::{PartyId, Phase};

impl Core {
    /// At P1/P2: the next preprocessing message from P0, unless it came ahead.
    pub(crate) fn recv_offline_cost(&mut self, ch: &mut Dry, count: usize) {
        if self.offline.pop_front().is_none() {
            ch.recv(HELPER, count);
        }
    }

    /// `n` elements P0 -> P2 in preprocessing and `n` each way between P1
    /// and P2 online: the multiplication of ASTRA and of Trio alike.
    pub(crate) fn offline_to_p2_then_exchange_cost(&mut self, ch: &mut Dry, n: usize) {
        match self.me {
            HELPER => ch.send_in(Phase::Offline, 2, n),
            1 => {
                ch.send(2, n);
                ch.recv(2, n);
            }
            _ => {
                self.recv_offline_cost(ch, n);
                ch.send(1, n);
                ch.recv(1, n);
            }
        }
    }
}

impl<V: Variant> Helper<V> {
    /// As [`Helper::receive_ahead`]: P2 the layer messages (protocols with
    /// preprocessing), both the masked terms of every conversion, then those
    /// of its recombining program's layers.
    fn receive_ahead_cost(&mut self, ch: &mut Dry, program: &Program, instances: usize) {
        for step in &program.steps {
            match step {
                Step::Layer(i) if self.core.me == 2 && V::DESCRIPTOR.preprocessing => {
                    let layer = &program.layers[*i];
                    ch.set_encoding(program.encoding(layer.domain, instances));
                    ch.recv(
                        HELPER,
                        layer.gates.len() * program.words(layer.domain, instances),
                    );
                    self.core.offline.push_back(Vec::new().into());
                }
                Step::Convert(i) => {
                    let conversion = &program.conversions[*i];
                    let sub = program.recombining(conversion.kind);
                    let to = conversion.kind.target();
                    let side = side_instances(conversion.gates(), instances);
                    ch.set_encoding(program.encoding(to, side));
                    ch.recv(HELPER, sub.inputs[1].1.len() * sub.words(to, side));
                    self.core.offline.push_back(Vec::new().into());
                    self.receive_ahead_cost(ch, sub, side);
                }
                _ => {}
            }
        }
    }

    /// P0's output masks: mu2 to P1, mu1 to P2, where they learn.
    fn output_masks_cost(ch: &mut Dry, n: usize, to: Option<PartyId>) {
        for p in [1, 2] {
            if learns(p, to) {
                ch.send(p, n);
            }
        }
    }
}

impl<V: Variant> SharingCost for Helper<V> {
    fn gate_work(&self, gate: &MulGate) -> usize {
        V::gate_work(gate)
    }

    /// P0 sends K01 to P1 and K02 to P2, two words each.
    fn setup_cost(&mut self, ch: &mut Dry) {
        match self.core.me {
            HELPER => {
                ch.send_raw(1, 2);
                ch.send_raw(2, 2);
            }
            _ => ch.recv_raw(HELPER, 2),
        }
    }

    /// Under `--preprocess separate` P0 runs its whole part first (input
    /// masks need nothing sent; every layer's and conversion's offline
    /// message; the output masks), and P1 and P2 take it all in first.
    fn preprocess_cost(
        &mut self,
        ch: &mut Dry,
        program: &Program,
        inputs: &[InputValues; 2],
        n: usize,
    ) {
        if self.core.preprocess != Preprocess::Separate {
            return;
        }
        let to = inputs[0].reveal_to;
        let revealed: Vec<Domain> = [Domain::Bit, Domain::Ring]
            .into_iter()
            .filter(|&d| program.reveals(d))
            .collect();
        let outputs = |d: Domain| program.output_slots(d).len() * program.words(d, n);
        match self.core.me {
            HELPER => {
                evaluate(self, ch, program, n, None);
                for d in revealed {
                    ch.set_encoding(program.encoding(d, n));
                    Self::output_masks_cost(ch, outputs(d), to);
                }
                self.core.ran_ahead = true;
            }
            me => {
                self.receive_ahead_cost(ch, program, n);
                if learns(me, to) {
                    for d in revealed {
                        ch.set_encoding(program.encoding(d, n));
                        ch.recv(HELPER, outputs(d));
                        self.core.output_masks[d as usize] = Some(Vec::new().into());
                    }
                }
            }
        }
    }

    /// The owner sends its masked value to each party that lacks it: P0 to
    /// both evaluators, P1 to P2, P2 to P1.
    fn share_inputs_cost(&mut self, ch: &mut Dry, inputs: &InputValues, w: usize) {
        let me = self.core.me;
        let own = inputs.dealt_by(me).len() * w;
        for p in [1, 2].into_iter().filter(|&p| p != me) {
            ch.send(p, own);
        }
        if me != HELPER {
            for from in [HELPER, 3 - me] {
                ch.recv(from, inputs.dealt_by(from).len() * w);
            }
        }
    }

    fn multiply_cost(&mut self, ch: &mut Dry, _program: &Program, layer: &Layer, w: usize) {
        V::multiply_cost(&mut self.core, ch, layer, w);
    }

    /// t1 = −λ shared by P0 like one of its inputs: its masked value to P1
    /// and P2, one element per target word each, in phase `offline`.
    fn split_cost(&mut self, ch: &mut Dry, job: &SplitJob) {
        let n = job.term_words();
        match self.core.me {
            HELPER => {
                for p in [1, 2] {
                    ch.send_in(Phase::Offline, p, n);
                }
            }
            _ => self.core.recv_offline_cost(ch, n),
        }
    }

    /// P0 sends each evaluator the mask it lacks (unless sent ahead), P2
    /// sends P0 its masked value.
    fn reveal_cost(
        &mut self,
        ch: &mut Dry,
        domain: Domain,
        slots: usize,
        w: usize,
        to: Option<PartyId>,
    ) {
        let n = slots * w;
        match self.core.me {
            HELPER => {
                if !self.core.ran_ahead {
                    Self::output_masks_cost(ch, n, to);
                }
                if learns(HELPER, to) {
                    ch.recv(2, n);
                }
            }
            me => {
                if me == 2 && learns(HELPER, to) {
                    ch.send(HELPER, n);
                }
                if learns(me, to) && self.core.output_masks[domain as usize].take().is_none() {
                    ch.recv(HELPER, n);
                }
            }
        }
    }
}
