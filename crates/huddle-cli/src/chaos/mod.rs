//! `huddle bench chaos`: parties killed (SIGKILL) or stalled (SIGSTOP) at
//! a random moment of a stage of their run, and what the others make of
//! it. Each run deploys `huddle party` processes as users do
//! ([`crate::cluster`]), picks a party and a stage, and signals the party
//! at a random moment within that stage; which stage the signal really
//! hit is read afterwards from the party's own phase log (the last step it
//! logged before the signal), not guessed from time. Then it checks that
//! every other party stopped, naming the signalled party, with an exit
//! code of the documented table (or finished with the right outputs, when
//! the party had already sent all they needed); that no output file is
//! half-written; and that the job runs again to the right outputs (a
//! dealt job: refused by every party as spent).
//!
//! Links are shaped to a round trip of `--rtt-ms` so that every stage
//! lasts a few milliseconds and can be hit; every configuration first runs
//! once undisturbed, which checks it and measures how long each of its
//! stages lasts for each party.

mod aim;
mod report;

use crate::cluster::{self, Job, JobSpec, OutputFile, Running, Seen, Site};
use crate::failure::Failure;
use aim::{Signal, Stage};
use huddle_circuit::Circuit;
use huddle_core::Prg;
use huddle_engine::error::{Refusal, RunError};
use huddle_engine::exit::Exit;
use huddle_engine::protocol::Protocol;
use report::Tally;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Kill or stall parties at random moments of each stage of their runs.
#[derive(clap::Args)]
pub struct ChaosArgs {
    /// Chaos runs to count: each stage × signal gets at least a tenth.
    #[arg(long, default_value_t = 100)]
    runs: usize,
    /// The seed of every random choice (configurations, inputs, parties,
    /// stages, moments): the same seed makes the same choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Only these protocols (comma list; default: every protocol).
    #[arg(long, value_delimiter = ',')]
    protocols: Vec<String>,
    /// Batches of every configuration (comma list).
    #[arg(long, value_delimiter = ',', default_value = "16,256")]
    batches: Vec<usize>,
    /// The parties' --idle-timeout, seconds: how long a stalled party goes
    /// unnoticed.
    #[arg(long, default_value_t = 2)]
    idle_timeout: u64,
    /// Round-trip time every link is shaped to, ms (each stage must last
    /// long enough to be hit at a random moment).
    #[arg(long, default_value_t = 10.0)]
    rtt_ms: f64,
    /// Keep the job folders and logs here (default: a temporary folder,
    /// removed at the end).
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
    #[arg(long)]
    json: bool,
}

/// A stage shorter than this is not aimed at (a signal could not land in it).
const SHORTEST_STAGE: Duration = Duration::from_millis(2);

/// The longest a run may take beyond the idle timeout before it counts as
/// a hang.
const HANG: Duration = Duration::from_secs(60);

/// A job and how long each of its parties' steps lasted undisturbed.
struct Config {
    job: Job,
    /// Per party: each step of its phase log and how long it lasted.
    steps: Vec<Vec<(Option<Stage>, Duration)>>,
}

/// A moment to signal at: party `victim` of config `config`, `delay`
/// after it enters `stage` for the `occurrence`-th time (from 0).
struct Aim {
    config: usize,
    victim: usize,
    stage: Stage,
    occurrence: usize,
    delay: Duration,
}

