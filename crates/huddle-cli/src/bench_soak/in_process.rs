//! Runs a configuration the way `huddle local --check` runs it, in this
//! process: the same arguments parsed by the same parser, the same
//! preparation, run and check; only the printing is left out.

use super::memory::Memory;
use super::plan::{Config, Draw, SoakCircuit};
use super::runner::{Ran, Runner};
use crate::failure::Failure;
use crate::run::{execute_local, prepare_local, Caller, LocalArgs};
use std::path::{Path, PathBuf};

/// The soak's files: the circuits, written once, and the output file runs
/// write now and then (each replacing the last, through the atomic
/// writer). Removed when the soak ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub struct InProcess {
    scratch: Scratch,
    circuit_files: Vec<String>,
}

impl InProcess {
    /// Writes the circuits into a new folder under the system's temporary
    /// folder.
    pub fn new(circuits: &[SoakCircuit]) -> Result<InProcess, Failure> {
        let mut entropy = huddle_core::Prg::from_entropy()
            .map_err(|e| Failure::internal(format!("no randomness from the OS: {e}")))?;
        let dir = std::env::temp_dir().join(format!(
            "huddle-soak-{}-{:016x}",
            std::process::id(),
            entropy.next_u64()
        ));
        let fail = |e: std::io::Error| Failure::output(format!("{}: {e}", dir.display()));
        std::fs::create_dir(&dir).map_err(fail)?;
        let scratch = Scratch(dir.clone());
        let mut circuit_files = Vec::new();
        for c in circuits {
            let path = dir.join(format!("{}.txt", c.name));
            let mut bytes = Vec::new();
            huddle_circuit::write_circuit(&c.circuit, &mut bytes)
                .and_then(|()| std::fs::write(&path, bytes))
                .map_err(fail)?;
            circuit_files.push(path.display().to_string());
        }
        Ok(InProcess {
            scratch,
            circuit_files,
        })
    }

    fn outputs_file(&self) -> PathBuf {
        self.scratch.0.join("outputs.txt")
    }

    fn arguments(&self, config: &Config, draw: &Draw) -> Vec<String> {
        let mut args = config.arguments(&self.circuit_files[config.circuit]);
        if draw.write_outputs {
            args.extend([
                "--outputs".into(),
                self.outputs_file().display().to_string(),
            ]);
        }
        args
    }

    /// The output file holds one line per instance, and the atomic writer
    /// left no temporary behind.
    fn check_outputs(&self, batch: usize) -> Result<(), Failure> {
        let path = self.outputs_file();
        let fail = |e: std::io::Error| Failure::output(format!("{}: {e}", path.display()));
        let lines = std::fs::read_to_string(&path)
            .map_err(fail)?
            .lines()
            .count();
        if lines != batch {
            return Err(Failure::output(format!(
                "--outputs {}: {lines} lines for {batch} instances",
                path.display()
            )));
        }
        if let Some(left) = hidden_files(&self.scratch.0).map_err(fail)?.first() {
            return Err(Failure::output(format!(
                "the output file's temporary {left} was left in {}",
                self.scratch.0.display()
            )));
        }
        Ok(())
    }
}

/// The names in `dir` that start with a dot (the atomic writer's
/// temporaries).
fn hidden_files(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut hidden = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            hidden.push(name);
        }
    }
    Ok(hidden)
}

impl Runner for InProcess {
    fn run(&mut self, config: &Config, draw: &Draw) -> Result<Ran, Failure> {
        use clap::{Args, FromArgMatches};
        let argv = std::iter::once("local".to_string()).chain(self.arguments(config, draw));
        let parsed = LocalArgs::augment_args(clap::Command::new("local"))
            .try_get_matches_from(argv)
            .and_then(|m| LocalArgs::from_arg_matches(&m).map(|args| (args, m)));
        // The soak made these arguments: a refusal here is its own bug.
        let (args, matches) =
            parsed.map_err(|e| Failure::internal(format!("the soak's arguments: {e}")))?;
        let run = prepare_local(
            args,
            &matches,
            Caller::Harness {
                inputs: draw.inputs,
            },
        )?;
        let report = execute_local(run)?;
        if draw.write_outputs {
            self.check_outputs(config.batch)?;
        }
        Ok(Ran {
            online_rounds: Some(report.report().online_rounds),
        })
    }

    fn memory(&mut self) -> Memory {
        super::memory::this_process()
    }

    fn command(&self, config: &Config, draw: &Draw) -> String {
        std::iter::once("local".to_string())
            .chain(self.arguments(config, draw))
            .collect::<Vec<_>>()
            .join(" ")
    }
}
