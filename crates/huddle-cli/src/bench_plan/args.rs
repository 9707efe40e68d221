//! `huddle bench plan`'s options (apart from the bench, which the report
//! reads them from too).

use super::cases;
use crate::run::TransportArg;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum)]
pub enum ObjectiveArg {
    /// Seconds of every phase, preprocessing included.
    Total,
    /// Seconds of the online phase (evaluation and verification).
    Online,
}

#[derive(Args)]
pub struct PlanBenchArgs {
    /// Circuits: aes (AES-128), cmp (64-bit less-than), mul64 (a 64-bit
    /// ring product), deep (a 64-bit ripple-carry adder, AND-depth 64).
    #[arg(long, value_delimiter = ',', default_values_t = cases::CIRCUITS.map(String::from))]
    pub(super) cases: Vec<String>,
    /// Security classes: semi-honest (3 parties), malicious (4 parties).
    #[arg(long, value_delimiter = ',', default_values_t = ["semi-honest".to_string(), "malicious".to_string()])]
    pub(super) security: Vec<String>,
    /// Emulated networks: presets or profile .toml files.
    #[arg(long, value_delimiter = ',', default_values_t = cases::NETS.map(String::from))]
    pub(super) nets: Vec<String>,
    /// Batches (instances per run).
    #[arg(long, value_delimiter = ',', default_values_t = cases::BATCHES)]
    pub(super) batches: Vec<usize>,
    /// What the pick minimizes (and the fastest is judged by).
    #[arg(long, value_enum, default_value_t = ObjectiveArg::Total)]
    pub(super) objective: ObjectiveArg,
    /// Run the first N of the ranking, besides each protocol's best.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub(super) top: usize,
    /// Most timed runs of a candidate (the median counts); fewer for
    /// candidates predicted to take long (about a second of runs each).
    #[arg(long, default_value_t = 31, value_name = "N")]
    pub(super) repeat: usize,
    /// Candidates predicted to take longer (total seconds) are not run:
    /// the row says so.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
    pub(super) max_seconds: f64,
    /// How the parties are joined.
    #[arg(long, value_enum, default_value_t = TransportArg::Memory)]
    pub(super) transport: TransportArg,
    /// This host's rates, as `huddle plan --calibrate` writes them
    /// (default: huddle's reference host).
    #[arg(long, value_name = "FILE")]
    pub(super) rates: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub(super) json: bool,
}
