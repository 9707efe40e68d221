//! What the maliciously secure 4-party protocols (Quad, Fantastic Four,
//! Tetrad) have in common besides their keys ([`super::subset_keys`]): the
//! reveal in which every value a party receives is vouched for by a digest
//! from a second holder, the checkpoints, and values vouched for on the way.

use super::verify::{self, Views};
use super::{recv_raw, send_raw_tagged, Channel, Shares};
use crate::error::RunError;
use crate::inputs::learns;
use huddle_net::{PartyId, Phase};

mod cost;
pub(crate) use cost::{
    checkpoint_cost, compare_views_cost, deal_to_evaluators_cost, reveal_vouched_cost,
};

/// The four parties of every protocol here.
pub(crate) const PARTIES: usize = 4;

/// The protocol's message types (indices into its fault-injection list) of
/// the messages the helpers here and the key agreement send.
pub(crate) struct Tags {
    pub key_commitment: usize,
    pub key_opening: usize,
    pub digest: usize,
    pub reveal: usize,
    pub reveal_digest: usize,
    pub verdict: usize,
}

/// How one receiver gets the value it lacks: `sender` sends its share
/// component `sent`, `verifier` sends a digest of its own copy, component
/// `vouched`; `check` is the view named in an abort (its one member: the
/// receiver, who checks the value against the digest).
pub(crate) struct Route {
    pub sender: PartyId,
    pub sent: usize,
    pub verifier: PartyId,
    pub vouched: usize,
    pub check: usize,
}

/// Opens `slots` to `to` (None: every party) along `routes` (one per
/// receiver): with its verdict every party sends its reveal messages if its
/// own checks passed, hears everyone's verdict, takes the value it lacks and
/// checks it against the verifier's digest, and settles once more, so that a
/// failed reveal check stops every honest party. Returns the received words
/// (the caller combines them with its own shares).
///
/// Send failures wait until the verdicts are heard (see [`verify::tell`]): a
/// peer that heard a failure may be gone already.
pub(crate) fn reveal_vouched(
    ch: &mut Channel,
    views: &mut Views,
    routes: &[Route; PARTIES],
    s: &Shares,
    slots: &[u32],
    to: Option<PartyId>,
    tags: &Tags,
) -> Result<Option<Vec<u64>>, RunError> {
    let me = ch.party();
    let wb = ch.encoding();
    let ok = views.failed().is_none();
    let mut sent = verify::tell(ch, views, PARTIES, tags.verdict);
    for (receiver, r) in routes.iter().enumerate() {
        if !learns(receiver, to) || !ok {
            continue;
        }
        if me == r.sender {
            let value = s.concat(r.sent, slots);
            sent = sent.and(ch.send_tagged(tags.reveal, receiver, &value));
        } else if me == r.verifier {
            let label = views.check(r.check);
            let digest = verify::digest(&s.concat(r.vouched, slots), wb, label);
            sent = sent.and(send_raw_tagged(ch, tags.reveal_digest, receiver, &digest));
        }
    }
    verify::hear(ch, views, PARTIES)?;
    sent?;
    let mut received = None;
    if learns(me, to) {
        let r = &routes[me];
        debug_assert!(views.is_member(r.check), "a reveal's receiver checks it");
        let theirs = ch.recv(r.sender, slots.len() * s.w)?;
        let digest = recv_raw(ch, r.verifier, 4)?;
        if verify::digest(&theirs, wb, views.check(r.check))[..] != digest[..] {
            views.fail(r.check, r.verifier);
        }
        received = Some(theirs.into_vec());
    }
    verify::settle(ch, views, PARTIES, tags.verdict)?;
    Ok(received)
}

/// Compares every view's digests in phase `verify` (before any reveal).
pub(crate) fn compare_views(
    ch: &mut Channel,
    views: &mut Views,
    tags: &Tags,
) -> Result<(), RunError> {
    let now = ch.phase();
    ch.set_phase(Phase::Verify);
    views.exchange(ch, tags.digest)?;
    ch.set_phase(now);
    Ok(())
}

/// A checkpoint between layers (`--verify-every`): the views so far are
/// compared and every party's verdict settled, in phase `verify`; a
/// failure stops every honest party here.
pub(crate) fn checkpoint(ch: &mut Channel, views: &mut Views, tags: &Tags) -> Result<(), RunError> {
    let now = ch.phase();
    ch.set_phase(Phase::Verify);
    views.exchange(ch, tags.digest)?;
    verify::settle(ch, views, PARTIES, tags.verdict)?;
    ch.set_phase(now);
    Ok(())
}

/// A value two parties hold, for a third one: `sender` sends it to `to`
/// (as message type `tag`, in `phase`) and the other holder, its voucher,
/// absorbs the same value into `view`, as `to` does with what it receives.
/// One of the two holders is honest, so a wrong value fails the view.
pub(crate) struct Vouched {
    pub sender: PartyId,
    pub to: PartyId,
    pub phase: Phase,
    pub tag: usize,
    pub view: usize,
}

impl Vouched {
    /// At either holder: the sender sends `value`, the voucher hashes it.
    pub(crate) fn send(
        &self,
        ch: &mut Channel,
        views: &mut Views,
        value: &[u64],
    ) -> Result<(), RunError> {
        if ch.party() == self.sender {
            ch.send_tagged_in(self.phase, self.tag, self.to, value)
        } else {
            views.absorb(self.view, value);
            Ok(())
        }
    }

    /// At `to`: the `n` words, hashed into the view.
    pub(crate) fn receive(
        &self,
        ch: &mut Channel,
        views: &mut Views,
        n: usize,
    ) -> Result<Vec<u64>, RunError> {
        let value = ch.recv(self.sender, n)?;
        views.absorb(self.view, &value);
        Ok(value.into_vec())
    }
}

/// Writes every gate's three output components (protocols with three
/// components per slot), word k of the layer from `f(k)`.
pub(crate) fn write3(
    s: &mut Shares,
    gates: &[(u32, u32, u32)],
    f: impl Fn(usize) -> (u64, u64, u64),
) {
    let w = s.w;
    for (gi, &(_, _, out)) in gates.iter().enumerate() {
        s.write3(out, |j| f(gi * w + j));
    }
}
