//! The trailer every message carries (its phase, round stamp and lane),
//! written by the sender and checked at the receiver, and message buffers
//! made with room for it.

use crate::accounting::Phase;

/// Every message carries a 7-byte trailer (not counted as payload): the phase
/// it was sent in, its round stamp, one more than the deepest stamp of that
/// phase its sender had received, and its lane (0 except in a run split into
/// concurrent lanes, see [`Network::split`](crate::Network::split)). The largest stamp of a phase is
/// the length of the phase's longest chain of dependent messages: the rounds
/// a WAN pays latency for, whichever links they take.
pub const STAMP_BYTES: usize = 7;

/// The largest round stamp accepted from a peer.
const MAX_STAMP: u32 = 1 << 31;

/// A message's trailer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub(crate) phase: Phase,
    pub(crate) stamp: u32,
    pub(crate) lane: u16,
}

/// Appends the trailer.
pub(crate) fn push_stamp(data: &mut Vec<u8>, s: Stamp) {
    data.push(s.phase as u8);
    data.extend_from_slice(&s.stamp.to_le_bytes());
    data.extend_from_slice(&s.lane.to_le_bytes());
}

/// The lane a received message (trailer still on) names; None if it has
/// no trailer (`split_stamp` then says so).
pub(crate) fn lane_of(data: &[u8]) -> Option<u16> {
    let at = data.len().checked_sub(2)?;
    (data.len() >= STAMP_BYTES).then(|| u16::from_le_bytes([data[at], data[at + 1]]))
}

/// Removes a received message's trailer and returns it; the message is the
/// peer's, so every field is checked.
pub(crate) fn split_stamp(data: &mut Vec<u8>) -> Result<Stamp, String> {
    let bad = || "a message without a valid round stamp".to_string();
    let at = data.len().checked_sub(STAMP_BYTES).ok_or_else(bad)?;
    let phase = *Phase::ALL.get(data[at] as usize).ok_or_else(bad)?;
    let stamp = u32::from_le_bytes(data[at + 1..at + 5].try_into().map_err(|_| bad())?);
    let lane = u16::from_le_bytes([data[at + 5], data[at + 6]]);
    // No run has 2^31 rounds: a larger stamp is a peer's fabrication.
    if stamp > MAX_STAMP {
        return Err(format!(
            "a round stamp of {stamp}, above any real run's {MAX_STAMP}"
        ));
    }
    data.truncate(at);
    Ok(Stamp { phase, stamp, lane })
}

/// An empty message buffer with room for `len` payload bytes and the
/// trailer, so that sending it never reallocates (a copy of the whole
/// message into fresh memory); one of past messages' buffers where one is
/// large enough (see [`recycle_buffer`](crate::recycle_buffer)).
pub fn message_buffer(len: usize) -> Vec<u8> {
    crate::pool::take(len + STAMP_BYTES).unwrap_or_else(|| Vec::with_capacity(len + STAMP_BYTES))
}

/// A message of `len` bytes to be overwritten whole and sent as it is (no
/// copy into a message buffer), with room for the trailer. Its bytes are
/// unspecified: a past message buffer's, which may be any message this
/// process sent or received, so every byte must be written before sending.
pub fn scratch_message(len: usize) -> Vec<u8> {
    crate::pool::scratch(len, len + STAMP_BYTES)
}
