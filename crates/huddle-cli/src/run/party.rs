//! `huddle party`: one party of a multi-host run, over TLS (or plain TCP
//! with `--insecure`) to the parties of a parties file.

use super::args::{
    check_batch, parse_idle_timeout, random_value, warn_if_insecure, Given, RunArgs,
};
use super::execute::{execute, Parties};
use crate::failure::Failure;
use clap::Args;
use huddle_core::Prg;
use huddle_engine::error::{Refusal, RunError};
use huddle_engine::OwnValue;
use huddle_engine::{Batch, PartyLinks, PartyPlan};
use huddle_net::{NetProfile, NetworkConfig};
use std::path::PathBuf;
use std::time::Duration;

/// Run one party of a computation across machines (TLS unless --insecure).
#[derive(Args)]
pub struct PartyArgs {
    #[command(flatten)]
    run: RunArgs,
    /// The parties file (see `huddle certs`).
    #[arg(long)]
    config: PathBuf,
    /// This party's id.
    #[arg(long)]
    id: usize,
    /// Plain TCP without TLS: no authentication, no encryption.
    #[arg(long)]
    insecure: bool,
    /// Seconds to wait for every peer to connect (the connect deadline; a
    /// party started late, or slow to read its files, needs it). It bounds
    /// nothing after the connect: see --idle-timeout.
    #[arg(long, default_value_t = 60, value_name = "SECONDS")]
    timeout: u64,
    /// Seconds this party waits on a peer that sends nothing at all before
    /// naming it (stalled, its host frozen or cut off) and stopping the
    /// run. Every link carries liveness frames, so a peer that computes for
    /// long is never silent.
    #[arg(long, default_value_t = 10, value_name = "SECONDS", value_parser = parse_idle_timeout)]
    idle_timeout: u64,
    /// bgw2-mal with the trusted dealer: this party's material, written by
    /// `huddle deal` (implies --linear dealer). One-time: its use is recorded
    /// in $XDG_STATE_HOME/huddle/spent-deals (default
    /// ~/.local/state/huddle/spent-deals), and a second use of the deal,
    /// from any copy of the file, is refused.
    #[arg(long, value_name = "FILE")]
    dealt: Option<PathBuf>,
    /// Instances evaluated at once: instance 0 takes --input, the others
    /// random values of this party's; every party must give the same N
    /// (the hello compares it). Default: the lines of --inputs; a party
    /// that owns no input value takes the other parties' batch.
    #[arg(long, default_value_t = 1)]
    batch: usize,
    /// Compare this party's outputs with --expect; exit non-zero on any
    /// difference.
    #[arg(long, requires = "expect")]
    check: bool,
    /// Random values for every instance of the inputs this party owns (no
    /// --input needed): for benchmarks and trials.
    #[arg(long, conflicts_with_all = ["inputs", "inputs_file"])]
    random: bool,
    /// The expected outputs in the form --outputs writes them (same
    /// --format, --header): one line per instance, or one line for
    /// instance 0 (e.g. when the others are random).
    #[arg(long, value_name = "FILE")]
    expect: Option<PathBuf>,
}

/// How far `huddle party` got: what its peers are told if it fails there.
#[derive(Clone, Copy)]
enum Stage {
    Job,
    Inputs,
    Expected,
    Credentials,
    Deal,
    /// Connecting tells the peers itself; after it, the run does.
    Connected,
}

impl Stage {
    /// What the peers are told when this party cannot run: in the clear,
    /// before any handshake, so nothing of its inputs (the details stay in
    /// its own error).
    fn refusal(self) -> Option<&'static str> {
        Some(match self {
            Stage::Job => "its job, options or circuit are not usable; its own error says why",
            Stage::Inputs => "its input data is invalid; its own error says where",
            Stage::Expected => "its --expect file is invalid; its own error says where",
            Stage::Credentials => {
                "its TLS key or certificate cannot be loaded: a missing or unreadable file, or a wrong --id"
            }
            Stage::Deal => "its dealt material is unusable or already spent",
            Stage::Connected => return None,
        })
    }
}

/// `huddle party`: prepares this party, connects, runs, prints its report.
pub fn party(args: PartyArgs, m: &clap::ArgMatches) -> Result<(), Failure> {
    let (id, json) = (args.id, args.run.json);
    let result = configured_party(args, m).map_err(|f| f.of_party(id));
    crate::failure::json_on_failure(json, result)
}

