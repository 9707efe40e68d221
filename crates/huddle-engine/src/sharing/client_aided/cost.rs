//! Client-aided 2PC's messages at each step (Ohata–Nuida Sections 2–3; see
//! the module documentation): per l-input product 2^l − l − 1 dealt
//! elements from the dealer to P1 in preprocessing (N-BTE, Section 3.1)
//! and, online, one element each way per distinct operand of the layer
//! (fewer where an operand is one party's conversion term alone, Section
//! 3.3); per truncated element one more dealt and one to the opener;
//! inputs and conversions free (Sections 2.2, 3.3); the reveal one element
//! each way (Section 2.2); the three keys of two words each.

use super::{
    dealt_elements, dealt_words, distinct_operands, groups, term_holders, truncated, truncation,
    ClientAided, DEALER,
};
use crate::inputs::learns;
use crate::options::Preprocess;
use crate::sharing::convert::side_instances;
use crate::sharing::cost::{evaluate, Dry, SharingCost};
use crate::sharing::program::{Layer, MulGate, Program, Step};
use crate::sharing::InputValues;
use huddle_circuit::Domain;
use huddle_net::{PartyId, Phase};

impl ClientAided {
    /// As [`ClientAided::receive_ahead`]: every layer's corrections, those
    /// of the conversions' recombining programs included.
    fn receive_ahead_cost(&mut self, ch: &mut Dry, program: &Program, instances: usize) {
        for step in &program.steps {
            match step {
                Step::Layer(i) => {
                    let layer = &program.layers[*i];
                    ch.set_encoding(program.encoding(layer.domain, instances));
                    let w = program.words(layer.domain, instances);
                    ch.recv(DEALER, dealt_words(layer, w));
                    self.ahead.push_back(Vec::new().into());
                }
                Step::Convert(i) => {
                    let conversion = &program.conversions[*i];
                    let side = side_instances(conversion.gates(), instances);
                    self.receive_ahead_cost(ch, program.recombining(conversion.kind), side);
                }
                Step::Linear(..) => {}
            }
        }
    }
}

impl SharingCost for ClientAided {
    /// An l-input gate's extended triple: a product per subset of at
    /// least two operands, 2^l − l − 1.
    fn gate_work(&self, gate: &MulGate) -> usize {
        crate::sharing::cost::products(gate, dealt_elements(gate.fan_in()))
    }

    /// P0 sends K01 to P1; the dealer sends K02 to P0 and K12 to P1.
    fn setup_cost(&mut self, ch: &mut Dry) {
        match self.me {
            0 => {
                ch.send_raw(1, 2);
                ch.recv_raw(DEALER, 2);
            }
            1 => {
                ch.recv_raw(0, 2);
                ch.recv_raw(DEALER, 2);
            }
            _ => {
                ch.send_raw(0, 2);
                ch.send_raw(1, 2);
            }
        }
    }

    /// Under `--preprocess separate` the dealer deals every layer first and
    /// P1 takes it all in first.
    fn preprocess_cost(
        &mut self,
        ch: &mut Dry,
        program: &Program,
        inputs: &[InputValues; 2],
        n: usize,
    ) {
        self.opener = truncation::opener(inputs[Domain::Ring as usize].reveal_to);
        if self.preprocess != Preprocess::Separate {
            return;
        }
        match self.me {
            DEALER => {
                evaluate(self, ch, program, n, None);
                self.ran_ahead = true;
            }
            1 => self.receive_ahead_cost(ch, program, n),
            _ => {}
        }
    }

    /// Inputs are shared from K01 alone: no messages.
    fn share_inputs_cost(&mut self, _ch: &mut Dry, _inputs: &InputValues, _w: usize) {}

    fn multiply_cost(&mut self, ch: &mut Dry, program: &Program, layer: &Layer, w: usize) {
        let me = self.me;
        if me == DEALER {
            ch.send_in(Phase::Offline, 1, dealt_words(layer, w));
            return;
        }
        if me == 1 && self.ahead.pop_front().is_none() {
            ch.recv(DEALER, dealt_words(layer, w));
        }
        let (distinct, _) = distinct_operands(&groups(program, layer));
        let holder = term_holders(layer, &distinct);
        let opened_by = |p: PartyId| holder.iter().filter(|&&h| h != Some(1 - p)).count() * w;
        let other = 1 - me;
        ch.send(other, opened_by(me));
        ch.recv(other, opened_by(other));
        let truncated = truncated(layer).len() * w;
        if truncated > 0 {
            if me == self.opener {
                ch.recv(other, truncated);
            } else {
                ch.send(self.opener, truncated);
            }
        }
    }

    /// P0 and P1 send each other their shares, where the other learns.
    fn reveal_cost(
        &mut self,
        ch: &mut Dry,
        _domain: Domain,
        slots: usize,
        w: usize,
        to: Option<PartyId>,
    ) {
        if self.me == DEALER {
            return;
        }
        let other = 1 - self.me;
        if learns(other, to) {
            ch.send(other, slots * w);
        }
        if learns(self.me, to) {
            ch.recv(other, slots * w);
        }
    }
}
