//! What went wrong on the network ([`NetError`]), always naming the peer
//! involved, and what a party's abort tells its peers about it.

use crate::PartyId;
use std::time::Duration;

/// What went wrong on the network; always names the peer involved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetError {
    /// The connection to the peer closed without a goodbye or an abort.
    #[error("party {peer} disconnected")]
    Disconnected {
        /// The peer whose connection closed.
        peer: PartyId,
    },
    /// The peer said goodbye (it finished) while this party still waited
    /// on it.
    #[error("party {peer} has finished and left the run")]
    Departed {
        /// The peer that left.
        peer: PartyId,
    },
    /// A peer's abort: `reporter` stopped because `culprit` failed (the
    /// two are the same when a party reports its own failure).
    #[error("party {culprit} failed (reported by party {reporter}, which stopped){}", because(.reason))]
    Aborted {
        /// The party that failed.
        culprit: PartyId,
        /// The party that sent the abort.
        reporter: PartyId,
        /// Why, as the reporter tells it (peer text: printed, never trusted).
        reason: String,
    },
    /// The peer stopped because of a failure of its own, and said why.
    #[error("party {peer} stopped: {reason}")]
    Stopped {
        /// The peer that stopped.
        peer: PartyId,
        /// Why, as the peer tells it (peer text: printed, never trusted).
        reason: String,
    },
    /// The peer refused before the handshake: it cannot run. Unauthenticated,
    /// so it only ends the wait for the peer (see [`crate::refuse`]).
    #[error("{}", refusal_text(*.peer, *.reporter, .reason, .seen))]
    Refused {
        /// The party that cannot run.
        peer: PartyId,
        /// Who sent the refusal: `peer` itself, or a party passing it on.
        reporter: PartyId,
        /// Why, as the refusal tells it (unauthenticated text).
        reason: String,
        /// What this party saw of `peer` itself (e.g. a failed TLS handshake), if anything.
        seen: String,
    },
    /// Sockets: no byte (not even a liveness frame) came from the peer for
    /// the idle timeout while this party waited on it.
    #[error("party {peer} sent nothing for {idle:?} while awaited, not even a liveness frame: it stalled, its host froze or the network to it is cut (see --idle-timeout)")]
    Silent {
        /// The silent peer.
        peer: PartyId,
        /// The idle timeout that passed.
        idle: Duration,
    },
    /// Sockets: this party (`cycle[0]`) waits on `peer`, which waits on
    /// the next party of `cycle`, and so on back to this one, each with
    /// nothing on its way: nobody can ever send (a message was withheld or
    /// lost).
    #[error("parties {} each wait on the next with nothing on its way: party {peer} will never send what party {} waits for (a message was withheld or lost)", cycle_text(.cycle), .cycle.first().copied().unwrap_or(*.peer))]
    Deadlock {
        /// The peer this party waits on.
        peer: PartyId,
        /// The parties of the cycle, this party first, each waiting on the
        /// next.
        cycle: Vec<PartyId>,
    },
    /// The connection to the peer closed partway through a frame.
    #[error("party {peer} disconnected in the middle of a message")]
    Truncated {
        /// The peer whose connection closed.
        peer: PartyId,
    },
    /// In memory only (parties as threads of one process, no liveness).
    #[error("no message from party {peer} within {timeout:?}; it may have stalled or crashed")]
    Timeout {
        /// The peer that sent nothing.
        peer: PartyId,
        /// How long this party waited (see [`Network::set_timeout`](crate::Network::set_timeout)).
        timeout: Duration,
    },
    /// The peer's next message does not have the length this party
    /// expects: the parties disagree on the protocol, or the peer cheats.
    #[error("party {peer} sent a {got}-byte message where {expected} bytes were expected")]
    UnexpectedLength {
        /// The peer that sent the message.
        peer: PartyId,
        /// The length this party expected, in bytes.
        expected: usize,
        /// The length that came, in bytes.
        got: usize,
    },
    /// The peer announced a frame larger than this party accepts (see
    /// [`LinkLimits`](crate::LinkLimits) and
    /// [`Network::set_max_message`](crate::Network::set_max_message)); it
    /// was refused before being read.
    #[error("party {peer} sent a {len}-byte frame, above the limit of {max} bytes")]
    Oversized {
        /// The peer that sent the frame.
        peer: PartyId,
        /// The frame's announced length, in bytes.
        len: u64,
        /// The largest frame this party accepts, in bytes.
        max: usize,
    },
    /// The link to the peer failed otherwise: an I/O or TLS error, or a
    /// frame that breaks the link protocol.
    #[error("the link to party {peer} failed: {cause}")]
    Link {
        /// The peer at the other end of the link.
        peer: PartyId,
        /// What failed.
        cause: String,
    },
    /// A send or receive named a party that is not a peer (itself, or an
    /// id beyond the run): a bug of the caller.
    #[error("party {peer} is not a peer of party {me} in a run of {parties} parties")]
    UnknownPeer {
        /// The id that was named.
        peer: PartyId,
        /// This party.
        me: PartyId,
        /// The number of parties in the run.
        parties: usize,
    },
    /// Connecting failed before every peer was reached and authenticated
    /// (bad configuration, no listening socket, setup timeout); the cause.
    #[error("connection setup failed: {0}")]
    Setup(String),
    /// The parties disagree on the run (settings, circuit, session, party
    /// count, hello version): found at connect, before anything was sent.
    #[error("{0}")]
    Mismatch(String),
    /// This party was interrupted (see [`Interrupter`](super::Interrupter)); the cause.
    #[error("{0}")]
    Interrupted(String),
}

