//! What runs a soak's configurations: a [`Runner`], in this process
//! (`in_process.rs`) or a process per party (`processes.rs`).

use super::memory::Memory;
use super::plan::{Config, Draw};
use crate::failure::Failure;

/// A run that went through.
pub struct Ran {
    /// Its online rounds, where the runner learns them.
    pub online_rounds: Option<u32>,
}

/// What runs the configurations.
pub trait Runner {
    /// Runs `config` as `draw` says, checked against the plaintext evaluator.
    fn run(&mut self, config: &Config, draw: &Draw) -> Result<Ran, Failure>;
    /// The memory now held by what runs the configurations.
    fn memory(&mut self) -> Memory;
    /// The command line that makes the same run by hand.
    fn command(&self, config: &Config, draw: &Draw) -> String;
}