pub fn run(args: ChaosArgs) -> Result<(), Failure> {
    let scratch = match &args.keep {
        Some(dir) => Scratch::Kept(dir.clone()),
        None => Scratch::Temp(
            tempfile::Builder::new()
                .prefix("huddle-chaos-")
                .tempdir()
                .map_err(|e| Failure::other(format!("a scratch folder: {e}")))?,
        ),
    };
    let site = Site::new(scratch.path()).map_err(Failure::other)?;
    let mut seed = [0u8; 16];
    seed[..8].copy_from_slice(&args.seed.to_le_bytes());
    let mut prg = Prg::from_seed(seed);
    let start = Instant::now();
    let mut tally = Tally::default();
    let configs = configure(&args, &site, &mut prg, &mut tally)?;
    let quota = args.runs.div_ceil(Stage::ALL.len() * Signal::ALL.len());
    let mut unreachable: Vec<Stage> = Vec::new();
    for attempt in 0..args.runs * 3 + 50 {
        let Some((stage, signal)) = next_cell(&tally, quota, &unreachable) else {
            break;
        };
        let Some(aim) = aim(&configs, stage, &mut prg) else {
            tally.problems.push(format!(
                "no configuration has a {} stage of at least {SHORTEST_STAGE:?} to aim at",
                stage.name()
            ));
            unreachable.push(stage);
            continue;
        };
        let session = format!("chaos-{}-{attempt}", args.seed);
        chaos_run(
            &configs[aim.config],
            &aim,
            signal,
            &session,
            &args,
            &mut tally,
        )
        .map_err(Failure::other)?;
        if !args.json && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            progress(&tally, quota);
        }
    }
    tally.seconds = start.elapsed().as_secs_f64();
    if args.json {
        crate::stdout::output(tally.json(args.seed, quota).to_string())?;
    } else {
        eprintln!();
        crate::stdout::output(tally.text(args.seed, quota))?;
    }
    match tally.passed(quota) {
        true => Ok(()),
        false => Err(Failure::check(format!(
            "chaos found {} problem(s){}",
            tally.problems.len(),
            match tally.short_cells(quota).is_empty() {
                true => String::new(),
                false => format!(
                    "; cells below {quota} runs: {}",
                    tally.short_cells(quota).join(", ")
                ),
            }
        ))),
    }
}

/// A line on stderr with the counts so far.
fn progress(tally: &Tally, quota: usize) {
    eprint!(
        "\rchaos: {} runs counted (quota {quota} per stage × signal), {} problems ",
        tally.counted(),
        tally.problems.len()
    );
}

/// Where the jobs go.
enum Scratch {
    Kept(PathBuf),
    Temp(tempfile::TempDir),
}

impl Scratch {
    fn path(&self) -> &std::path::Path {
        match self {
            Scratch::Kept(p) => p,
            Scratch::Temp(t) => t.path(),
        }
    }
}

/// The circuits a protocol's configurations run: a comparison (Boolean)
/// and, where it takes rings, vector-matrix products over Z_2^64.
fn circuits(protocol: Protocol) -> Result<Vec<(String, Circuit)>, String> {
    let mut out = vec![(
        "cmp-lt 32".to_string(),
        huddle_circuit::gen::generate("cmp-lt", 32, 2)?,
    )];
    if protocol.descriptor().rings {
        out.push((
            "vecmat 4 (Z_2^64)".to_string(),
            huddle_circuit::apps::generate("vecmat", 64, &[4], 16)?,
        ));
    }
    Ok(out)
}

/// Every configuration of the chosen protocols, each run once undisturbed
/// (a failure there is a problem of its own, and the configuration is
/// left out).
fn configure(
    args: &ChaosArgs,
    site: &Site,
    prg: &mut Prg,
    tally: &mut Tally,
) -> Result<Vec<Config>, Failure> {
    let protocols: Vec<Protocol> = match args.protocols.is_empty() {
        true => Protocol::ALL.to_vec(),
        false => args
            .protocols
            .iter()
            .map(|p| p.parse::<Protocol>())
            .collect::<Result<_, _>>()
            .map_err(|e| Failure::input(format!("--protocols: {e}")))?,
    };
    let mut configs = Vec::new();
    let mut jobs = 0;
    for protocol in protocols {
        for (circuit_name, circuit) in circuits(protocol).map_err(Failure::internal)? {
            for (b, &batch) in args.batches.iter().enumerate() {
                // Every other batch: bgw2-mal from a trusted dealer's
                // one-time files, preprocessing before the inputs where a
                // protocol can (else it is interleaved with the layers and
                // too short to aim at).
                let other = b % 2 == 0;
                let separate = other && protocol.descriptor().separate_preprocessing;
                let spec = JobSpec {
                    protocol,
                    parties: protocol.descriptor().parties.default_count(),
                    circuit_name: circuit_name.clone(),
                    circuit: circuit.clone(),
                    batch: batch.max(1),
                    threads: 1,
                    dealt: other && protocol == Protocol::Bgw2Mal,
                    separate_preprocessing: separate,
                    share_memory_mib: None,
                    rtt_ms: args.rtt_ms,
                    idle_timeout: args.idle_timeout,
                };
                let name = format!("job-{jobs}");
                jobs += 1;
                match probe(site, &name, spec, prg, tally).map_err(Failure::other)? {
                    Ok(config) => configs.push(config),
                    Err(problem) => tally.problems.push(problem),
                }
            }
        }
    }
    Ok(configs)
}

