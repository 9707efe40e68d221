//! Tetrad's messages at each step (`specs/tetrad-4pc.md`; see the module
//! documentation): per multiplication t1 (P3 -> P0) and t2 (P3 -> P2) in
//! preprocessing (§5.2), t3 (P1 -> P2), t4 (P2 -> P1) and t5 (P2 -> P0)
//! online (§5.3; §7 counts them);
//! an input's masked value to those of P0, P1, P2 that are not its dealer
//! (§3.2); the reveal's routes (§3.3). Beyond the specification, what
//! huddle sends as well: the keys' joint agreement, the compare-view
//! digests, the verdicts, and the conversions' two vouched terms.

use super::{Tetrad, CONVERT_M, CONVERT_MASK, KEYS, ROUTES, VIEWS};
use crate::sharing::convert::SplitJob;
use crate::sharing::cost::{Dry, SharingCost};
use crate::sharing::malicious::{
    checkpoint_cost, compare_views_cost, deal_to_evaluators_cost, reveal_vouched_cost,
};
use crate::sharing::program::{Layer, Program};
use crate::sharing::subset_keys::agree_cost;
use crate::sharing::InputValues;
use huddle_circuit::Domain;
use huddle_net::{PartyId, Phase};

impl SharingCost for Tetrad {
    fn setup_cost(&mut self, ch: &mut Dry) {
        agree_cost(ch, &KEYS);
    }

    fn share_inputs_cost(&mut self, ch: &mut Dry, inputs: &InputValues, w: usize) {
        deal_to_evaluators_cost(ch, inputs, w);
    }

    /// The same messages whether or not a gate truncates.
    fn multiply_cost(&mut self, ch: &mut Dry, _program: &Program, layer: &Layer, w: usize) {
        let n = layer.gates.len() * w;
        match self.me {
            3 => {
                ch.send_in(Phase::Offline, 0, n);
                ch.send_in(Phase::Offline, 2, n);
            }
            0 => {
                ch.recv(3, n);
                ch.recv(2, n);
            }
            1 => {
                ch.send(2, n);
                ch.recv(2, n);
            }
            _ => {
                ch.send(1, n);
                ch.recv(3, n);
                ch.recv(1, n);
                ch.send(0, n);
            }
        }
    }

    /// t0's masked value from P0 to P2 (online), t1's mask from P3 to P0
    /// (offline), one element per target word each.
    fn split_cost(&mut self, ch: &mut Dry, job: &SplitJob) {
        let n = job.term_words();
        CONVERT_M.send_cost(ch, n);
        CONVERT_MASK.send_cost(ch, n);
        match self.me {
            0 => CONVERT_MASK.receive_cost(ch, n),
            2 => CONVERT_M.receive_cost(ch, n),
            _ => {}
        }
    }

    fn reveal_cost(
        &mut self,
        ch: &mut Dry,
        _domain: Domain,
        slots: usize,
        w: usize,
        to: Option<PartyId>,
    ) {
        reveal_vouched_cost(ch, &ROUTES, slots * w, to);
    }

    fn verify_cost(&mut self, ch: &mut Dry) {
        compare_views_cost(ch, &VIEWS);
    }

    fn checkpoint_cost(&mut self, ch: &mut Dry) {
        checkpoint_cost(ch, &VIEWS);
    }
}