/// [`party`] once `--id` and `--json` are read.
fn configured_party(args: PartyArgs, m: &clap::ArgMatches) -> Result<(), Failure> {
    let config =
        NetworkConfig::from_file(&args.config).map_err(|e| Failure::input(e.to_string()))?;
    let id = args.id;
    let mut stage = Stage::Job;
    let result = run_one_party(args, m, &config, &mut stage);
    // A party that cannot run tells its peers, so they need not wait for it.
    if let (Err(_), Some(reason)) = (&result, stage.refusal()) {
        huddle_net::refuse(&config, id, reason);
    }
    result
}

fn run_one_party(
    mut args: PartyArgs,
    m: &clap::ArgMatches,
    config: &NetworkConfig,
    stage: &mut Stage,
) -> Result<(), Failure> {
    args.run.apply_job(m).map_err(Failure::input)?;
    let n = config.parties();
    let mut batch_given = m.value_source("batch") == Some(clap::parser::ValueSource::CommandLine);
    if let Some(job) = &args.run.loaded {
        let given = Given { m, job: &job.path };
        given
            .take(job.job.batch, &mut args.batch, "batch")
            .map_err(Failure::input)?;
        batch_given |= job.job.batch.is_some();
        if let Some(want) = job.job.parties.filter(|&k| k != n) {
            return Err(Failure::input(format!(
                "--job {} is for {want} parties, but {} has {n}",
                job.path.display(),
                args.config.display()
            )));
        }
        let (inputs, outputs) = (
            args.run.job_files(false, n).map_err(Failure::input)?,
            args.run.job_files(true, n).map_err(Failure::input)?,
        );
        let mine = |files: Vec<(usize, PathBuf)>| {
            files.into_iter().find(|(p, _)| *p == args.id).map(|f| f.1)
        };
        given
            .take(
                mine(inputs).map(Some),
                &mut args.run.inputs_file,
                "inputs_file",
            )
            .map_err(Failure::input)?;
        let (shape, delimiter) = job.input_options(args.id);
        if let Some(shape) = shape {
            given.refuse("shape", "--as").map_err(Failure::input)?;
            args.run.data.shape = shape;
        }
        given
            .take(
                delimiter.map(Some),
                &mut args.run.data.delimiter,
                "delimiter",
            )
            .map_err(Failure::input)?;
        given
            .take(
                mine(outputs).map(Some),
                &mut args.run.outputs_file,
                "outputs_file",
            )
            .map_err(Failure::input)?;
    }
    let auto = args
        .run
        .auto_request(m, Some(n), false)
        .map_err(Failure::input)?;
    if let (Some(_), Some(_)) = (&auto, &args.dealt) {
        return Err(Failure::input(
            "--dealt sets bgw2-mal's linear preprocessing, which --protocol auto chooses: give \
             --protocol bgw2-mal to use the deal",
        ));
    }
    if let Some(roles) = &args.run.roles {
        huddle_engine::plan::check_roles(roles, Some(n))?;
    }
    if args.id >= n {
        return Err(Failure::input(format!(
            "--id {} is not a party of {} (ids 0..{})",
            args.id,
            args.config.display(),
            n - 1
        )));
    }
    let run = &args.run;
    // A named protocol's run now; auto's once connected (the hosts' rates
    // travel in the hello). Until then the circuit as given, its input
    // owners over every party whatever protocol is chosen.
    let named = match &auto {
        None => {
            let linear = args.dealt.as_ref().map(|_| "dealer");
            // --threads auto shares this host's cores among the parties it runs.
            let parties_here = config.parties_sharing_host(args.id);
            let built = run.build(n, parties_here, linear)?;
            warn_if_insecure(&built);
            check_dealer(&built, n, args.dealt.is_some())?;
            Some(built)
        }
        Some(_) => None,
    };
    let given_circuit = match &named {
        Some(_) => None,
        None => {
            let mut c = run.load_circuit().map_err(Failure::input)?;
            super::auto::owners_over(&mut c, n).map_err(Failure::input)?;
            Some(c)
        }
    };
    let circuit: &huddle_circuit::Circuit = match (&named, &given_circuit) {
        (Some(built), _) => built.circuit(),
        (None, Some(c)) => c,
        (None, None) => return Err(Failure::internal("neither a run nor a circuit")),
    };
    let owned: Vec<usize> = match &named {
        Some(built) => built.owned_by(args.id),
        None => (0..circuit.inputs().len())
            .filter(|&i| circuit.owner(i, n) == args.id)
            .collect(),
    };
    if let Some(built) = &named {
        check_learns(built, args.id, args.check, run.outputs_file.is_some())?;
    }
    // Options checked; what follows reads this party's data.
    *stage = Stage::Inputs;
    if run.inputs_file.is_none() && !args.random && run.inputs.len() != owned.len() {
        return Err(Failure::input(format!(
            "party {} owns input values {:?} of {}, so it takes {} --input, not {}",
            args.id,
            owned,
            run.circuit_name(),
            owned.len(),
            run.inputs.len()
        )));
    }
    // A job's [inputs] file is set without clap seeing it: refuse a second source here.
    if let (Some(path), true) = (&run.inputs_file, !run.inputs.is_empty() || args.random) {
        return Err(Failure::input(format!(
            "{} gives this party's inputs, so --input and --random do not apply",
            path.display()
        )));
    }
    let from_file = match &run.inputs_file {
        Some(path) => Some(
            crate::data::read_inputs(path, circuit, &owned, run.style()).map_err(Failure::input)?,
        ),
        None => None,
    };
    let batch = match &from_file {
        Some(m) => {
            let rows = m.first().map_or(args.batch, |m| m.rows());
            if batch_given && rows != args.batch {
                return Err(Failure::input(format!(
                    "the batch is {}, but --inputs has {rows} instances (one per line)",
                    args.batch
                )));
            }
            rows
        }
        None => args.batch,
    };
    check_batch(batch).map_err(Failure::input)?;
    // Whether the batch is the input file's line count (the hello says so).
    let counted = from_file.is_some();
    // A party with no inputs, told no batch, takes the others' (the hello
    // leaves it open).
    let batch_open = from_file.is_none() && owned.is_empty() && !batch_given;
    // Read before connecting: a missing or malformed file costs no traffic.
    *stage = Stage::Expected;
    let expected = match &args.expect {
        Some(path) => {
            Some(crate::data::read_expected(path, circuit, run.style()).map_err(Failure::input)?)
        }
        None => None,
    };
    *stage = Stage::Inputs;
    let mut prg = Prg::from_entropy().map_err(|e| RunError::Entropy(e.to_string()))?;
    let own_inputs: Vec<(usize, OwnValue)> = match from_file {
        Some(matrices) => owned
            .iter()
            .copied()
            .zip(matrices.into_iter().map(OwnValue::Rows))
            .collect(),
        None => owned
            .iter()
            .enumerate()
            .map(|(k, &i)| {
                let given = run.inputs.get(k).map(String::as_str);
                random_value(circuit, i, given, &mut prg).map(|r| (i, OwnValue::Random(r)))
            })
            .collect::<Result<_, _>>()
            .map_err(Failure::input)?,
    };
    *stage = Stage::Credentials;
    let transport = crate::net_cmd::transport_for(config, &args.config, args.id, args.insecure)
        .map_err(Failure::input)?;
    *stage = Stage::Job;
    let profile = NetProfile::named(&run.net).map_err(|e| Failure::input(e.to_string()))?;
    *stage = Stage::Deal;
    let dealt = match &args.dealt {
        Some(path) => Some(
            std::fs::read(path)
                .map_err(|e| Failure::input(format!("--dealt {}: {e}", path.display())))?,
        ),
        None => None,
    };
    // Spent only once everything else is checked (a typo must not burn it),
    // and before connecting (a refused deal costs no traffic).
    if let (Some(path), Some(bytes)) = (&args.dealt, &dealt) {
        crate::spent_deals::spend(path, bytes, args.id)?;
    }
    // The batch as this party has it: open, counted in its input file, or given.
    let batch = match (counted, batch_open) {
        (_, true) => Batch::Open,
        (true, false) => Batch::Counted(batch),
        (false, false) => Batch::Given(batch),
    };
    let (first, last) = crate::hello::job_settings(run.loaded.as_ref(), run.roles.as_deref());
    let mut plan = PartyPlan::new(args.id, batch).with_hello_settings(first, last);
    for (i, value) in own_inputs {
        plan = plan.with_input(i, value);
    }
    if let Some(bytes) = dealt {
        plan = plan.with_dealt(bytes);
    }
    let links = PartyLinks::new(transport)
        .with_timeouts(
            Duration::from_secs(args.timeout),
            Duration::from_secs(args.idle_timeout),
        )
        .with_profile(profile.clone());
    *stage = Stage::Connected;
    let (mut net, built, roles, picked) = match (named, &auto, &given_circuit) {
        (Some(built), _, _) => {
            let net = built.connect(config, &plan, &links)?;
            (net, built, run.roles.clone(), None)
        }
        (None, Some(a), Some(given)) => {
            let settings = huddle_engine::plan::agree::hello_settings(
                &a.auto,
                (args.id, n),
                &profile,
                &a.rates,
            );
            let mut net = huddle_engine::connect_undecided(settings, given, config, &plan, &links)?;
            let (picked, _) = huddle_engine::plan::agree::decide(
                &a.auto,
                given,
                &profile,
                (plan.batch, &a.rates),
                &mut net,
            )?;
            let built = stop_on_error(&mut net, args.run.build_picked(&picked))?;
            let roles = Some(picked.candidate.choice.roles.clone());
            (net, built, roles, Some(picked))
        }
        _ => return Err(Failure::internal("neither a run nor auto's choice")),
    };
    let run = &args.run;
    // Host args.id plays role roles^-1[id]: the network speaks roles to
    // the protocol, and the run's owners and --reveal-to follow them.
    let built = match roles.filter(|r| r.iter().enumerate().any(|(i, &h)| i != h)) {
        Some(roles) => {
            let seated = built.as_roles(&roles).map_err(Failure::from);
            let seated = stop_on_error(&mut net, seated)?;
            let played = net.play_roles(&roles).map_err(Failure::from);
            stop_on_error(&mut net, played)?;
            plan.id = net.party();
            seated
        }
        None => built,
    };
    if picked.is_some() {
        let learns = check_learns(&built, plan.id, args.check, run.outputs_file.is_some());
        stop_on_error(&mut net, learns)?;
    }
    tracing::info!(party = args.id, "connected to every party; the run starts");
    // Signals now stop the run and tell the peers.
    let _interruptible = crate::signals::Interruptible::run(built.cancel_token());
    let parties = Parties::One {
        net: Box::new(net),
        plan,
        expected: expected.filter(|_| args.check),
    };
    let mut outcome = execute(built, run, parties, false)?;
    outcome.auto = picked.as_ref().map(super::auto::json);
    outcome.print()
}