/// Writes a job and runs it once undisturbed: the configuration with its
/// steps' durations, or the problem. A party count the protocol refuses
/// as giving no security is raised to the smallest it accepts first.
fn probe(
    site: &Site,
    name: &str,
    mut spec: JobSpec,
    prg: &mut Prg,
    tally: &mut Tally,
) -> Result<Result<Config, String>, String> {
    let options = huddle_engine::RunOptions::for_protocol(spec.protocol);
    if let Err(RunError::Refused {
        refusal: Refusal::NoSecurity { smallest },
        ..
    }) = huddle_engine::RunRequest::new(spec.protocol, spec.parties, options)
    {
        spec.parties = smallest;
    }
    let job = site.job(name, spec.clone(), prg)?;
    let run = clean_run(&job, &format!("probe-{name}"), tally)?;
    tally.probes += 1;
    if let Some(problem) = cluster::problem(&job, &run) {
        return Ok(Err(format!("{} undisturbed: {problem}", describe(&job))));
    }
    let steps = (0..spec.parties)
        .map(|p| {
            let steps = cluster::steps(&run.logs[p]);
            let end = run.ends[p].map_or(Instant::now(), |(at, _)| at);
            steps
                .iter()
                .enumerate()
                .map(|(i, (at, step))| {
                    let next = steps.get(i + 1).map_or(end, |(t, _)| *t);
                    (Stage::of(step), next.saturating_duration_since(*at))
                })
                .collect()
        })
        .collect();
    Ok(Ok(Config { job, steps }))
}

/// A run to its end with nobody disturbed (again with fresh ports if a
/// port was taken meanwhile).
fn clean_run(job: &Job, session: &str, tally: &mut Tally) -> Result<Running, String> {
    for attempt in 0..3 {
        if job.spec.dealt {
            job.deal()?;
        }
        job.clear_outputs();
        let mut run = job.start(&format!("{session}-{attempt}"))?;
        let all: Vec<usize> = (0..job.spec.parties).collect();
        if !run.wait(&all, Instant::now() + HANG * 2) {
            run.kill_all();
        }
        if !run.port_taken() {
            return Ok(run);
        }
        tally.port_retries += 1;
    }
    Err("a port was taken by another program three times in a row".into())
}

/// The job in a report line.
fn describe(job: &Job) -> String {
    let s = &job.spec;
    format!(
        "{} ({} parties, {}, batch {}{}{})",
        s.protocol.name(),
        s.parties,
        s.circuit_name,
        s.batch,
        if s.dealt { ", dealt" } else { "" },
        if s.separate_preprocessing {
            ", preprocessing first"
        } else {
            ""
        }
    )
}

/// The cell with the fewest runs below `quota` (None: all reached it).
fn next_cell(tally: &Tally, quota: usize, unreachable: &[Stage]) -> Option<(Stage, Signal)> {
    Stage::ALL
        .iter()
        .filter(|s| !unreachable.contains(s))
        .flat_map(|&stage| Signal::ALL.iter().map(move |&signal| (stage, signal)))
        .map(|cell| (tally.cells.get(&cell).map_or(0, |c| c.runs), cell))
        .filter(|&(runs, _)| runs < quota)
        .min_by_key(|&(runs, _)| runs)
        .map(|(_, cell)| cell)
}

