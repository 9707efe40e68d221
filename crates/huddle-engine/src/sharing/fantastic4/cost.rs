//! Fantastic Four's messages at each step (`specs/fantastic-four-4pc.md`;
//! see the module documentation): six elements per multiplication, m1 and
//! m5 P0 -> P3, m2 P1 -> P0, m3 P2 -> P1, m4 P3 -> P2, m6 P1 -> P2 (§5.3);
//! an input's x_b to the dealer's two neighbours (§3.2); the reveal's x_i
//! from P_{i-1} with a digest from P_{i+1} (§3.3). Beyond the
//! specification, what huddle sends as well: the keys' joint agreement,
//! the compare-view digests (§6.1) and verdicts, and the terms of
//! conversions and truncated products (`CONVERSION_TERMS`). §7 counts the
//! specification's part.

use super::{ConversionTerm, FantasticFour, CONVERSION_TERMS, KEYS, ROUTES, VIEWS};
use crate::sharing::convert::SplitJob;
use crate::sharing::cost::{Dry, SharingCost};
use crate::sharing::malicious::{
    checkpoint_cost, compare_views_cost, reveal_vouched_cost, Vouched,
};
use crate::sharing::program::{Layer, Program};
use crate::sharing::subset_keys::agree_cost;
use crate::sharing::InputValues;
use huddle_circuit::Domain;
use huddle_net::PartyId;

impl FantasticFour {
    /// [`FantasticFour::share_terms`] of `n` words: each term's holder
    /// sends its y_sent to the keyed party (the other holder vouches), then
    /// the keyed party receives it.
    fn share_terms_cost(
        &self,
        ch: &mut Dry,
        n: usize,
        message: impl Fn(&ConversionTerm) -> &Vouched,
    ) {
        for term in &CONVERSION_TERMS {
            if self.me != term.keyed && term.holders.contains(&self.me) {
                message(term).send_cost(ch, n);
            }
        }
        for term in &CONVERSION_TERMS {
            if self.me == term.keyed {
                message(term).receive_cost(ch, n);
            }
        }
    }
}

impl SharingCost for FantasticFour {
    fn setup_cost(&mut self, ch: &mut Dry) {
        agree_cost(ch, &KEYS);
    }

    /// The dealer's x_b to its two neighbours, one element per wire each.
    fn share_inputs_cost(&mut self, ch: &mut Dry, inputs: &InputValues, w: usize) {
        let me = self.me;
        let own = inputs.dealt_by(me).len() * w;
        for to in [(me + 1) % 4, (me + 3) % 4] {
            ch.send(to, own);
        }
        for d in [(me + 3) % 4, (me + 1) % 4] {
            ch.recv(d, inputs.dealt_by(d).len() * w);
        }
    }

    /// A layer with truncating gates sends only m2, m4, m5 and m6 first,
    /// then the two terms of the truncated products (one element each way
    /// between P0 and P2): six elements, one round more.
    fn multiply_cost(&mut self, ch: &mut Dry, _program: &Program, layer: &Layer, w: usize) {
        let n = layer.gates.len() * w;
        if layer.gates.iter().any(|g| g.trunc > 0) {
            match self.me {
                0 => {
                    ch.send(3, n);
                    ch.recv(1, n);
                }
                1 => {
                    ch.send(0, n);
                    ch.send(2, n);
                }
                2 => {
                    ch.recv(3, n);
                    ch.recv(1, n);
                }
                _ => {
                    ch.send(2, n);
                    ch.recv(0, n);
                }
            }
            self.share_terms_cost(ch, n, |t| &t.truncation);
            return;
        }
        match self.me {
            0 => {
                ch.send(3, n);
                ch.send(3, n);
                ch.recv(1, n);
            }
            1 => {
                ch.send(0, n);
                ch.send(2, n);
                ch.recv(2, n);
            }
            2 => {
                ch.send(1, n);
                ch.recv(3, n);
                ch.recv(1, n);
            }
            _ => {
                ch.send(2, n);
                ch.recv(0, n);
                ch.recv(0, n);
            }
        }
    }

    fn split_cost(&mut self, ch: &mut Dry, job: &SplitJob) {
        self.share_terms_cost(ch, job.term_words(), |t| &t.message);
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