/// A failure after connecting stops this party, telling its peers the kind.
fn stop_on_error<T>(net: &mut huddle_net::Network, r: Result<T, Failure>) -> Result<T, Failure> {
    if let Err(f) = &r {
        net.stop(f.exit.told_to_peers());
    }
    r
}

/// Across hosts bgw2-mal's dealer material comes from `huddle deal`;
/// without it, only PRSS.
fn check_dealer(built: &huddle_engine::Run, n: usize, dealt: bool) -> Result<(), Failure> {
    let dealer = Some(huddle_engine::garble::linear::LinearChoice::TrustedDealer);
    if !dealt && built.request().linear_preprocessing() == dealer {
        let t = huddle_engine::garble::Variant::Bgw2Mal.threshold(n);
        return Err(RunError::refused(
            Refusal::NeedsDealer {
                parties: n,
                threshold: t,
            },
            format!(
                "bgw2-mal across hosts takes its preprocessing from PRSS, which {n} parties (C({n}, {t}) = {} key sets) exceed: run `huddle deal` as the trusted dealer and give each party its file with --dealt",
                huddle_engine::garble::linear::binomial(n, t)
            ),
        )
        .into());
    }
    Ok(())
}

/// `--check` and `--outputs` need outputs: refused for a party that learns
/// none (`--reveal-to`, or a dealer).
fn check_learns(
    built: &huddle_engine::Run,
    party: usize,
    check: bool,
    outputs: bool,
) -> Result<(), Failure> {
    let learns_nothing = !built.learns(party);
    if check && learns_nothing {
        return Err(Failure::input(format!(
            "--check: party {party} learns no outputs in this run (--reveal-to, or a dealer)"
        )));
    }
    if outputs && learns_nothing {
        return Err(Failure::input(format!(
            "party {party} learns no outputs in this run (--reveal-to, or a dealer), so it has none to write to --outputs"
        )));
    }
    Ok(())
}