/// A random moment within `stage`: a configuration, a party and an
/// occurrence of the stage at least [`SHORTEST_STAGE`] long, and a delay
/// within it.
fn aim(configs: &[Config], stage: Stage, prg: &mut Prg) -> Option<Aim> {
    let mut candidates = Vec::new();
    for (c, config) in configs.iter().enumerate() {
        for (victim, steps) in config.steps.iter().enumerate() {
            let mut occurrence = 0;
            for &(s, length) in steps {
                if s == Some(stage) {
                    if length >= SHORTEST_STAGE {
                        candidates.push((c, victim, occurrence, length));
                    }
                    occurrence += 1;
                }
            }
        }
    }
    if candidates.is_empty() {
        return None;
    }
    let (config, victim, occurrence, length) =
        candidates[(prg.next_u64() % candidates.len() as u64) as usize];
    // Within the first 90 % of the stage as it lasted undisturbed.
    let fraction = (prg.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    Some(Aim {
        config,
        victim,
        stage,
        occurrence,
        delay: length.mul_f64(0.9 * fraction),
    })
}

/// One chaos run and its rerun, counted into `tally`.
fn chaos_run(
    config: &Config,
    aim: &Aim,
    signal: Signal,
    session: &str,
    args: &ChaosArgs,
    tally: &mut Tally,
) -> Result<(), String> {
    let job = &config.job;
    let what = format!(
        "{}, {} of party {} at {} #{} + {:?} (seed {})",
        describe(job),
        signal.name(),
        aim.victim,
        aim.stage.name(),
        aim.occurrence,
        aim.delay,
        args.seed
    );
    for attempt in 0..3 {
        if job.spec.dealt {
            job.deal()?;
        }
        job.clear_outputs();
        let mut run = job.start(&format!("{session}-{attempt}"))?;
        let fired = disturb(&mut run, aim, signal);
        let idle = Duration::from_secs(job.spec.idle_timeout);
        let others: Vec<usize> = (0..job.spec.parties).filter(|&p| p != aim.victim).collect();
        let Some((fired_at, seen)) = fired else {
            // The party ended before the moment came: an undisturbed run.
            let all: Vec<usize> = (0..job.spec.parties).collect();
            if !run.wait(&all, Instant::now() + HANG * 2) {
                tally.hangs += 1;
                tally
                    .problems
                    .push(format!("{what}: a hang with nobody disturbed"));
                run.kill_all();
                return Ok(());
            }
            if run.port_taken() {
                tally.port_retries += 1;
                continue;
            }
            tally.missed += 1;
            if let Some(problem) = cluster::problem(job, &run) {
                tally
                    .problems
                    .push(format!("{what} (the moment never came): {problem}"));
            }
            return Ok(());
        };
        if !run.wait(&others, fired_at + idle + HANG) {
            tally.hangs += 1;
            tally.problems.push(format!(
                "{what}: the others had not stopped after {:?}",
                idle + HANG
            ));
            run.kill_all();
            return Ok(());
        }
        let seen = match signal {
            Signal::Stop => {
                // What it logged before it was stalled.
                let seen = run.logs[aim.victim].len();
                run.procs[aim.victim].signal(libc::SIGCONT);
                seen
            }
            Signal::Kill => seen,
        };
        if !run.wait(&[aim.victim], Instant::now() + idle + HANG) {
            tally.hangs += 1;
            tally.problems.push(format!(
                "{what}: the signalled party did not end once continued"
            ));
            run.kill_all();
            return Ok(());
        }
        if run.port_taken() {
            tally.port_retries += 1;
            continue;
        }
        let seen = match signal {
            // Every line it wrote before it was killed.
            Signal::Kill => run.logs[aim.victim].len(),
            Signal::Stop => seen,
        };
        let hit = cluster::steps(&run.logs[aim.victim][..seen])
            .last()
            .map(|(_, step)| step.to_string());
        judge(
            job,
            &run,
            aim.victim,
            signal,
            fired_at,
            hit.as_deref(),
            &what,
            tally,
        );
        rerun(job, session, &what, tally)?;
        return Ok(());
    }
    Err("a port was taken by another program three times in a row".into())
}

/// Watches the run until the aimed moment and signals the party then: when
/// and how many of its lines had come (None: it ended first).
fn disturb(run: &mut Running, aim: &Aim, signal: Signal) -> Option<(Instant, usize)> {
    let give_up = Instant::now() + HANG * 2;
    let mut entered = 0;
    let mut at: Option<Instant> = None;
    loop {
        if let Some(moment) = at {
            if Instant::now() >= moment {
                let seen = run.logs[aim.victim].len();
                return run.procs[aim.victim]
                    .signal(signal.number())
                    .then(|| (Instant::now(), seen));
            }
        }
        if run.ends[aim.victim].is_some() || Instant::now() >= give_up {
            return None;
        }
        match run.next(at.unwrap_or(give_up)) {
            Seen::Line(p) if p == aim.victim && at.is_none() => {
                let step = run.logs[p].last().and_then(|(_, t)| cluster::step(t));
                if step.and_then(Stage::of) == Some(aim.stage) {
                    if entered == aim.occurrence {
                        at = Some(Instant::now() + aim.delay);
                    }
                    entered += 1;
                }
            }
            _ => {}
        }
    }
}

/// Counts what became of a disturbed run: where the signal hit, how each
/// other party stopped, the output files.
#[allow(clippy::too_many_arguments)]
fn judge(
    job: &Job,
    run: &Running,
    victim: usize,
    signal: Signal,
    fired_at: Instant,
    hit: Option<&str>,
    what: &str,
    tally: &mut Tally,
) {
    let stage = hit.and_then(Stage::of);
    let mut cell = report::Cell::default();
    let mut stop = Duration::ZERO;
    for p in (0..job.spec.parties).filter(|&p| p != victim) {
        let Some((ended, end)) = run.ends[p] else {
            continue;
        };
        stop = stop.max(ended.saturating_duration_since(fired_at));
        let stderr = run.stderr(p);
        let learner = job.learners.contains(&p);
        let output = job.output(p);
        if stderr.contains("panicked") {
            tally.unnamed += 1;
            tally.problems.push(format!(
                "{what}: party {p} panicked: {}",
                cluster::last_error(&stderr)
            ));
        } else if end.code == Some(0) {
            if learner && output != OutputFile::Right {
                tally.wrong_outputs += 1;
                tally.problems.push(format!(
                    "{what}: party {p} finished with outputs {output:?}"
                ));
            } else {
                cell.completed += 1;
            }
            continue;
        } else {
            let error = cluster::last_error(&stderr);
            let stopping = [Exit::Abort.code(), Exit::Network.code()].map(i32::from);
            if end.code.is_some_and(|c| stopping.contains(&c)) && names_party(&error, victim) {
                cell.stopped_named += 1;
                *tally.causes.entry(anonymous(&error)).or_default() += 1;
            } else {
                tally.unnamed += 1;
                tally.problems.push(format!(
                    "{what}: party {p} ended with {end:?} without naming party {victim}: {error}"
                ));
            }
        }
        if output == OutputFile::Wrong {
            tally.partial_files += 1;
            tally.problems.push(format!(
                "{what}: party {p} left a wrong or partial output file"
            ));
        }
    }
    let victim_output = job.output(victim);
    let victim_end = run.ends[victim].map(|(_, e)| e);
    match victim_output {
        OutputFile::Wrong => {
            tally.partial_files += 1;
            tally.problems.push(format!(
                "{what}: the signalled party left a wrong or partial output file"
            ));
        }
        OutputFile::Absent
            if victim_end.and_then(|e| e.code) == Some(0) && job.learners.contains(&victim) =>
        {
            tally.wrong_outputs += 1;
            tally.problems.push(format!(
                "{what}: the signalled party finished without outputs"
            ));
        }
        _ => {}
    }
    if let Some(code) = victim_end.and_then(|e| e.code) {
        let documented = Exit::ALL.iter().any(|e| i32::from(e.code()) == code);
        if !documented || run.stderr(victim).contains("panicked") {
            tally.unnamed += 1;
            tally.problems.push(format!(
                "{what}: the signalled party, continued, ended with {code}: {}",
                cluster::last_error(&run.stderr(victim))
            ));
        }
    }
    let leftovers = job.take_leftovers();
    match signal {
        Signal::Kill => tally.leftovers += leftovers,
        Signal::Stop if leftovers > 0 => {
            tally.partial_files += leftovers;
            tally
                .problems
                .push(format!("{what}: {leftovers} temporary output file(s) left"));
        }
        Signal::Stop => {}
    }
    match stage {
        Some(stage) => {
            let c = tally.cells.entry((stage, signal)).or_default();
            c.runs += 1;
            c.stopped_named += cell.stopped_named;
            c.completed += cell.completed;
            c.stop_times.push(stop);
        }
        None => {
            let when = match hit {
                None => "connecting",
                Some(_) => "after the run",
            };
            *tally.outside.entry((when, signal)).or_default() += 1;
        }
    }
}

/// Runs the job again, undisturbed: it must give the right outputs, or
/// (a dealt job, whose one-time material the last run spent) be refused
/// by every party as spent: with `--json`, each party's failure on stdout
/// is the refusal [`Refusal::Spent`] of its own share of this deal.
fn rerun(job: &Job, session: &str, what: &str, tally: &mut Tally) -> Result<(), String> {
    if !job.spec.dealt {
        let run = clean_run(job, &format!("{session}-again"), tally)?;
        match cluster::problem(job, &run) {
            None => tally.reruns_ok += 1,
            Some(problem) => {
                tally.reruns_failed += 1;
                tally.problems.push(format!("{what}, run again: {problem}"));
            }
        }
        return Ok(());
    }
    job.clear_outputs();
    let mut run = job.start_with(&format!("{session}-spent"), &["--json"])?;
    let all: Vec<usize> = (0..job.spec.parties).collect();
    if !run.wait(&all, Instant::now() + HANG * 2) {
        tally.hangs += 1;
        tally
            .problems
            .push(format!("{what}, run again with the spent deal: a hang"));
        run.kill_all();
        return Ok(());
    }
    let mut refused = true;
    for &p in &all {
        let spent = spent_refusal(job, p)?;
        refused &= run.code(p) == Some(i32::from(Exit::Input.code()))
            && failure_of(run.stdout(p)).is_some_and(|e| e["refusal"] == spent);
    }
    match refused
        && job
            .learners
            .iter()
            .all(|&p| job.output(p) == OutputFile::Absent)
    {
        true => tally.spent_refused += 1,
        false => {
            tally.reruns_failed += 1;
            tally.problems.push(format!(
                "{what}, run again with the spent deal: not refused as spent by every party ({})",
                cluster::last_error(&run.stderr(0))
            ));
        }
    }
    Ok(())
}

/// The refusal, as `--json` prints it, of party `p`'s share of `job`'s
/// deal once it is spent.
fn spent_refusal(job: &Job, p: usize) -> Result<serde_json::Value, String> {
    let path = job.dealt_file(p);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let deal = huddle_engine::garble::linear::deal_id(&bytes).map_err(|e| e.to_string())?;
    serde_json::to_value(Refusal::Spent { deal, party: p }).map_err(|e| e.to_string())
}

/// The failure a `huddle` process printed with `--json` (the object under
/// `error`), if it printed one.
fn failure_of(stdout: &str) -> Option<serde_json::Value> {
    let mut printed: serde_json::Value = serde_json::from_str(stdout).ok()?;
    Some(printed.get_mut("error")?.take())
}

/// Whether `text` names party `p` ("party 1", not "party 12").
fn names_party(text: &str, p: usize) -> bool {
    let needle = format!("party {p}");
    text.match_indices(&needle).any(|(i, _)| {
        !text[i + needle.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

/// A cause with its numbers (parties, durations) blanked, for counting.
fn anonymous(error: &str) -> String {
    let mut out = String::with_capacity(error.len());
    for c in error.chars().take(160) {
        match c.is_ascii_digit() {
            true if out.ends_with('#') => {}
            true => out.push('#'),
            false => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_party_is_named_only_by_its_own_number() {
        assert!(names_party("error: party 1 disconnected", 1));
        assert!(!names_party("error: party 12 disconnected", 1));
        assert!(names_party(
            "party 12 failed (reported by party 1, which stopped)",
            1
        ));
        assert_eq!(
            anonymous("party 12 sent nothing for 2s"),
            "party # sent nothing for #s"
        );
    }
}
