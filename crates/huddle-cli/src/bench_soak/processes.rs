//! Runs a configuration with a process per party (`--processes`): the
//! configuration deployed as users deploy it ([`crate::cluster`]: `huddle
//! party` processes over TLS on loopback, one job file, each party's own
//! input and output files), every learner's output file compared with the
//! plaintext evaluator's. The memory of a run is its largest party's peak
//! resident set (the kernel's, from `wait4`).

use super::memory::Memory;
use super::plan::{Config, Draw, SoakCircuit};
use super::runner::{Ran, Runner};
use crate::cluster::{self, Job, JobSpec, Site};
use crate::failure::Failure;
use std::time::{Duration, Instant};

/// Longer than any soak configuration takes (a run past it is a hang).
const HANG: Duration = Duration::from_secs(600);

pub struct Processes {
    /// The jobs, certificates and the parties' state (removed at the end).
    scratch: tempfile::TempDir,
    site: Site,
    circuits: Vec<SoakCircuit>,
    /// The last run's largest peak resident set.
    last: Memory,
    /// The last run's job file, for the failure's command line.
    last_job: Option<String>,
    runs: usize,
}

impl Processes {
    pub fn new(circuits: &[SoakCircuit]) -> Result<Processes, Failure> {
        let scratch = tempfile::Builder::new()
            .prefix("huddle-soak-")
            .tempdir()
            .map_err(|e| Failure::output(format!("a scratch folder: {e}")))?;
        let site = Site::new(scratch.path()).map_err(Failure::output)?;
        Ok(Processes {
            scratch,
            site,
            circuits: circuits.to_vec(),
            last: Memory::default(),
            last_job: None,
            runs: 0,
        })
    }

    fn spec(&self, config: &Config) -> JobSpec {
        let circuit = &self.circuits[config.circuit];
        JobSpec {
            protocol: config.protocol,
            parties: config.protocol.descriptor().parties.default_count(),
            circuit_name: circuit.name.to_string(),
            circuit: circuit.circuit.clone(),
            batch: config.batch,
            threads: config.threads,
            share_memory_mib: config.share_memory_mib,
            dealt: false,
            separate_preprocessing: false,
            rtt_ms: 0.0,
            idle_timeout: 10,
        }
    }
}

impl Runner for Processes {
    fn run(&mut self, config: &Config, draw: &Draw) -> Result<Ran, Failure> {
        self.last = Memory::default();
        let mut prg = huddle_core::Prg::from_seed(draw.inputs);
        // A folder per configuration, its files replaced by each run.
        let name = format!("config-{}", draw.config);
        let job: Job = self
            .site
            .job(&name, self.spec(config), &mut prg)
            .map_err(Failure::output)?;
        self.last_job = Some(job.file().display().to_string());
        self.runs += 1;
        let session = format!("soak-{}", self.runs);
        for attempt in 0..3 {
            let mut run = job
                .start(&format!("{session}-{attempt}"))
                .map_err(Failure::other)?;
            let all: Vec<usize> = (0..job.spec.parties).collect();
            if !run.wait(&all, Instant::now() + HANG) {
                run.kill_all();
                return Err(Failure::network(format!(
                    "the parties had not finished after {HANG:?}"
                )));
            }
            if run.port_taken() {
                continue;
            }
            if let Some(problem) = cluster::problem(&job, &run) {
                return Err(Failure::check(problem));
            }
            let peak = run
                .ends
                .iter()
                .flatten()
                .map(|(_, end)| end.max_rss_kib * 1024)
                .max();
            self.last = Memory {
                resident: peak,
                heap: None,
            };
            // The parties' reports stay in their processes.
            return Ok(Ran {
                online_rounds: None,
            });
        }
        Err(Failure::network(
            "a port was taken by another program three times in a row",
        ))
    }

    fn memory(&mut self) -> Memory {
        self.last
    }

    fn command(&self, _config: &Config, _draw: &Draw) -> String {
        match &self.last_job {
            Some(job) => format!(
                "party --job {job} --config PARTIES --id I (one process per party; the \
                 soak's folder {} is removed at its end)",
                self.scratch.path().display()
            ),
            None => "party (no job was written)".into(),
        }
    }
}
