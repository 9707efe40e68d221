//! How a connect that cannot succeed ends: a party that gives up because
//! it cannot run, or because another party cannot, tells the peers it has
//! met through their link (an abort naming the party that cannot run, with
//! the reason) and the others in a refusal round (see [`crate::refusal`]),
//! so that nobody waits out its connect deadline.

use crate::config::NetworkConfig;
use crate::network::{Alarm, LinkParts, NetError, Network, Shared};
use crate::profile::NetProfile;
use crate::refusal::{round, Note, REFUSAL_GRACE};
use crate::PartyId;
use std::net::TcpListener;
use std::time::{Duration, Instant};

/// Why a connect ends without a network, and what the others are told.
pub(crate) struct Halt {
    pub(crate) error: NetError,
    /// That a party cannot run: passed on to the parties not met yet.
    pub(crate) tell: Option<Note>,
}

/// Ends a connect that `halt` stopped: the peers already met learn it
/// through their link (an abort naming the party that cannot run, with the
/// reason), the others in a refusal round; returns the error to report.
/// The links met run with the connect's profile and idle timeout.
pub(crate) fn give_up(
    config: &NetworkConfig,
    me: PartyId,
    halt: Halt,
    links: Vec<Option<LinkParts>>,
    listener: Option<&TcpListener>,
    (alarm, board): Shared,
    (profile, idle_timeout): (&NetProfile, Duration),
) -> NetError {
    let Halt { error, tell } = halt;
    let Some(note) = tell else {
        return error;
    };
    let knows = |p: PartyId| p == me || p == note.party || p == note.reporter;
    let unmet: Vec<PartyId> = (0..links.len())
        .filter(|&p| links[p].is_none() && !knows(p))
        .collect();
    let lower: Vec<PartyId> = unmet.iter().copied().filter(|&p| p < me).collect();
    let higher = unmet.len() - lower.len();
    let mut met = Network::from_links(me, links, profile, idle_timeout, (alarm, Some(board)));
    if note.party == me && note.reporter == me {
        met.stop(&note.reason);
    } else if error.culprit() == Some(note.party) {
        met.alarm.raise(error.clone());
    } else {
        met.alarm.raise(NetError::Aborted {
            culprit: note.party,
            reporter: me,
            reason: note.reason.clone(),
        });
    }
    drop(met);
    tracing::info!(
        party = me,
        culprit = note.party,
        "passing on that a party cannot run"
    );
    round(
        config,
        &note,
        &lower,
        listener.map(|l| (l, higher)),
        Instant::now() + REFUSAL_GRACE,
    );
    error
}

/// A failure that a link made during connect reports and that names a
/// culprit with its account (an abort, a stop, a refusal passed on): the
/// connect gives up at once. A plain disconnect is left to the run, which
/// reports it at the first receive (a peer that stops at connect because of
/// a mismatch closes its links that way and tells the others itself).
pub(crate) fn told_during_connect(alarm: &Alarm) -> Option<NetError> {
    alarm.get().filter(|e| {
        matches!(
            e,
            NetError::Aborted { .. } | NetError::Stopped { .. } | NetError::Refused { .. }
        )
    })
}

/// What a party that gives up at connect because of `e` passes on to the
/// parties it has not met: that the culprit cannot run, and why.
pub(crate) fn passed_on(e: &NetError, me: PartyId) -> Option<Note> {
    // What others say of this party is not for it to repeat.
    let party = e.culprit().filter(|&c| c != me)?;
    let reason = match e {
        NetError::Refused { reason, .. } | NetError::Stopped { reason, .. } => reason.clone(),
        NetError::Aborted { reason, .. } if !reason.is_empty() => reason.clone(),
        other => other.to_string(),
    };
    Some(Note {
        party,
        reporter: me,
        reason,
    })
}
