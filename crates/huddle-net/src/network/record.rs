//! What an endpoint shows those who watch it: the log of its steps through
//! a run ([`PHASE_LOG`]), and, when a test asks for them, the messages it
//! received ([`Transcript`]) and the order of all it sent and received
//! ([`TrafficLog`]).

use crate::accounting::Phase;
use crate::PartyId;
use std::sync::{Arc, Mutex};

/// The log target of a party's steps through its run
/// ([`Network::announce`](crate::Network::announce), and every
/// [`Network::set_phase`](crate::Network::set_phase)): at debug level, one event per step,
/// `enters phase party=P lane=L phase=NAME`, so that a log reader (the
/// chaos harness, `huddle bench chaos`) knows where a party is without
/// guessing from time.
pub const PHASE_LOG: &str = "huddle_net::phase";

/// The last step a party logs ([`PHASE_LOG`]): its protocol is over, and
/// what remains is local (writing its outputs).
pub const FINISHED: &str = "finished";

/// Logs that `lane` of party `me` enters `step` (see [`PHASE_LOG`]).
pub(crate) fn announce(me: PartyId, lane: u16, step: &str) {
    tracing::debug!(target: PHASE_LOG, party = me, lane, phase = %step, "enters phase");
}

/// One received message: its sender, the phase it was sent in, its payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received {
    /// The sender.
    pub from: PartyId,
    /// The phase the sender counted the message under.
    pub phase: Phase,
    /// The protocol payload, without the transport's trailer.
    pub payload: Vec<u8>,
}

/// A party's view of a run as far as the network shows it: every message it
/// received, in order.
pub type Transcript = Arc<Mutex<Vec<Received>>>;

/// One message a party sent or received, as its traffic log records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traffic {
    /// Sent by this party (else received).
    pub sent: bool,
    /// The receiver of a sent message, the sender of a received one.
    pub peer: PartyId,
    /// The phase the message is counted under.
    pub phase: Phase,
    /// The lane of a run split into lanes (0 otherwise).
    pub lane: usize,
    /// Payload bytes.
    pub bytes: usize,
}

/// A party's sends and receives in the order they happened, over all its
/// lanes (see [`Network::record_traffic`](crate::Network::record_traffic)).
pub type TrafficLog = Arc<Mutex<Vec<Traffic>>>;

/// Appends to a traffic log, if one is kept.
pub(crate) fn log_traffic(log: &Option<TrafficLog>, t: Traffic) {
    if let Some(Ok(mut log)) = log.as_ref().map(|l| l.lock()) {
        log.push(t);
    }
}
