//! `huddle bench soak`: random configurations (protocol, circuit, batch,
//! share memory, transport, threads) run back to back, each checked
//! against the plaintext evaluator, for minutes; then per configuration
//! its runs, failures and memory after each run. It passes with no failed
//! run and no configuration whose resident set grew (report.rs).
//!
//! Runs go through a [`Runner`] (`runner.rs`): [`in_process::InProcess`] runs every
//! party in this process, as `huddle local` does; a runner with a process
//! per party plugs in beside it.

mod in_process;
mod memory;
mod plan;
#[cfg(target_os = "linux")]
mod processes;
mod report;
mod runner;
mod series;

use crate::failure::Failure;
use plan::Config;
use report::{FailedRun, Row, Summary};
use runner::Runner;
use std::time::{Duration, Instant};

/// How often a long soak says how far it got (on stderr).
const STATUS_EVERY: Duration = Duration::from_secs(60);

#[derive(clap::Args)]
pub struct SoakArgs {
    /// Minutes to run (fractions too); the run under way finishes.
    #[arg(long, required_unless_present_any = ["runs", "replay"])]
    minutes: Option<f64>,
    /// Stop after this many runs (with --minutes: whichever comes first).
    #[arg(long)]
    runs: Option<usize>,
    /// Seed of the configurations and of every run's inputs (default:
    /// random; printed, so a soak can be repeated).
    #[arg(long)]
    seed: Option<u64>,
    /// Configurations the runs are drawn from; the first runs take each
    /// once (their memory is not counted: warm-up), the rest pick at
    /// random, so each configuration is run many times.
    #[arg(long, default_value_t = 26)]
    configs: usize,
    /// Only run number N of the seed's soak (with the same --configs): its
    /// configuration and inputs (a failure's replay).
    #[arg(long, value_name = "N", requires = "seed", conflicts_with_all = ["minutes", "runs"])]
    replay: Option<usize>,
    /// A process per party: every run deployed as `huddle party`
    /// processes over TLS on loopback with a job file and data files (its
    /// configuration's transport is then always TLS); memory is the
    /// largest party's peak resident set. Linux only.
    #[arg(long)]
    processes: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: SoakArgs) -> Result<(), Failure> {
    let deadline = match args.minutes {
        None => None,
        Some(m) => Some(
            Duration::try_from_secs_f64(m * 60.0)
                .ok()
                .filter(|d| !d.is_zero())
                .and_then(|d| Instant::now().checked_add(d))
                .ok_or_else(|| Failure::input("--minutes must be a positive number of minutes"))?,
        ),
    };
    if args.configs == 0 {
        return Err(Failure::input("--configs must be at least 1"));
    }
    let seed = match args.seed {
        Some(s) => s,
        None => huddle_core::Prg::from_entropy()
            .map_err(|e| Failure::internal(format!("no randomness from the OS: {e}")))?
            .next_u64(),
    };
    let circuits = plan::circuits().map_err(Failure::internal)?;
    let mut pool = plan::pool(seed, args.configs, &circuits);
    if args.processes {
        for config in &mut pool {
            config.transport = crate::run::TransportArg::Tls;
        }
    }
    let rows: Vec<Row> = pool
        .iter()
        .map(|c| Row::new(c.label(&circuits), c.settings(&circuits)))
        .collect();
    if !args.json {
        eprintln!(
            "soak: seed {seed}, {} configurations, {}{}",
            pool.len(),
            match args.processes {
                true => "a process per party (huddle party over TLS)",
                false => "every party in this process",
            },
            match args.minutes {
                Some(m) => format!(", {m} minutes"),
                None => String::new(),
            }
        );
    }
    let runs = match (args.replay, args.runs) {
        (Some(r), _) => r..r + 1,
        (None, Some(n)) => 0..n,
        (None, None) => 0..usize::MAX,
    };
    let summary = match args.processes {
        #[cfg(target_os = "linux")]
        true => {
            let mut runner = processes::Processes::new(&circuits)?;
            soak(&mut runner, &pool, rows, seed, runs, deadline)
        }
        #[cfg(not(target_os = "linux"))]
        true => return Err(Failure::input("--processes runs on Linux only")),
        false => {
            let mut runner = in_process::InProcess::new(&circuits)?;
            soak(&mut runner, &pool, rows, seed, runs, deadline)
        }
    };
    if args.json {
        let text = serde_json::to_string_pretty(&summary.json())
            .map_err(|e| Failure::internal(e.to_string()))?;
        crate::stdout::output(text)?;
    } else {
        for line in summary.text() {
            crate::stdout::output(line)?;
        }
    }
    let failing = summary.failing();
    if failing.is_empty() {
        Ok(())
    } else {
        Err(Failure::check(format!(
            "the soak failed ({} failed runs) in: {}",
            summary.failed.len(),
            failing.join("; ")
        )))
    }
}

/// Runs `runs` of the soak seeded `seed` over `pool` until `deadline`;
/// a failed run is recorded and the next one starts.
fn soak(
    runner: &mut impl Runner,
    pool: &[Config],
    mut configs: Vec<Row>,
    seed: u64,
    runs: std::ops::Range<usize>,
    deadline: Option<Instant>,
) -> Summary {
    let start = Instant::now();
    let mut failed: Vec<FailedRun> = Vec::new();
    let mut status = start;
    for run in runs {
        if status.elapsed() >= STATUS_EVERY {
            status = Instant::now();
            let done: usize = configs.iter().map(|r| r.stats.runs).sum();
            eprintln!(
                "soak: {done} runs, {} failed, {:.1} minutes",
                failed.len(),
                start.elapsed().as_secs_f64() / 60.0
            );
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let draw = plan::draw(seed, run, pool.len());
        let config = &pool[draw.config];
        let Row { label, stats, .. } = &mut configs[draw.config];
        let began = Instant::now();
        let result = runner.run(config, &draw);
        stats.runs += 1;
        stats.seconds += began.elapsed().as_secs_f64();
        match result {
            Ok(ran) => {
                stats.online_rounds = ran.online_rounds;
                // The first runs, one per configuration, warm up (one-time
                // allocations, caches): their memory is not compared.
                if run >= pool.len() {
                    let m = runner.memory();
                    tracing::info!(run, config = %label, resident = ?m.resident, heap = ?m.heap, "ran");
                    stats.measured(m);
                } else {
                    tracing::info!(run, config = %label, "warmed up");
                }
            }
            Err(f) => {
                stats.failures += 1;
                eprintln!("soak: run {run} ({label}) failed: {}", f.message);
                failed.push(FailedRun {
                    run,
                    label: label.clone(),
                    command: runner.command(config, &draw),
                    exit: f.exit,
                    error: f.message,
                });
            }
        }
    }
    Summary {
        seed,
        configs,
        failed,
        seconds: start.elapsed().as_secs_f64(),
    }
}

#[cfg(test)]
mod tests;
