//! Replicated 3PC's messages at each step (`shared/specs/replicated-3pc.md`,
//! whose §7 counts them; see the module documentation): one element per
//! party per multiplication, P_i -> P_{i+1} (§5); inputs one element to
//! each neighbour of the owner (§3.2); outputs x_i to P_{i+1} (§3.3); keys
//! of two words (§2).

use super::Replicated;
use crate::inputs::learns;
use crate::sharing::convert::SplitJob;
use crate::sharing::cost::{Dry, SharingCost};
use crate::sharing::program::{Layer, Program};
use crate::sharing::InputValues;
use huddle_circuit::Domain;
use huddle_net::PartyId;

impl SharingCost for Replicated {
    /// P_i sends K_{i,i+1} (two words) to P_{i+1}, then receives K_{i-1,i} (§2).
    fn setup_cost(&mut self, ch: &mut Dry) {
        let (prev, next) = self.neighbours();
        ch.send_raw(next, 2);
        ch.recv_raw(prev, 2);
    }

    /// The owner sends each neighbour one element per wire (§3.2).
    fn share_inputs_cost(&mut self, ch: &mut Dry, inputs: &InputValues, w: usize) {
        let (prev, next) = self.neighbours();
        let own = inputs.dealt_by(self.me).len() * w;
        ch.send(prev, own);
        ch.send(next, own);
        for from in [prev, next] {
            ch.recv(from, inputs.dealt_by(from).len() * w);
        }
    }

    /// One element per gate P_i -> P_{i+1} (§5); a
    /// truncating gate's element goes from P0 to P2 instead of P1, and P2
    /// answers P1 with c + p: one element more, one round more.
    fn multiply_cost(&mut self, ch: &mut Dry, _program: &Program, layer: &Layer, w: usize) {
        let (prev, next) = self.neighbours();
        let n = layer.gates.len() * w;
        let trunc = layer.gates.iter().filter(|g| g.trunc > 0).count() * w;
        if trunc == 0 {
            ch.send(next, n);
            ch.recv(prev, n);
            return;
        }
        let plain = n - trunc;
        match self.me {
            0 => {
                ch.send(1, plain);
                ch.send(2, trunc);
                ch.recv(2, plain);
            }
            1 => {
                ch.send(2, n);
                ch.recv(0, plain);
                ch.recv(2, trunc);
            }
            _ => {
                ch.send(0, plain);
                ch.recv(1, n);
                ch.recv(0, trunc);
                ch.send(1, trunc);
            }
        }
    }

    /// Both terms input in the target domain by their one holder.
    fn split_cost(&mut self, ch: &mut Dry, job: &SplitJob) {
        let slots = [job.terms[0].to_vec(), job.terms[1].to_vec()];
        let terms = InputValues {
            owners: vec![2, 0],
            slots: &slots,
            own: vec![None, None],
            reveal_to: None,
        };
        self.share_inputs_cost(ch, &terms, job.slot_words());
    }

    /// P_i sends x_i to P_{i+1} where P_{i+1} learns the outputs (§3.3).
    fn reveal_cost(
        &mut self,
        ch: &mut Dry,
        _domain: Domain,
        slots: usize,
        w: usize,
        to: Option<PartyId>,
    ) {
        let (prev, next) = self.neighbours();
        if learns(next, to) {
            ch.send(next, slots * w);
        }
        if learns(self.me, to) {
            ch.recv(prev, slots * w);
        }
    }
}
