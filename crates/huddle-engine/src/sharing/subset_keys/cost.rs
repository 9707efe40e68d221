//! The messages of the joint key agreement (see [`super`]): per key and
//! ordered pair of its holders a commitment (four words), then an opening
//! (two words) with the digest of the key's view (four words), then one
//! verdict word per directed link.

use super::super::malicious::PARTIES;
use super::super::verify::{self, ViewSpec};
use crate::sharing::cost::Dry;
use huddle_net::PartyId;

/// [`agree`](super::agree) of the keys `keys` at this party.
pub(crate) fn agree_cost(ch: &mut Dry, keys: &'static [ViewSpec]) {
    let me = ch.party();
    let holds = |k: &ViewSpec, p: PartyId| k.members.contains(&p);
    let shared = |p: PartyId| keys.iter().filter(|k| holds(k, me) && holds(k, p)).count();
    let peers: Vec<PartyId> = (0..PARTIES).filter(|&p| p != me && shared(p) > 0).collect();
    for &p in &peers {
        ch.send_raw(p, 4 * shared(p));
    }
    for &p in &peers {
        ch.recv_raw(p, 4 * shared(p));
    }
    for &p in &peers {
        ch.send_raw(p, 2 * shared(p));
    }
    verify::send_digests_cost(ch, keys);
    for &p in &peers {
        ch.recv_raw(p, 2 * shared(p));
    }
    verify::receive_digests_cost(ch, keys);
    verify::settle_cost(ch, PARTIES);
}
