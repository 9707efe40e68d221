//! A run's scripts, lane by lane ([`Plays`]): what every protocol's cost
//! function writes, from which both the traffic ([`Plays::cost`]) and the
//! time (`crate::time`) follow.

use super::{replay, Cost, Script};
use crate::error::RunError;
use huddle_net::PartyId;

/// Every lane of a run: its roles' scripts (role r's at index r) and the
/// party playing each role. A run without lanes is one lane, role r
/// played by party r; `--threads` and `--split-roles` run several lanes
/// at once, over the same links.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plays {
    pub(crate) lanes: Vec<Lane>,
}

/// One lane of [`Plays`].
#[derive(Clone, Debug)]
pub(crate) struct Lane {
    /// `roles[r]`: the party playing role r.
    pub(crate) roles: Vec<PartyId>,
    /// Role r's script at index r.
    pub(crate) scripts: Vec<Script>,
}

impl Plays {
    /// One lane, party r playing role r.
    pub(crate) fn single(scripts: Vec<Script>) -> Plays {
        let mut plays = Plays::default();
        plays.add_lane((0..scripts.len()).collect(), scripts);
        plays
    }

    /// Adds a lane whose role r is played by `roles[r]`.
    pub(crate) fn add_lane(&mut self, roles: Vec<PartyId>, scripts: Vec<Script>) {
        self.lanes.push(Lane { roles, scripts });
    }

    /// The traffic: each lane's scripts replayed together, the lanes
    /// absorbed as a split endpoint absorbs them.
    pub(crate) fn cost(&self) -> Result<Cost, RunError> {
        let mut cost = Cost::default();
        for lane in &self.lanes {
            cost.absorb_concurrent(&replay(&lane.scripts)?.played_by(&lane.roles));
        }
        Ok(cost)
    }
}
