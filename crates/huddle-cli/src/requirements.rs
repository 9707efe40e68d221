//! What a run must promise and what it minimizes, as `huddle plan` and
//! `--protocol auto` (`huddle local`, `huddle party`, job files) take them:
//! one set of flags and spellings for both.

use clap::{Args, ValueEnum};
use huddle_engine::plan::{Guarantee, Objective, Requirements};

#[derive(Clone, Copy, ValueEnum)]
pub enum SecurityArg {
    /// Private against parties that follow the protocol.
    SemiHonest,
    /// Cheaters are caught: an honest party outputs the right value or aborts.
    Malicious,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ObjectiveArg {
    /// Seconds from start to outputs, preprocessing included.
    Total,
    /// Seconds of the online phase.
    Online,
    /// Bytes over every link.
    Bytes,
}

/// The requirements' flags.
#[derive(Args, Clone)]
pub struct RequirementArgs {
    /// The least guarantee: malicious admits only protocols that catch
    /// cheaters (selective abort).
    #[arg(long, value_enum, default_value_t = SecurityArg::SemiHonest)]
    pub security: SecurityArg,
    /// The least number of corrupted parties a protocol must tolerate.
    #[arg(long, default_value_t = 1, value_name = "T")]
    pub corruptions: usize,
    /// What to minimize.
    #[arg(long, value_enum, default_value_t = ObjectiveArg::Total)]
    pub objective: ObjectiveArg,
    /// Admit protocols that trust a dealer with correlated randomness
    /// (ca2pc's third party, bgw2-mal's trusted linear preprocessing).
    #[arg(long)]
    pub allow_dealer: bool,
}

impl RequirementArgs {
    /// The flags' ids (clap's), for telling given ones from defaults.
    pub const IDS: [(&'static str, &'static str); 4] = [
        ("security", "--security"),
        ("corruptions", "--corruptions"),
        ("objective", "--objective"),
        ("allow_dealer", "--allow-dealer"),
    ];

    /// The requirements for `parties` parties (None: each protocol's own
    /// count), trying up to `max_threads` threads and these fan-ins.
    pub fn requirements(
        &self,
        parties: Option<usize>,
        max_threads: usize,
        fan_ins: Option<Vec<usize>>,
    ) -> Requirements {
        Requirements {
            guarantee: match self.security {
                SecurityArg::SemiHonest => Guarantee::SemiHonest,
                SecurityArg::Malicious => Guarantee::Malicious,
            },
            parties,
            corruptions: self.corruptions,
            allow_dealer: self.allow_dealer,
            max_threads: max_threads.max(1),
            fan_ins,
        }
    }

    /// What the plan minimizes.
    pub fn objective(&self) -> Objective {
        match self.objective {
            ObjectiveArg::Total => Objective::Total,
            ObjectiveArg::Online => Objective::Online,
            ObjectiveArg::Bytes => Objective::Bytes,
        }
    }
}
