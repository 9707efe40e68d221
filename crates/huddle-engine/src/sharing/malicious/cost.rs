//! The messages of what the malicious 4-party protocols share (see
//! [`super`]): the vouched reveal, the comparison of views, checkpoints and
//! vouched values.

use super::{Route, Vouched, PARTIES};
use crate::inputs::learns;
use crate::sharing::cost::Dry;
use crate::sharing::verify::{self, ViewSpec};
use crate::sharing::InputValues;
use huddle_net::{PartyId, Phase};

/// [`reveal_vouched`](super::reveal_vouched) of `words` words along
/// `routes` to `to`: the verdicts, each receiver's value from its sender and
/// a digest (four words) from its verifier, and the verdicts again.
pub(crate) fn reveal_vouched_cost(
    ch: &mut Dry,
    routes: &[Route; PARTIES],
    words: usize,
    to: Option<PartyId>,
) {
    let me = ch.party();
    verify::tell_cost(ch, PARTIES);
    for (receiver, r) in routes.iter().enumerate() {
        if !learns(receiver, to) {
            continue;
        }
        if me == r.sender {
            ch.send(receiver, words);
        } else if me == r.verifier {
            ch.send_raw(receiver, 4);
        }
    }
    verify::hear_cost(ch, PARTIES);
    if learns(me, to) {
        let r = &routes[me];
        ch.recv(r.sender, words);
        ch.recv_raw(r.verifier, 4);
    }
    verify::settle_cost(ch, PARTIES);
}

/// [`compare_views`](super::compare_views): the views' digests, in phase `verify`.
pub(crate) fn compare_views_cost(ch: &mut Dry, specs: &[ViewSpec]) {
    ch.in_phase(Phase::Verify, |ch| verify::exchange_cost(ch, specs));
}

/// [`checkpoint`](super::checkpoint): the views' digests and the verdicts,
/// in phase `verify`.
pub(crate) fn checkpoint_cost(ch: &mut Dry, specs: &[ViewSpec]) {
    ch.in_phase(Phase::Verify, |ch| {
        verify::exchange_cost(ch, specs);
        verify::settle_cost(ch, PARTIES);
    });
}

impl Vouched {
    /// [`Vouched::send`]: the sender sends `words` words (the voucher hashes them).
    pub(crate) fn send_cost(&self, ch: &mut Dry, words: usize) {
        if ch.party() == self.sender {
            ch.send_in(self.phase, self.to, words);
        }
    }

    /// [`Vouched::receive`]: `words` words from the sender.
    pub(crate) fn receive_cost(&self, ch: &mut Dry, words: usize) {
        ch.recv(self.sender, words);
    }
}

/// Input sharing as Quad and Tetrad do it: each dealer sends its masked
/// values to those of P0, P1, P2 that are not itself (one element per wire
/// each); P3 receives nothing.
pub(crate) fn deal_to_evaluators_cost(ch: &mut Dry, inputs: &InputValues, w: usize) {
    let me = ch.party();
    let own = inputs.dealt_by(me).len() * w;
    for to in (0..3).filter(|&p| p != me) {
        ch.send(to, own);
    }
    if me == 3 {
        return;
    }
    for dealer in (0..PARTIES).filter(|&p| p != me) {
        ch.recv(dealer, inputs.dealt_by(dealer).len() * w);
    }
}