impl NetError {
    /// The party whose failure this is, if one is to blame.
    pub fn culprit(&self) -> Option<PartyId> {
        match self {
            NetError::Disconnected { peer }
            | NetError::Departed { peer }
            | NetError::Truncated { peer }
            | NetError::Timeout { peer, .. }
            | NetError::Silent { peer, .. }
            | NetError::Deadlock { peer, .. }
            | NetError::Stopped { peer, .. }
            | NetError::Refused { peer, .. }
            | NetError::UnexpectedLength { peer, .. }
            | NetError::Oversized { peer, .. }
            | NetError::Link { peer, .. } => Some(*peer),
            NetError::Aborted { culprit, .. } => Some(*culprit),
            NetError::UnknownPeer { .. }
            | NetError::Setup(_)
            | NetError::Mismatch(_)
            | NetError::Interrupted(_) => None,
        }
    }

    /// What this party's abort tells its peers about this failure: the
    /// culprit's own reason or the reporter's, passed on; a first-hand
    /// account of a peer's failure; nothing about its own (a panic).
    pub(crate) fn told_to_peers(&self) -> String {
        match self {
            NetError::Aborted { reason, .. } | NetError::Stopped { reason, .. } => reason.clone(),
            e if e.culprit().is_some() => e.to_string(),
            _ => String::new(),
        }
    }
}

fn cycle_text(cycle: &[PartyId]) -> String {
    let mut names: Vec<String> = cycle.iter().map(|p| p.to_string()).collect();
    names.extend(cycle.first().map(|p| p.to_string()));
    names.join(" → ")
}

fn because(reason: &str) -> String {
    if reason.is_empty() {
        String::new()
    } else {
        format!(": {reason}")
    }
}

fn refusal_text(peer: PartyId, reporter: PartyId, reason: &str, seen: &str) -> String {
    let whose = if reporter == peer {
        format!("party {peer} said so")
    } else {
        format!("party {reporter} passed it on")
    };
    let seen = if seen.is_empty() {
        String::new()
    } else {
        format!("; seen here: {seen}")
    };
    format!("party {peer} cannot run: {reason} (unverified: {whose} before authentication){seen}")
}
