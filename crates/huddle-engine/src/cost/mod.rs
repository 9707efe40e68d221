//! What a run will cost before it runs: the exact bytes, messages and
//! rounds per directed link and phase that `huddle_net::Accounting` counts
//! ([`Cost`]), predicted from the circuit, the protocol and the run's
//! options alone ([`Run::cost`](crate::Run::cost),
//! [`RunRequest::cost`](crate::RunRequest::cost)).
//!
//! **How.** Every protocol states, beside its own code, what each party
//! sends and receives, in order, at each step of a run (its cost function,
//! on the protocol table's line): a [`Script`] per party, messages sized in
//! bytes. The papers give most of these sizes (each cost function cites
//! the section); the rest is what huddle adds and sends all the same: key
//! agreement, compare-view digests, verdicts, a dealer's deal. Replaying the
//! scripts together ([`replay`]) stamps every message with its round as the
//! network does (one more than the deepest message of its phase that its
//! sender had received when sending it), so the rounds of a phase come out
//! as the length of its longest chain of dependent messages, however the
//! scripts interleave. The sizes follow from the circuit and the batch (every
//! receive is of an exact size), so the prediction is exact; the tests
//! (`tests/cost_model.rs`) compare it with measured runs, link by link.
//!
//! This module names no protocol: the protocols' cost functions use its
//! types, and the protocol table dispatches to them.

mod plays;
mod replay;
mod work;

pub(crate) use plays::Plays;
pub(crate) use replay::replay;
pub use work::Work;

use huddle_net::{LinkStats, PartyId, Phase};
use std::collections::BTreeMap;

/// A run's predicted traffic: per directed link and phase its bytes,
/// messages and rounds ([`LinkStats`], as `huddle_net::Accounting` counts
/// them: protocol payload only), and per phase its rounds (the longest
/// chain of messages each sent after the previous one arrived).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    links: BTreeMap<(Phase, PartyId, PartyId), LinkStats>,
    rounds: BTreeMap<Phase, u32>,
}

impl Cost {
    /// Traffic on `from -> to` in `phase` (zero if none).
    pub fn link(&self, phase: Phase, from: PartyId, to: PartyId) -> LinkStats {
        self.links
            .get(&(phase, from, to))
            .copied()
            .unwrap_or_default()
    }

    /// Rounds of `phase`: its longest chain of messages, each sent after
    /// the previous one arrived, over all links and parties.
    pub fn rounds(&self, phase: Phase) -> u32 {
        self.rounds.get(&phase).copied().unwrap_or(0)
    }

    /// Rounds of the online phase (what a high-latency link charges for).
    pub fn online_rounds(&self) -> u32 {
        self.rounds(Phase::Online)
    }

    /// Every (phase, from, to) with traffic, in order.
    pub fn iter(&self) -> impl Iterator<Item = (Phase, PartyId, PartyId, LinkStats)> + '_ {
        self.links.iter().map(|(&(p, f, t), s)| (p, f, t, *s))
    }

    /// Bytes over all links of `phase`.
    pub fn phase_bytes(&self, phase: Phase) -> u64 {
        self.iter()
            .filter(|(p, ..)| *p == phase)
            .map(|(.., s)| s.bytes)
            .sum()
    }

    /// Bytes over all links and phases.
    pub fn total_bytes(&self) -> u64 {
        self.iter().map(|(.., s)| s.bytes).sum()
    }

    /// Adds the traffic of lanes that ran at the same time as this one, as
    /// a split endpoint joins its lanes: bytes and messages add up, a
    /// link's rounds and a phase's rounds are the most of any lane (their
    /// rounds overlap).
    pub(crate) fn absorb_concurrent(&mut self, lane: &Cost) {
        for (key, s) in &lane.links {
            self.links.entry(*key).or_default().absorb_concurrent(s);
        }
        for (&phase, &r) in &lane.rounds {
            let d = self.rounds.entry(phase).or_default();
            *d = (*d).max(r);
        }
    }

    /// This lane's traffic with its links renamed: role r played by party
    /// `parties[r]` (a lane of `--split-roles`).
    pub(crate) fn played_by(self, parties: &[PartyId]) -> Cost {
        let at = |r: PartyId| parties.get(r).copied().unwrap_or(r);
        Cost {
            links: self
                .links
                .into_iter()
                .map(|((p, f, t), s)| ((p, at(f), at(t)), s))
                .collect(),
            rounds: self.rounds,
        }
    }
}

/// One step of a [`Script`]: a message sent in `phase` to `to`, or
/// received from `from`, `bytes` long; entering a phase (where a run's
/// clock for the phase starts or goes on); or local work between messages
/// (what the time model prices, `crate::time`; the traffic ignores both).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Event {
    Enter(Phase),
    Work(Work, f64),
    Send {
        phase: Phase,
        to: PartyId,
        bytes: u64,
    },
    Recv {
        from: PartyId,
        bytes: u64,
    },
}

/// What one party (or one role of a lane) sends and receives, in the order
/// it does: a protocol's cost function writes it as its code would send.
/// As the transport does, an empty message is neither sent nor received.
#[derive(Clone, Debug)]
pub(crate) struct Script {
    me: PartyId,
    phase: Phase,
    events: Vec<Event>,
}

impl Script {
    /// An empty script of party `me`, in phase `setup` (where a fresh
    /// endpoint starts).
    pub(crate) fn new(me: PartyId) -> Script {
        Script {
            me,
            phase: Phase::Setup,
            events: Vec::new(),
        }
    }

    /// The party (or role) whose script this is.
    pub(crate) fn party(&self) -> PartyId {
        self.me
    }

    /// Messages from now on go under `phase`, as the network's `set_phase`
    /// (which starts the phase's clock, hence an [`Event::Enter`]).
    pub(crate) fn set_phase(&mut self, phase: Phase) {
        self.phase = phase;
        if self.events.last() != Some(&Event::Enter(phase)) {
            self.events.push(Event::Enter(phase));
        }
    }

    /// `count` units of local `work` (none if zero).
    pub(crate) fn work(&mut self, work: Work, count: f64) {
        if count > 0.0 {
            self.events.push(Event::Work(work, count));
        }
    }

    /// The phase messages go under now.
    pub(crate) fn phase(&self) -> Phase {
        self.phase
    }

    /// A message of `bytes` bytes to `to` (none if empty).
    pub(crate) fn send(&mut self, to: PartyId, bytes: u64) {
        if bytes > 0 {
            self.send_even_empty(to, bytes);
        }
    }

    /// A message of `bytes` bytes from `from` (none if empty).
    pub(crate) fn recv(&mut self, from: PartyId, bytes: u64) {
        if bytes > 0 {
            self.recv_even_empty(from, bytes);
        }
    }

    /// A message of `bytes` bytes to `to`, sent even when empty: by a
    /// protocol that calls `huddle_net::Network` itself rather than
    /// through the engine's `Transport` (which drops empty messages).
    pub(crate) fn send_even_empty(&mut self, to: PartyId, bytes: u64) {
        self.events.push(Event::Send {
            phase: self.phase,
            to,
            bytes,
        });
    }

    /// The receive of a message [`send_even_empty`](Self::send_even_empty) sent.
    pub(crate) fn recv_even_empty(&mut self, from: PartyId, bytes: u64) {
        self.events.push(Event::Recv { from, bytes });
    }

    pub(crate) fn events(&self) -> &[Event] {
        &self.events
    }
}
