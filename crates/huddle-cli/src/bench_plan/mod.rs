//! `huddle bench plan`: the time model and the planner's pick against
//! measured runs. For a fixed list of cases (circuit, security class,
//! network, batch), every party on this machine under huddle's own link
//! emulation: `huddle plan`'s candidates predicted as `Run::local` runs
//! them ([`Run::predict_local`](huddle_engine::Run::predict_local), this
//! host's rates), ranked; the first few and each protocol's best run and
//! timed; per row predicted against measured online (and total) seconds,
//! per case whether the ranking's first is within 10 % of the fastest
//! measured. Not a test: it measures.

mod args;
mod cases;
mod report;

pub use args::{ObjectiveArg, PlanBenchArgs};

use crate::run::TransportArg;
use cases::Class;
use huddle_circuit::random::random_inputs;
use huddle_core::Prg;
use huddle_engine::plan::rank::rank;
use huddle_engine::plan::{played_by, Candidate, Choices, Objective};
use huddle_engine::Rates;
use huddle_net::NetProfile;
use report::{CaseReport, Measured, Row};
use std::time::Duration;

/// Predicted bytes beyond which a candidate is not run: the emulation
/// holds a slow link's bytes in memory.
const MAX_BYTES: u64 = 8 << 30;

pub fn run(args: PlanBenchArgs) -> Result<(), String> {
    let rates = match &args.rates {
        Some(path) => Rates::from_file(path).map_err(|e| e.to_string())?,
        None => Rates::default(),
    };
    let classes: Vec<Class> = args
        .security
        .iter()
        .map(|s| Class::parse(s))
        .collect::<Result<_, _>>()?;
    let nets: Vec<NetProfile> = args
        .nets
        .iter()
        .map(|n| NetProfile::named(n).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    for &batch in &args.batches {
        crate::run::check_batch(batch).map_err(|e| format!("--batches: {e}"))?;
    }
    let objective = match args.objective {
        ObjectiveArg::Total => Objective::Total,
        ObjectiveArg::Online => Objective::Online,
    };
    let mut cases = Vec::new();
    for name in &args.cases {
        let circuit = cases::circuit(name)?;
        for &class in &classes {
            for net in &nets {
                let choices = Choices::new(&circuit, net, &class.requirements(1));
                if choices.protocols().is_empty() {
                    eprintln!("{name} {} {}: no protocol applies", class.name(), net.name);
                    continue;
                }
                for &batch in &args.batches {
                    let case = Case {
                        circuit: name,
                        class,
                        net,
                        batch,
                    };
                    let report = measure_case(&case, &choices, &rates, objective, &args)?;
                    // Progress: each case's verdict as it is measured.
                    eprintln!("{}", report.headline());
                    cases.push(report);
                }
            }
        }
    }
    let text = if args.json {
        report::json(&cases, &args, objective)?
    } else {
        report::text(&cases, &args, objective)
    };
    crate::stdout::output(text).map_err(|f| f.message)
}

/// One case of the list.
struct Case<'a> {
    circuit: &'a str,
    class: Class,
    net: &'a NetProfile,
    batch: usize,
}

/// The case's candidates ranked by their local prediction; the first
/// `--top` and each protocol's best run and timed.
fn measure_case(
    case: &Case,
    choices: &Choices,
    rates: &Rates,
    objective: Objective,
    args: &PlanBenchArgs,
) -> Result<CaseReport, String> {
    let (mut candidates, _) = choices
        .candidates(case.batch, case.net, rates)
        .map_err(|e| e.to_string())?;
    // One lane per party: a run of several lanes (threads, split roles)
    // reports phase windows that are not one lane's (a lane's phases are
    // not the run's), so its online time could not be compared.
    candidates.retain(|c| !c.choice.split_roles && c.choice.threads == 1);
    for c in &mut candidates {
        let net = local_net(args.transport, case.net, c);
        c.prediction = c
            .run
            .predict_local(case.batch, &net, rates)
            .map_err(|e| e.to_string())?;
    }
    rank(&mut candidates, objective);
    let mut chosen: Vec<usize> = (0..args.top.max(1).min(candidates.len())).collect();
    for p in choices.protocols() {
        if let Some(i) = candidates.iter().position(|c| c.choice.protocol == p) {
            if !chosen.contains(&i) {
                chosen.push(i);
            }
        }
    }
    chosen.sort_unstable();
    let mut rows = Vec::with_capacity(chosen.len());
    for i in chosen {
        let c = &candidates[i];
        let p = &c.prediction;
        let measured = if p.total_seconds > args.max_seconds {
            Err(format!(
                "not run: predicted {:.0} s, over --max-seconds {}",
                p.total_seconds, args.max_seconds
            ))
        } else if p.total_bytes > MAX_BYTES {
            Err(format!(
                "not run: {} GB predicted, more than this bench holds in memory",
                p.total_bytes >> 30
            ))
        } else {
            Ok(time(c, case, args)?)
        };
        rows.push(Row::new(i + 1, c, measured));
    }
    Ok(CaseReport::new(
        case.circuit,
        case.class,
        &case.net.name,
        case.batch,
        objective,
        rows,
    ))
}

/// The link emulation a candidate runs over: the network as its roles
/// see it, over `--transport`.
fn local_net(transport: TransportArg, net: &NetProfile, c: &Candidate) -> huddle_engine::LocalNet {
    transport.local_net(
        played_by(net, &c.choice.roles),
        Duration::from_secs(match transport {
            TransportArg::Memory => 600,
            _ => 60,
        }),
    )
}

/// Runs `c` on random inputs: medians of its online and total seconds
/// over up to `--repeat` runs (about a second of runs; one untimed run
/// first where it is run more than once).
fn time(c: &Candidate, case: &Case, args: &PlanBenchArgs) -> Result<Measured, String> {
    let net = local_net(args.transport, case.net, c);
    let mut prg = Prg::from_seed([11; 16]);
    let inputs = random_inputs(c.run.circuit(), &mut prg, case.batch);
    let predicted = c.prediction.total_seconds.max(1e-4);
    let runs = ((1.0 / predicted).ceil() as usize).clamp(1, args.repeat.max(1));
    let once = || {
        c.run
            .local(&inputs, &net)
            .map_err(|e| format!("{} on {}: {}", c.choice.protocol, case.circuit, e.error))
    };
    if runs > 1 {
        once()?;
    }
    let mut online = Vec::with_capacity(runs);
    let mut total = Vec::with_capacity(runs);
    let mut wall = Vec::with_capacity(runs);
    for _ in 0..runs {
        let r = once()?;
        let phase = |p: &str| r.seconds.get(p).copied().unwrap_or(0.0);
        online.push(phase("online") + phase("verify"));
        total.push(r.seconds.values().sum::<f64>());
        wall.push(r.wall_seconds);
    }
    let online_spread = spread(&mut online);
    Ok(Measured {
        online_seconds: median(&mut online),
        online_spread,
        total_seconds: median(&mut total),
        wall_seconds: median(&mut wall),
        runs,
    })
}

/// The upper quartile over the lower of `v` (at least four values).
fn spread(v: &mut [f64]) -> Option<f64> {
    if v.len() < 4 {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let (q1, q3) = (v[v.len() / 4], v[3 * v.len() / 4]);
    (q1 > 0.0).then(|| q3 / q1)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}
