//! `huddle plan`: which protocol, fan-in, role assignment, preprocessing
//! and threads to run a circuit with on a network, every applicable
//! choice ranked by its predicted time or bytes (the engine's
//! `huddle_engine::plan`), why the winner wins, `--json`, and `--plot` a
//! chart of predicted time against batch size per protocol. `--calibrate`
//! measures this host's compute rates into the file `--rates` reads.

mod json;
mod table;

pub use json::candidate_json;

use crate::failure::Failure;
use clap::Args;
use huddle_engine::plan::rank::{rank, why_first};
use huddle_engine::plan::{Candidate, Choices, Objective, Refused};
use huddle_engine::Rates;
use huddle_net::NetProfile;
use std::path::PathBuf;

#[derive(Args)]
pub struct PlanArgs {
    /// The circuit file (Bristol Fashion, old Bristol or huddle's
    /// extended format, as `huddle local` reads it).
    #[arg(long, required_unless_present = "calibrate")]
    circuit: Option<PathBuf>,
    /// The network: lan, wan, aws3, hetero4 or a profile .toml (as
    /// `huddle local --net`); host i is party i of the profile.
    #[arg(long, required_unless_present = "calibrate")]
    net: Option<String>,
    /// Instances evaluated at once.
    #[arg(long, default_value_t = 1)]
    batch: usize,
    #[command(flatten)]
    wants: crate::requirements::RequirementArgs,
    /// The run's parties (default: each protocol with its own count, or
    /// the fewest that tolerate --corruptions).
    #[arg(long)]
    parties: Option<usize>,
    /// The most threads per party to try (1, 2, 4, ... up to it; default:
    /// the rates' cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Only these fan-ins (comma-separated; default: every fan-in a
    /// protocol multiplies in one round). Rewriting a large circuit for
    /// each fan-in takes seconds.
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    fan_in: Vec<usize>,
    /// Rows of the table (0: every one); --json lists every candidate.
    #[arg(long, default_value_t = 20, value_name = "N")]
    top: usize,
    /// Every role assignment in the table (default: the best one of each
    /// choice).
    #[arg(long)]
    all_roles: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Also draw predicted time against batch size (1 to 10^6, log-log),
    /// each protocol's best choice at each batch, to this .svg file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// This host's compute rates, as --calibrate writes them (default:
    /// huddle's reference host).
    #[arg(long, value_name = "FILE")]
    rates: Option<PathBuf>,
    /// Measure this host's compute rates and write them (to --out, else
    /// print them).
    #[arg(long, conflicts_with_all = ["circuit", "net", "rates", "plot", "json"])]
    calibrate: bool,
    /// Where --calibrate writes the rates.
    #[arg(long, requires = "calibrate", value_name = "FILE")]
    out: Option<PathBuf>,
}

/// Batches of the chart: 1, 3, 10, 30, ... 10^6.
const PLOT_BATCHES: [usize; 13] = [
    1, 3, 10, 30, 100, 300, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000,
];

pub fn run(args: PlanArgs) -> Result<(), Failure> {
    if args.calibrate {
        return calibrate(args.out.as_deref());
    }
    let (Some(circuit_path), Some(net_name)) = (&args.circuit, &args.net) else {
        return Err(Failure::input("give --circuit and --net (or --calibrate)"));
    };
    crate::run::check_batch(args.batch).map_err(Failure::input)?;
    if let Some(plot) = &args.plot {
        if plot.extension().and_then(|e| e.to_str()) != Some("svg") {
            return Err(Failure::input(format!(
                "--plot {}: the chart is drawn as SVG; give a file ending in .svg",
                plot.display()
            )));
        }
    }
    let circuit = crate::circuit_cmd::load(circuit_path, crate::circuit_cmd::FormatArg::Auto)
        .map_err(Failure::input)?;
    let net = NetProfile::named(net_name).map_err(|e| Failure::input(e.to_string()))?;
    let rates = match &args.rates {
        Some(path) => Rates::from_file(path).map_err(|e| Failure::input(e.to_string()))?,
        None => Rates::default(),
    };
    let req = args.wants.requirements(
        args.parties,
        args.threads.unwrap_or(rates.cores),
        (!args.fan_in.is_empty()).then(|| args.fan_in.clone()),
    );
    let objective = args.wants.objective();
    let choices = Choices::new(&circuit, &net, &req);
    let ranked = ranked(&choices, args.batch, &net, &rates, objective)?;
    let why = why_first(&ranked.candidates, objective).unwrap_or_default();
    let about = json::About {
        circuit: circuit_path.display().to_string(),
        net: &net.name,
        batch: args.batch,
        objective,
        req: &req,
        rates: args.rates.as_ref().map(|p| p.display().to_string()),
    };
    if args.json {
        let text = json::plan(&about, &ranked.candidates, &why, &ranked.refused);
        crate::stdout::output(text)?;
    } else {
        let rows = if args.all_roles {
            ranked.candidates.clone()
        } else {
            best_roles_only(&ranked.candidates)
        };
        let shown = if args.top == 0 { rows.len() } else { args.top };
        crate::stdout::output(table::render(&about, &rows, shown))?;
        crate::stdout::output(format!("\nwhy: {why}"))?;
        if !ranked.refused.is_empty() {
            crate::stdout::output("\nleft out:")?;
            for r in &ranked.refused {
                crate::stdout::output(format!("  {}: {}", r.protocol, r.reason))?;
            }
        }
    }
    if let Some(path) = &args.plot {
        plot(path, &about, &choices, &net, &rates, objective)?;
    }
    Ok(())
}

