//! What a chaos run aims at: a stage of a party's run ([`Stage`], read
//! from its phase log) and the signal that disturbs it ([`Signal`]).

use huddle_net::Phase;

/// The stages a signal can hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    Setup,
    Preprocessing,
    Online,
    Verification,
    Reveal,
}

impl Stage {
    pub const ALL: [Stage; 5] = [
        Stage::Setup,
        Stage::Preprocessing,
        Stage::Online,
        Stage::Verification,
        Stage::Reveal,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Setup => "setup",
            Stage::Preprocessing => "preprocessing",
            Stage::Online => "online",
            Stage::Verification => "verification",
            Stage::Reveal => "reveal",
        }
    }

    /// The stage of a step of the phase log (None: finished, or unknown).
    pub(super) fn of(step: &str) -> Option<Stage> {
        let phase = |p: Phase| p.name() == step;
        Some(match () {
            _ if phase(Phase::Setup) => Stage::Setup,
            _ if phase(Phase::Offline) || phase(Phase::Dependent) => Stage::Preprocessing,
            _ if phase(Phase::Online) => Stage::Online,
            _ if phase(Phase::Verify) => Stage::Verification,
            _ if step == huddle_engine::REVEAL => Stage::Reveal,
            _ => return None,
        })
    }
}

/// How a party is disturbed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Signal {
    /// Killed: its connections close at once.
    Kill,
    /// Stalled: its connections stay open and silent (a frozen host); it
    /// is continued once the others have stopped.
    Stop,
}

impl Signal {
    pub const ALL: [Signal; 2] = [Signal::Kill, Signal::Stop];

    pub fn name(self) -> &'static str {
        match self {
            Signal::Kill => "SIGKILL",
            Signal::Stop => "SIGSTOP",
        }
    }

    pub(super) fn number(self) -> libc::c_int {
        match self {
            Signal::Kill => libc::SIGKILL,
            Signal::Stop => libc::SIGSTOP,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_phase_of_the_log_has_its_stage() {
        for phase in Phase::ALL {
            assert!(Stage::of(phase.name()).is_some(), "{}", phase.name());
        }
        assert_eq!(Stage::of(huddle_engine::REVEAL), Some(Stage::Reveal));
        assert_eq!(Stage::of(huddle_net::FINISHED), None);
    }
}
