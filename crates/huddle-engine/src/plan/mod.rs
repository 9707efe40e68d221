//! Which run to choose for a circuit on a network: every choice the user's
//! requirements admit ([`Choices`]: protocol, fan-in of the rewritten
//! circuit, who plays which role, preprocessing, split roles, threads),
//! each with its exact [`Cost`] and predicted time at a batch
//! ([`Choices::candidates`], [`Run::predict`]),
//! ranked by what the user wants least of ([`Objective`], `rank::rank`).
//! `huddle plan` prints it; `--protocol auto` runs its winner ([`Auto`]),
//! so every host computes the same ranking: nothing here reads a file, a
//! clock or the machine, and the hosts of a run agree on its inputs in the
//! hello (`agree`).
//!
//! What the requirements mean ([`Requirements`]): never a protocol that
//! promises less than asked (a semi-honest one when malicious security is
//! asked, the TTP ever), tolerates fewer corrupted parties, or trusts a
//! dealer the user did not allow (ca2pc's dealer, bgw2-mal's trusted
//! linear preprocessing). A protocol left out is listed with the reason
//! ([`Refused`]), so that a plan with no candidate says why.

pub mod agree;
mod auto;
mod choices;
pub mod rank;
mod roles;

pub use auto::{check_roles, roles_text, satisfies, Auto, Picked};
pub use choices::{Choices, Refused};
pub use roles::{played_by, role_classes};

use crate::builder::Run;
use crate::cost::Cost;
use crate::descriptor::{Family, Security};
use crate::garble::linear::LinearChoice;
use crate::options::Preprocess;
use crate::protocol::Protocol;
use crate::time::Prediction;
use huddle_net::PartyId;

/// The guarantee a run must give at least.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guarantee {
    /// Private against corrupted parties that follow the protocol.
    SemiHonest,
    /// Malicious parties are caught: an honest party outputs the right
    /// value or aborts (selective abort, as [`Security::MaliciousSelectiveAbort`]).
    Malicious,
}

impl Guarantee {
    /// Whether a protocol promising `security` gives at least this.
    pub fn admits(self, security: Security) -> bool {
        match security {
            Security::None => false,
            Security::SemiHonest => self == Guarantee::SemiHonest,
            Security::MaliciousSelectiveAbort => true,
        }
    }

    /// The `--security` spelling.
    pub fn name(self) -> &'static str {
        match self {
            Guarantee::SemiHonest => "semi-honest",
            Guarantee::Malicious => "malicious",
        }
    }

    /// The guarantee its `--security` spelling names.
    pub fn parse(s: &str) -> Option<Guarantee> {
        match s {
            "semi-honest" => Some(Guarantee::SemiHonest),
            "malicious" => Some(Guarantee::Malicious),
            _ => None,
        }
    }
}

/// What every choice of a plan must satisfy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirements {
    /// The least guarantee.
    pub guarantee: Guarantee,
    /// The run's parties (None: each protocol with its own count, or the
    /// fewest that tolerate `corruptions`).
    pub parties: Option<usize>,
    /// The least number of corrupted parties a protocol must tolerate.
    pub corruptions: usize,
    /// Whether a party (or a party outside the run) that deals correlated
    /// randomness may be trusted: ca2pc's dealer, bgw2-mal's trusted linear
    /// preprocessing.
    pub allow_dealer: bool,
    /// Threads per party tried: 1, 2, 4, ... up to this.
    pub max_threads: usize,
    /// Fan-ins tried (None: every one a protocol multiplies in one round).
    pub fan_ins: Option<Vec<usize>>,
}

impl Default for Requirements {
    /// Semi-honest, one corruption, no dealer, each protocol's own party
    /// count, up to 2 threads (a typical 2-core host), every fan-in.
    fn default() -> Requirements {
        Requirements {
            guarantee: Guarantee::SemiHonest,
            parties: None,
            corruptions: 1,
            allow_dealer: false,
            max_threads: 2,
            fan_ins: None,
        }
    }
}