/// Candidates of a batch, ranked, and every protocol left out (by the
/// requirements, the circuit or the batch).
struct Ranked {
    candidates: Vec<Candidate>,
    refused: Vec<Refused>,
}

/// The plan at `batch`; a failure naming every protocol's reason where no
/// candidate is left.
fn ranked(
    choices: &Choices,
    batch: usize,
    net: &NetProfile,
    rates: &Rates,
    objective: Objective,
) -> Result<Ranked, Failure> {
    let (mut candidates, at_batch) = choices.candidates(batch, net, rates)?;
    let mut refused = choices.refused().to_vec();
    refused.extend(at_batch);
    refused.sort_by_key(|r| r.protocol);
    if candidates.is_empty() {
        return Err(Failure::input(Refused::summary(&refused)));
    }
    rank(&mut candidates, objective);
    Ok(Ranked {
        candidates,
        refused,
    })
}

/// The best role assignment of each choice (the ranking keeps the best
/// first): what the table shows unless --all-roles.
fn best_roles_only(ranked: &[Candidate]) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    for c in ranked {
        let same = |o: &Candidate| {
            let (a, b) = (&o.choice, &c.choice);
            a.protocol == b.protocol
                && a.fan_in == b.fan_in
                && a.preprocess == b.preprocess
                && a.split_roles == b.split_roles
                && a.threads == b.threads
                && a.linear == b.linear
        };
        if !out.iter().any(same) {
            out.push(c.clone());
        }
    }
    out
}

/// `--plot`: the objective's seconds (total for `bytes`) of each
/// protocol's best choice at every batch of [`PLOT_BATCHES`].
fn plot(
    path: &std::path::Path,
    about: &json::About,
    choices: &Choices,
    net: &NetProfile,
    rates: &Rates,
    objective: Objective,
) -> Result<(), Failure> {
    let timed = if objective == Objective::Online {
        Objective::Online
    } else {
        Objective::Total
    };
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for batch in PLOT_BATCHES {
        let (mut candidates, _) = choices.candidates(batch, net, rates)?;
        rank(&mut candidates, timed);
        for p in choices.protocols() {
            let Some(best) = candidates.iter().find(|c| c.choice.protocol == p) else {
                continue;
            };
            let seconds = match timed {
                Objective::Online => best.prediction.online_seconds,
                _ => best.prediction.total_seconds,
            };
            let point = (batch as f64, seconds);
            match series.iter_mut().find(|(name, _)| name == p.name()) {
                Some((_, points)) => points.push(point),
                None => series.push((p.name().to_string(), vec![point])),
            }
        }
    }
    let title = format!(
        "huddle plan: {} on {}, {} seconds, each protocol's best choice",
        about.circuit,
        about.net,
        timed.name()
    );
    crate::plot::log_log_lines(
        path,
        &title,
        "predicted seconds against batch size",
        ("batch (instances)", "seconds"),
        &series,
    )
    .map_err(Failure::output)
}

/// `--calibrate`: this host's rates, to `out` or stdout.
fn calibrate(out: Option<&std::path::Path>) -> Result<(), Failure> {
    let rates = Rates::calibrate()?;
    let text = rates.to_toml();
    match out {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| Failure::output(format!("{}: {e}", path.display()))),
        None => crate::stdout::output(text.trim_end()),
    }
}
