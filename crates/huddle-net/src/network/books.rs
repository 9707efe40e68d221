//! What an endpoint counts, for a [`Network`](crate::Network) and each lane
//! of a split one alike: the phase its traffic and time go under, the
//! deepest round stamp received per phase, and the traffic itself.

use super::error::NetError;
use super::stamp::{push_stamp, split_stamp, Stamp};
use crate::accounting::{Accounting, Phase};
use crate::PartyId;
use std::time::Instant;

/// What an endpoint (a [`Network`](crate::Network), or one lane of a split one) keeps count
/// of: the phase traffic and time are counted under, the deepest round
/// stamp received per phase, and its traffic.
#[derive(Clone)]
pub(crate) struct Books {
    pub(crate) phase: Phase,
    /// Whether time is being counted for the current phase.
    clock_running: bool,
    /// Per phase, the deepest round stamp received so far (see [`STAMP_BYTES`](super::STAMP_BYTES)).
    pub(crate) depth: [u32; Phase::ALL.len()],
    pub(crate) accounting: Accounting,
}

impl Books {
    pub(crate) fn new() -> Books {
        Books {
            phase: Phase::Setup,
            clock_running: false,
            depth: [0; Phase::ALL.len()],
            accounting: Accounting::default(),
        }
    }

    /// The books of a lane split off from an endpoint with these: its phase
    /// and depth, no traffic yet.
    pub(crate) fn for_lane(&self) -> Books {
        Books {
            clock_running: false,
            accounting: Accounting::default(),
            ..self.clone()
        }
    }

    pub(crate) fn set_phase(&mut self, phase: Phase) {
        self.stop_clock();
        self.phase = phase;
        self.clock_running = true;
        self.accounting.enter(phase, Instant::now());
    }

    pub(crate) fn stop_clock(&mut self) {
        if std::mem::take(&mut self.clock_running) {
            self.accounting.leave(self.phase, Instant::now());
        }
    }

    /// Appends the trailer of the next message of the current phase on
    /// `lane`: a message depends on everything received before it, so it is
    /// one round deeper (saturating: received stamps are bounded, this only
    /// keeps a pathological run from wrapping).
    pub(crate) fn stamp(&self, data: &mut Vec<u8>, lane: u16) -> Stamp {
        let phase = self.phase;
        let stamp = self.depth[phase as usize].saturating_add(1);
        let s = Stamp { phase, stamp, lane };
        push_stamp(data, s);
        s
    }

    /// Counts a sent message of `bytes` payload bytes stamped `s`.
    pub(crate) fn sent(
        &mut self,
        from: PartyId,
        to: PartyId,
        bytes: u64,
        new_round: bool,
        s: Stamp,
    ) {
        self.accounting.record(s.phase, from, to, bytes, new_round);
        self.accounting.record_depth(s.phase, s.stamp);
    }

    /// Takes a message from `from` off its trailer, counting its depth.
    pub(crate) fn received(
        &mut self,
        from: PartyId,
        data: &mut Vec<u8>,
    ) -> Result<Stamp, NetError> {
        let s = split_stamp(data).map_err(|cause| NetError::Link { peer: from, cause })?;
        let d = &mut self.depth[s.phase as usize];
        *d = (*d).max(s.stamp);
        Ok(s)
    }

    /// Adds a lane's books (see [`Accounting::absorb_concurrent`]).
    pub(crate) fn absorb_lane(&mut self, lane: &Books) {
        self.accounting.absorb_concurrent(&lane.accounting);
        for (d, l) in self.depth.iter_mut().zip(lane.depth) {
            *d = (*d).max(l);
        }
    }
}
