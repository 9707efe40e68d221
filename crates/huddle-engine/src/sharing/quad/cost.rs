//! Quad's and Quad-Het's messages at each step (HK-C Sections VI-B and
//! VI-C, Figures 5 and 6; compare views, Section IV-B; see the module
//! documentation for what each message is): per
//! multiplication m0 (P0 -> P2) in preprocessing, and Quad's m3 (P3 -> P0);
//! online m1 (P1 -> P2), m20 (P2 -> P1) and m21 (P2 -> P0), Quad-Het's m22
//! (P2 -> P0) too. Beyond the paper's counts, what huddle sends as well:
//! the keys' joint agreement, the compare-view digests and the verdicts.

use super::tables::{CONVERT_M0, CONVERT_M2, KEYS, ROUTES};
use super::Quad;
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

impl SharingCost for Quad {
    fn setup_cost(&mut self, ch: &mut Dry) {
        agree_cost(ch, &KEYS);
    }

    fn share_inputs_cost(&mut self, ch: &mut Dry, inputs: &InputValues, w: usize) {
        deal_to_evaluators_cost(ch, inputs, w);
    }

    /// A plain Quad layer's P2 sends m21 before m0 arrives; a truncating
    /// one, and Quad-Het's, after the exchange with P1.
    fn multiply_cost(&mut self, ch: &mut Dry, _program: &Program, layer: &Layer, w: usize) {
        let n = layer.gates.len() * w;
        let (het, truncates) = (self.het, layer.gates.iter().any(|g| g.trunc > 0));
        match self.me {
            0 => {
                ch.send_in(Phase::Offline, 2, n);
                ch.recv(if het { 2 } else { 3 }, n);
                ch.recv(2, n);
            }
            1 => {
                ch.send(2, n);
                ch.recv(2, n);
            }
            2 => {
                let early = !het && !truncates;
                if early {
                    ch.send(0, n);
                }
                ch.recv(0, n);
                ch.send(1, n);
                ch.recv(1, n);
                if !early {
                    ch.send(0, n);
                }
                if het {
                    ch.send(0, n);
                }
            }
            _ => {
                if !het {
                    ch.send_in(Phase::Offline, 0, n);
                }
            }
        }
    }

    /// HK-C Figures 15 and 17: x2' from P0 to P2 (offline), t0 + r123 from
    /// P2 to P0, one element per target word each.
    fn split_cost(&mut self, ch: &mut Dry, job: &SplitJob) {
        let n = job.term_words();
        match self.me {
            0 => {
                CONVERT_M0.send_cost(ch, n);
                CONVERT_M2.receive_cost(ch, n);
            }
            2 => {
                CONVERT_M2.send_cost(ch, n);
                CONVERT_M0.receive_cost(ch, n);
            }
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
        compare_views_cost(ch, self.specs());
    }

    fn checkpoint_cost(&mut self, ch: &mut Dry) {
        checkpoint_cost(ch, self.specs());
    }
}