/// The most corrupted parties `protocol` tolerates with `parties` parties:
/// garbling's threshold (t < n/2 for bgw3, t < n/3 for bgw2 and bgw2-mal);
/// one for each secret-sharing protocol (honest-majority 3PC and 4PC, and
/// ca2pc's two computing parties with a dealer that colludes with neither);
/// none for the TTP.
pub fn tolerated(protocol: Protocol, parties: usize) -> usize {
    let d = protocol.descriptor();
    match d.family {
        Family::Clear => 0,
        Family::Sharing => 1,
        Family::Garbling(v) => v.threshold(parties),
    }
}

/// How the circuit's products are formed before the protocol runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FanIn {
    /// Products of at most `max` operands in one round (`--max-fan-in`;
    /// wider gates become trees); `rewritten`: the circuit rewritten to
    /// a lower AND-depth with ANDs of up to `max` inputs
    /// ([`huddle_circuit::optimize::optimize`]), else as given.
    Limit {
        /// Operands per product.
        max: usize,
        /// Whether the circuit was rewritten to a lower AND-depth.
        rewritten: bool,
    },
    /// Garbling: any fan-in, the circuit as given.
    Any,
}

impl std::fmt::Display for FanIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FanIn::Limit {
                max,
                rewritten: false,
            } => write!(f, "{max}"),
            FanIn::Limit {
                max,
                rewritten: true,
            } => write!(f, "{max}, rewritten"),
            FanIn::Any => f.write_str("any"),
        }
    }
}

/// One way to run the circuit: everything a user would set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The protocol.
    pub protocol: Protocol,
    /// Its parties.
    pub parties: usize,
    /// Corrupted parties it tolerates.
    pub tolerated: usize,
    /// The products' fan-in.
    pub fan_in: FanIn,
    /// Role r is played by host `roles[r]` (the identity: host i plays
    /// party i, as a run assigns them); one of each class of assignments
    /// the network tells apart ([`role_classes`]). The identity under
    /// `split_roles`, where every host plays every role.
    pub roles: Vec<PartyId>,
    /// When preprocessing runs (`Interleaved` where the protocol has no
    /// separate phase).
    pub preprocess: Preprocess,
    /// Every assignment of roles at once (`--split-roles`).
    pub split_roles: bool,
    /// Threads per party (1 under `split_roles`, which runs n! lanes).
    pub threads: usize,
    /// bgw2-mal: where its linear preprocessing comes from.
    pub linear: Option<LinearChoice>,
}

impl Choice {
    /// Whether host i plays role i.
    pub fn identity_roles(&self) -> bool {
        self.roles.iter().enumerate().all(|(r, &h)| r == h)
    }

    /// The roles as `huddle plan` prints them: `P0=h1 P1=h0 ...`, or `-`
    /// for the identity.
    pub fn roles_label(&self) -> String {
        if self.identity_roles() {
            return "-".into();
        }
        self.roles
            .iter()
            .enumerate()
            .map(|(r, h)| format!("P{r}=h{h}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A choice with what it costs and takes at a batch.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// What is chosen.
    pub choice: Choice,
    /// The checked run it is (the rewritten circuit, the options).
    pub run: Run,
    /// Its predicted time over the network as its roles see it
    /// ([`played_by`]), with its exact traffic (in the roles' numbering).
    pub prediction: Prediction,
}

impl Candidate {
    /// Its exact traffic, in the roles' numbering.
    pub fn cost(&self) -> &Cost {
        &self.prediction.cost
    }

    /// Rounds of the online phase.
    pub fn online_rounds(&self) -> u32 {
        self.prediction.online_rounds
    }

    /// Bytes over every link and phase.
    pub fn bytes(&self) -> u64 {
        self.prediction.total_bytes
    }

    /// Bytes of the online phase (and its verification).
    pub fn online_bytes(&self) -> u64 {
        self.prediction.online_bytes
    }
}

/// What a plan minimizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Objective {
    /// Seconds from start to outputs, preprocessing included.
    Total,
    /// Seconds of the online phase (preprocessing done ahead).
    Online,
    /// Bytes over every link.
    Bytes,
}

impl Objective {
    /// The `--objective` spelling.
    pub fn name(self) -> &'static str {
        match self {
            Objective::Total => "total",
            Objective::Online => "online",
            Objective::Bytes => "bytes",
        }
    }
}
