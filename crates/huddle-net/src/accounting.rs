//! Exact communication counters: bytes, messages and rounds per directed
//! link and per phase. Only protocol payload is counted (not the transport's
//! framing or handshake), so tests can compare them with the papers' tables.

use crate::PartyId;
use std::collections::BTreeMap;
use std::fmt;
use std::time::Instant;

/// The phases a protocol run goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    /// Everything before preprocessing: key agreement, seeds, the first
    /// messages of a run. A fresh endpoint starts in this phase.
    Setup,
    /// Preprocessing (for garbling: the function-independent part).
    Offline,
    /// Evaluation once the inputs are known, up to the outputs.
    Online,
    /// Checks that a malicious party did not cheat (MAC and consistency
    /// checks) before outputs are released.
    Verify,
    /// Function-dependent preprocessing (garbling: building the garbled
    /// circuit once the function is known).
    Dependent,
}

impl Phase {
    /// Every phase, in the order reports list them.
    pub const ALL: [Phase; 5] = [
        Phase::Setup,
        Phase::Offline,
        Phase::Online,
        Phase::Verify,
        Phase::Dependent,
    ];

    /// The phase's lower-case name, as reports and logs print it.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Setup => "setup",
            Phase::Offline => "offline",
            Phase::Online => "online",
            Phase::Verify => "verify",
            Phase::Dependent => "dependent",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Traffic on one directed link in one phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Protocol payload bytes sent on the link (no framing, no handshake).
    pub bytes: u64,
    /// Protocol messages sent on the link.
    pub messages: u64,
    /// Bursts of sends on the link, each ended by a receive of the sender:
    /// the link's communication rounds.
    pub rounds: u64,
}

impl LinkStats {
    fn add(&mut self, other: &LinkStats) {
        self.bytes += other.bytes;
        self.messages += other.messages;
        self.rounds += other.rounds;
    }

    /// Joins the traffic of a lane that ran at the same time on this link:
    /// bytes and messages add up, rounds are the most of either (the
    /// lanes' rounds overlap). A run's accounting and the cost model's
    /// prediction join lanes by this one rule.
    pub fn absorb_concurrent(&mut self, lane: &LinkStats) {
        self.bytes += lane.bytes;
        self.messages += lane.messages;
        self.rounds = self.rounds.max(lane.rounds);
    }
}

/// Counters keyed by (phase, from, to).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Accounting {
    links: BTreeMap<(Phase, PartyId, PartyId), LinkStats>,
    /// When this party first entered and last left each phase (merged: the
    /// latest entry and the latest exit over the parties).
    windows: BTreeMap<Phase, (Instant, Instant)>,
    /// The deepest round stamp sent in each phase (see `Network`).
    depth: BTreeMap<Phase, u32>,
}

impl Accounting {
    pub(crate) fn record(
        &mut self,
        phase: Phase,
        from: PartyId,
        to: PartyId,
        bytes: u64,
        new_round: bool,
    ) {
        let s = self.links.entry((phase, from, to)).or_default();
        s.bytes += bytes;
        s.messages += 1;
        s.rounds += u64::from(new_round);
    }

    /// Adds the counters of a lane that ran at the same time as this
    /// endpoint's other lanes: bytes and messages add up; rounds per link
    /// and round depth are the most of any lane (the lanes' rounds overlap);
    /// each phase spans from the first entry to the last exit.
    pub(crate) fn absorb_concurrent(&mut self, lane: &Accounting) {
        for (key, s) in &lane.links {
            self.links.entry(*key).or_default().absorb_concurrent(s);
        }
        for (phase, &(start, end)) in &lane.windows {
            let w = self.windows.entry(*phase).or_insert((start, end));
            *w = (w.0.min(start), w.1.max(end));
        }
        for (phase, &d) in &lane.depth {
            self.record_depth(*phase, d);
        }
    }

    pub(crate) fn enter(&mut self, phase: Phase, at: Instant) {
        self.windows.entry(phase).or_insert((at, at));
    }

    pub(crate) fn leave(&mut self, phase: Phase, at: Instant) {
        let w = self.windows.entry(phase).or_insert((at, at));
        w.1 = w.1.max(at);
    }

    pub(crate) fn record_depth(&mut self, phase: Phase, stamp: u32) {
        let d = self.depth.entry(phase).or_default();
        *d = (*d).max(stamp);
    }

    /// Rounds of `phase`: its longest chain of messages, each sent after the
    /// previous one arrived (across all links; merged: over all parties).
    pub fn rounds(&self, phase: Phase) -> u32 {
        self.depth.get(&phase).copied().unwrap_or(0)
    }

    /// Seconds of `phase`: from entering it to leaving it; for merged
    /// counters, from the last party entering to the last party leaving (so
    /// a party that starts early and waits does not count its wait).
    pub fn seconds(&self, phase: Phase) -> f64 {
        self.windows.get(&phase).map_or(0.0, |(start, end)| {
            end.saturating_duration_since(*start).as_secs_f64()
        })
    }

    /// Traffic on `from -> to` in `phase` (zero if none).
    pub fn link(&self, phase: Phase, from: PartyId, to: PartyId) -> LinkStats {
        self.links
            .get(&(phase, from, to))
            .copied()
            .unwrap_or_default()
    }

    /// Every (phase, from, to) with traffic, in order.
    pub fn iter(&self) -> impl Iterator<Item = (Phase, PartyId, PartyId, LinkStats)> + '_ {
        self.links.iter().map(|(&(p, f, t), s)| (p, f, t, *s))
    }

    /// Total over all links of one phase.
    pub fn phase_total(&self, phase: Phase) -> LinkStats {
        let mut total = LinkStats::default();
        for (_, s) in self
            .links
            .range((phase, 0, 0)..=(phase, usize::MAX, usize::MAX))
        {
            total.add(s);
        }
        total
    }

    /// Adds another party's counters (each party counts what it sends, so
    /// merging all parties gives the whole picture).
    pub fn merge(&mut self, other: &Accounting) {
        for (k, s) in &other.links {
            self.links.entry(*k).or_default().add(s);
        }
        for (p, d) in &other.depth {
            self.record_depth(*p, *d);
        }
        for (p, (start, end)) in &other.windows {
            let w = self.windows.entry(*p).or_insert((*start, *end));
            *w = (w.0.max(*start), w.1.max(*end));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_merges() {
        let mut a = Accounting::default();
        a.record(Phase::Online, 0, 1, 10, true);
        a.record(Phase::Online, 0, 1, 5, false);
        a.record(Phase::Offline, 0, 2, 7, true);
        let mut b = Accounting::default();
        b.record(Phase::Online, 1, 0, 3, true);
        a.merge(&b);
        assert_eq!(
            a.link(Phase::Online, 0, 1),
            LinkStats {
                bytes: 15,
                messages: 2,
                rounds: 1
            }
        );
        assert_eq!(
            a.phase_total(Phase::Online),
            LinkStats {
                bytes: 18,
                messages: 3,
                rounds: 2
            }
        );
        assert_eq!(a.phase_total(Phase::Verify), LinkStats::default());
        assert_eq!(a.iter().count(), 3);
    }
}
