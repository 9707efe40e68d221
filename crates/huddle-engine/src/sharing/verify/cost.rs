//! The messages of compare-view verification (see [`super`]): a digest of
//! four words per view a pair of parties shares, each way, and one verdict
//! word per directed link.

use super::{peers, shared, ViewSpec};
use crate::sharing::cost::Dry;
use huddle_net::Phase;

/// [`Views::exchange`](super::Views::exchange) of the views `specs` at this
/// party: to every party it shares a view with, four words per shared view,
/// then the same from each.
pub(crate) fn exchange_cost(ch: &mut Dry, specs: &[ViewSpec]) {
    send_digests_cost(ch, specs);
    receive_digests_cost(ch, specs);
}

/// The first half of [`exchange_cost`] ([`Views::send_digests`](super::Views::send_digests)).
pub(crate) fn send_digests_cost(ch: &mut Dry, specs: &[ViewSpec]) {
    let me = ch.party();
    for p in peers(specs, me) {
        ch.send_raw(p, 4 * shared(specs, me, p).count());
    }
}

/// The second half of [`exchange_cost`] ([`Views::receive_digests`](super::Views::receive_digests)).
pub(crate) fn receive_digests_cost(ch: &mut Dry, specs: &[ViewSpec]) {
    let me = ch.party();
    for p in peers(specs, me) {
        ch.recv_raw(p, 4 * shared(specs, me, p).count());
    }
}

/// [`tell`](super::tell): this party's verdict, one word to every other of
/// `parties`, in phase `verify`.
pub(crate) fn tell_cost(ch: &mut Dry, parties: usize) {
    let me = ch.party();
    ch.in_phase(Phase::Verify, |ch| {
        for p in (0..parties).filter(|&p| p != me) {
            ch.send_raw(p, 1);
        }
    });
}

/// [`hear`](super::hear): every other party's verdict.
pub(crate) fn hear_cost(ch: &mut Dry, parties: usize) {
    let me = ch.party();
    ch.in_phase(Phase::Verify, |ch| {
        for p in (0..parties).filter(|&p| p != me) {
            ch.recv_raw(p, 1);
        }
    });
}

/// [`settle`](super::settle): tell, then hear.
pub(crate) fn settle_cost(ch: &mut Dry, parties: usize) {
    tell_cost(ch, parties);
    hear_cost(ch, parties);
}
