//! `huddle local`: every party of a run on this machine, each a thread of
//! this process, over memory, loopback TCP or loopback TLS.

use super::args::{
    check_batch, input_matrix, parse_idle_timeout, warn_if_insecure, Given, RunArgs, TruncationArg,
};
use super::execute::{execute, Parties};
use super::report::Outcome;
use crate::failure::Failure;
use clap::{Args, ValueEnum};
use huddle_circuit::BitMatrix;
use huddle_core::Prg;
use huddle_engine::error::RunError;
use huddle_engine::{LocalNet, Run};
use huddle_net::NetProfile;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum TransportArg {
    /// Parties as threads joined in memory.
    Memory,
    /// Loopback TCP, no TLS.
    Tcp,
    /// Loopback TLS 1.3 with throwaway certificates made for this run.
    Tls,
}

impl TransportArg {
    /// The engine's local network over this transport: `timeout` bounds a
    /// wait for a message in memory, a silent peer over sockets.
    pub fn local_net(self, profile: NetProfile, timeout: Duration) -> LocalNet {
        match self {
            TransportArg::Memory => LocalNet::memory(),
            TransportArg::Tcp => LocalNet::tcp(),
            TransportArg::Tls => LocalNet::tls(),
        }
        .with_profile(profile)
        .with_timeout(timeout)
    }
}

/// Run every party of a computation on this machine.
#[derive(Args)]
pub struct LocalArgs {
    #[command(flatten)]
    pub(super) run: RunArgs,
    /// Number of parties; input value i belongs to party i mod N. Default:
    /// the protocol's own count (4 for quad, quad-het, fantastic4, tetrad),
    /// else 3 (or the least it takes).
    #[arg(long)]
    parties: Option<usize>,
    /// Instances evaluated at once: instance 0 takes --input (random without
    /// any --input), the others random inputs.
    #[arg(long, default_value_t = 1)]
    batch: usize,
    #[arg(long, value_enum, default_value_t = TransportArg::Memory)]
    transport: TransportArg,
    /// Compare every instance with the plaintext evaluator; exit non-zero on any difference.
    #[arg(long)]
    check: bool,
    /// --transport memory: seconds a party waits for any one message before
    /// it gives up (parties are threads of this process, so no peer can
    /// stall alone: this bounds a bug; a party with nothing to do while the
    /// others compute waits that long).
    #[arg(long, default_value_t = 120, value_name = "SECONDS")]
    timeout: u64,
    /// --transport tcp or tls: seconds a party waits on a peer that sends
    /// nothing at all (every link carries liveness frames, so a peer that
    /// computes for long is never silent; only a stalled one is).
    #[arg(long, default_value_t = 10, value_name = "SECONDS", value_parser = parse_idle_timeout)]
    idle_timeout: u64,
}

impl LocalArgs {
    /// How long a wait goes without a sign of the peer: a message in
    /// memory, any byte over sockets.
    fn timeout(&self) -> Duration {
        match self.transport {
            TransportArg::Memory => Duration::from_secs(self.timeout.max(1)),
            TransportArg::Tcp | TransportArg::Tls => Duration::from_secs(self.idle_timeout),
        }
    }
}

/// `huddle local`: prepares the run, runs it, prints its report.
pub fn local(args: LocalArgs, m: &clap::ArgMatches) -> Result<(), Failure> {
    let json = args.run.json;
    let result =
        prepare_local(args, m, Caller::Command).and_then(|run| execute_local(run)?.print());
    crate::failure::json_on_failure(json, result)
}

/// Who runs a `huddle local` run, which decides how it talks and where
/// its random inputs come from.
#[derive(Clone, Copy)]
pub enum Caller {
    /// The command: a warning for an insecure protocol and a progress bar
    /// on the terminal, inputs drawn from the operating system.
    Command,
    /// A harness running many (`huddle bench soak`): nothing on the
    /// terminal, inputs from this seed so that a run can be replayed (the
    /// protocols' own randomness still comes from the operating system).
    Harness { inputs: huddle_core::prg::Seed },
}

/// A `huddle local` run checked, its inputs read or drawn: ready to run.
pub struct LocalRun {
    args: LocalArgs,
    caller: Caller,
    run: Run,
    inputs: Vec<BitMatrix>,
    net: LocalNet,
    output_files: Vec<(usize, PathBuf)>,
    /// `--protocol auto`'s choice, for `--json`.
    auto: Option<serde_json::Value>,
}

/// Reads and checks everything a run needs (`m`: the command's matches,
/// for telling given settings from defaults) and draws its inputs.
pub fn prepare_local(
    mut args: LocalArgs,
    m: &clap::ArgMatches,
    caller: Caller,
) -> Result<LocalRun, Failure> {
    args.run.apply_job(m).map_err(Failure::input)?;
    let mut batch_given = m.value_source("batch") == Some(clap::parser::ValueSource::CommandLine);
    if let Some(job) = &args.run.loaded {
        let given = Given { m, job: &job.path };
        given
            .take(job.job.parties.map(Some), &mut args.parties, "parties")
            .map_err(Failure::input)?;
        given
            .take(job.job.batch, &mut args.batch, "batch")
            .map_err(Failure::input)?;
        batch_given |= job.job.batch.is_some();
    }
    let most = huddle_engine::protocol::MAX_PARTIES;
    let auto = args
        .run
        .auto_request(m, args.parties, true)
        .map_err(Failure::input)?;
    // Under auto, without --parties, each protocol runs with its own count.
    let parties = match (&auto, args.parties) {
        (_, Some(n)) => Some(n),
        (Some(_), None) => None,
        (None, None) => Some(
            args.run
                .protocol()
                .map_err(Failure::input)?
                .descriptor()
                .parties
                .default_count(),
        ),
    };
    if let Some(n) = parties.filter(|n| !(2..=most).contains(n)) {
        return Err(Failure::input(format!(
            "--parties must be 2 to {most}, not {n}"
        )));
    }
    // A named protocol's run now; auto's once the batch is known. Until
    // then the inputs are read with the circuit as given (its values and
    // owners are the chosen run's).
    let named = match (&auto, parties) {
        (None, Some(n)) => Some(args.run.build(n, n, None)?),
        _ => None,
    };
    let given_circuit = match &named {
        Some(_) => None,
        None => {
            let mut c = args.run.load_circuit().map_err(Failure::input)?;
            if let Some(n) = parties {
                super::auto::owners_over(&mut c, n).map_err(Failure::input)?;
            }
            Some(c)
        }
    };
    let circuit: &huddle_circuit::Circuit = match (&named, &given_circuit) {
        (Some(built), _) => built.circuit(),
        (None, Some(c)) => c,
        (None, None) => return Err(Failure::internal("neither a run nor a circuit")),
    };
    if let (Some(built), Caller::Command) = (&named, caller) {
        warn_if_insecure(built);
    }
    let run = &args.run;
    // Read (and refused, line and column named) before anything else.
    let from_file = match &run.inputs_file {
        Some(path) => {
            let values: Vec<usize> = (0..circuit.inputs().len()).collect();
            Some(
                crate::data::read_inputs(path, circuit, &values, run.style())
                    .map_err(Failure::input)?,
            )
        }
        None => None,
    };
    // The job's input files: each party's file holds the values it owns.
    let mut from_job: Vec<Option<BitMatrix>> = vec![None; circuit.inputs().len()];
    let mut job_batch: Option<(usize, PathBuf)> = None;
    let job_inputs = match parties {
        Some(n) => run.job_files(false, n).map_err(Failure::input)?,
        None if run
            .loaded
            .as_ref()
            .is_some_and(|j| !j.files(false).is_empty()) =>
        {
            return Err(Failure::input(
                "--protocol auto with the job's [inputs] files: give the parties (--parties or \
                 `parties`), which decides who owns which input value",
            ))
        }
        None => Vec::new(),
    };
    for (p, path) in job_inputs {
        if from_file.is_some() || !run.inputs.is_empty() {
            return Err(Failure::input(
                "the job's [inputs] and --inputs or --input both give the inputs: give one",
            ));
        }
        let owned: Vec<usize> = (0..circuit.inputs().len())
            .filter(|&i| match &named {
                Some(built) => built.owner(i) == p,
                None => circuit.owner(i, parties.unwrap_or(1)) == p,
            })
            .collect();
        if owned.is_empty() {
            return Err(Failure::input(format!(
                "the job gives party {p} an input file, but it owns no input value"
            )));
        }
        let matrices = crate::data::read_inputs(&path, circuit, &owned, run.input_style(p))?;
        let rows = matrices.first().map_or(0, BitMatrix::rows);
        if let Some((before, first)) = &job_batch {
            if *before != rows {
                return Err(Failure::input(format!(
                    "{} has {before} instances, {} has {rows}: every input file needs one line per instance",
                    first.display(),
                    path.display()
                )));
            }
        }
        job_batch = Some((rows, path));
        for (i, m) in owned.into_iter().zip(matrices) {
            from_job[i] = Some(m);
        }
    }
    let batch = match (&from_file, &job_batch) {
        (Some(m), _) => m.first().map_or(1, |m| m.rows()),
        (None, Some((rows, _))) => *rows,
        (None, None) => args.batch,
    };
    if batch_given && batch != args.batch {
        return Err(Failure::input(format!(
            "the batch is {}, but the input files have {batch} instances (one per line)",
            args.batch
        )));
    }
    if !run.inputs.is_empty() && run.inputs.len() != circuit.inputs().len() {
        return Err(Failure::input(format!(
            "{} takes {} input values, but {} --input given (give every one, or none for random inputs)",
            run.circuit_name(),
            circuit.inputs().len(),
            run.inputs.len()
        )));
    }
    check_batch(batch).map_err(Failure::input)?;
    if args.check
        && run.truncation == TruncationArg::Probabilistic
        && circuit
            .gates()
            .iter()
            .any(|g| matches!(g.op, huddle_circuit::Op::DotTrunc(_)))
    {
        return Err(Failure::input(
            "--check compares with the plaintext evaluator's exact truncation, and with \
             --truncation probabilistic a DOTTR may be one unit more (rarely far off): check \
             with --truncation exact",
        ));
    }
    let profile = NetProfile::named(&run.net).map_err(|e| Failure::input(e.to_string()))?;
    let (built, picked) = match (named, &auto, &given_circuit) {
        (Some(built), _, _) => (built, None),
        (None, Some(a), Some(given)) => {
            let picked = a.pick(given, &profile, batch, &a.rates)?;
            (args.run.build_picked(&picked)?, Some(picked))
        }
        _ => return Err(Failure::internal("neither a run nor auto's choice")),
    };
    let run = &args.run;
    let circuit = built.circuit();
    let parties = built.request().parties();
    // Role r played by host roles[r]: the links as the roles see them.
    let roles = match &picked {
        Some(p) => Some(p.candidate.choice.roles.clone()),
        None => run.roles.clone(),
    };
    let profile = match &roles {
        Some(r) => {
            huddle_engine::plan::check_roles(r, Some(parties))?;
            huddle_engine::plan::played_by(&profile, r)
        }
        None => profile,
    };
    let output_files = run.job_files(true, parties).map_err(Failure::input)?;
    for (p, _) in &output_files {
        if !built.learns(*p) {
            return Err(Failure::input(format!(
                "the job gives party {p} an output file, but it learns no outputs"
            )));
        }
    }
    // The inputs are held once here and once more by their owners.
    let input_bytes: u128 = (0..circuit.inputs().len())
        .map(|i| circuit.input_bits(i).div_ceil(64) as u128 * 8)
        .sum::<u128>()
        * batch as u128;
    huddle_engine::check_memory(&format!("{batch} instances of the inputs"), 2 * input_bytes)?;
    let mut prg = match caller {
        Caller::Command => Prg::from_entropy().map_err(|e| RunError::Entropy(e.to_string()))?,
        Caller::Harness { inputs } => Prg::from_seed(inputs),
    };
    let all: Vec<BitMatrix> = match from_file {
        Some(all) => all,
        None => from_job
            .into_iter()
            .enumerate()
            .map(|(i, read)| match read {
                Some(m) => Ok(m),
                None => {
                    let given = run.inputs.get(i).map(String::as_str);
                    input_matrix(circuit, i, given, batch, &mut prg)
                }
            })
            .collect::<Result<_, _>>()
            .map_err(Failure::input)?,
    };
    let net = args.transport.local_net(profile, args.timeout());
    Ok(LocalRun {
        args,
        caller,
        run: built,
        inputs: all,
        net,
        output_files,
        auto: picked.as_ref().map(super::auto::json),
    })
}

/// Runs every party, writes the output files and checks the outputs if
/// asked; prints nothing.
pub fn execute_local(run: LocalRun) -> Result<Outcome, Failure> {
    let LocalRun {
        args,
        caller,
        run,
        inputs,
        net,
        output_files,
        auto,
    } = run;
    let parties = Parties::All {
        inputs,
        net,
        output_files,
        check: args.check,
    };
    let quiet = matches!(caller, Caller::Harness { .. });
    let mut outcome = execute(run, &args.run, parties, quiet)?;
    outcome.auto = auto;
    Ok(outcome)
}

/// Runs every party of `run` on this machine over `transport` (`timeout`:
/// see [`TransportArg::local_net`]): the engine's report.
pub fn run_all(
    run: &Run,
    inputs: &[BitMatrix],
    transport: TransportArg,
    profile: NetProfile,
    timeout: Duration,
) -> Result<huddle_engine::RunReport, Failure> {
    Ok(run.local(inputs, &transport.local_net(profile, timeout))?)
}
