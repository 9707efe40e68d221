//! `huddle bench garble`: multiparty garbling (BGW3_opt, BGW2_opt,
//! BGW2_opt^mal with its linear preprocessing chosen as in `huddle local`) on
//! AES-128 and SHA-256 for several party counts, each phase timed, with the
//! optimizations as chosen (`--opt`), and the AND-gate throughput of offline
//! and online together. All parties run on this machine in memory.

use huddle_circuit::random::random_inputs;
use huddle_circuit::{gen, Circuit, Stats};
use huddle_core::Prg;
use huddle_engine::garble::Optimizations;
use huddle_engine::Protocol;
use huddle_engine::RunOptions;
use huddle_net::{memory_networks, Accounting, NetProfile, Phase};
use serde_json::{json, Map};
use std::time::Duration;

pub struct Setup {
    pub parties: Vec<usize>,
    pub batch: usize,
    pub repeat: usize,
    /// Each setting is measured in turn.
    pub opts: Vec<Optimizations>,
    pub net: NetProfile,
}

/// Seconds of setup, function-independent and function-dependent
/// preprocessing and online (each the slowest party's clock), bytes, and
/// the slowest party's preprocessing and online together (phases overlap
/// across parties: a party that finishes its share of a phase early starts
/// its clock for the next one while others still work, so the sum of the
/// per-phase maxima counts some time twice).
type Timing = (f64, f64, f64, f64, u64, f64);

fn one_run(
    protocol: Protocol,
    n: usize,
    c: &Circuit,
    batch: usize,
    s: &Setup,
    opt: Optimizations,
) -> Result<Timing, String> {
    let mut prg = Prg::from_seed([42; 16]);
    let inputs = random_inputs(c, &mut prg, batch);
    let nets = memory_networks(n, &s.net, Duration::from_secs(600));
    let options = RunOptions::for_protocol(protocol).with_garble(opt);
    let run = huddle_engine::Run::builder(protocol)
        .parties(n)
        .circuit(c.clone())
        .options(options)
        .build()
        .map_err(|e| e.to_string())?;
    let report = run.local_over(nets, &inputs).map_err(|e| e.to_string())?;
    let mut acc = Accounting::default();
    let (mut setup, mut independent, mut dependent, mut online) = (0f64, 0f64, 0f64, 0f64);
    let mut total = 0f64;
    for a in &report.party_accounting {
        total = total.max(
            a.seconds(Phase::Offline) + a.seconds(Phase::Dependent) + a.seconds(Phase::Online),
        );
        setup = setup.max(a.seconds(Phase::Setup));
        independent = independent.max(a.seconds(Phase::Offline));
        dependent = dependent.max(a.seconds(Phase::Dependent));
        online = online.max(a.seconds(Phase::Online));
        acc.merge(a);
    }
    let bytes = [Phase::Offline, Phase::Dependent, Phase::Online]
        .iter()
        .map(|&p| acc.phase_total(p).bytes)
        .sum();
    Ok((setup, independent, dependent, online, bytes, total))
}

pub fn run(as_json: bool, plot: Option<&std::path::Path>, s: Setup) -> Result<(), String> {
    let circuits: Vec<(&str, Circuit)> = vec![
        ("aes128", gen::generate("aes128", 128, 2)?),
        ("sha256", gen::generate("sha256", 32, 2)?),
    ];
    let mut report = Map::new();
    let mut lines = Vec::new();
    for (name, c) in &circuits {
        let ands = Stats::of(c).and_count;
        for protocol in [Protocol::Bgw3, Protocol::Bgw2, Protocol::Bgw2Mal] {
            for &n in &s.parties {
                // No security at t = 0: such a run is refused, not benchmarked.
                if let Some(Err(e)) = protocol.garbling().map(|v| v.check_parties(n)) {
                    if *name == "aes128" {
                        lines.push(format!("skipped: {e}"));
                    }
                    continue;
                }
                // bgw2-mal is built on the reduced-complexity rows only.
                for &opt in s
                    .opts
                    .iter()
                    .filter(|o| protocol != Protocol::Bgw2Mal || o.reduced_complexity)
                {
                    let mut runs = Vec::new();
                    for _ in 0..s.repeat {
                        runs.push(one_run(protocol, n, c, s.batch, &s, opt)?);
                    }
                    runs.sort_by(|a, b| a.5.total_cmp(&b.5));
                    let (setup, independent, dependent, online, bytes, total) =
                        runs[runs.len() / 2];
                    let rate = (ands * s.batch) as f64 / total;
                    let label = opt.list();
                    // bgw2-mal: where its linear preprocessing came from.
                    let linear = huddle_engine::RunRequest::new(protocol, n, RunOptions::default())
                        .ok()
                        .and_then(|r| r.linear_preprocessing())
                        .map(|c| c.name());
                    let mut key = if s.opts.len() > 1 {
                        format!("{name}/{protocol}/n{n}/{label}")
                    } else {
                        format!("{name}/{protocol}/n{n}")
                    };
                    if let Some(l) = linear {
                        key = format!("{key}/{l}");
                    }
                    report.insert(
                        key.clone(),
                        json!({
                            "setup_seconds": setup,
                            "independent_seconds": independent,
                            "dependent_seconds": dependent,
                            "online_seconds": online,
                            "bytes": bytes,
                            "preprocessing_and_online_seconds": total,
                            "and_gates_per_second": rate,
                        }),
                    );
                    lines.push(format!(
                        "{key:<64} setup {setup:.4}  ind. pre. {independent:.4}  dep. pre. {dependent:.4}  online {online:.4} s  {rate:.3e} AND/s  {:.1} MB",
                        bytes as f64 / 1e6
                    ));
                }
            }
        }
    }
    let header = format!(
        "huddle bench garble (in memory, all parties on this machine; {} instance(s) per run, median of {}; \
         optimizations {}; AES-128 and SHA-256 as generated with 2-input ANDs; \
         AND/s = ANDs x instances / the slowest party's independent + dependent preprocessing + online)",
        s.batch,
        s.repeat,
        s.opts.iter().map(|&o| o.list()).collect::<Vec<_>>().join(" | ")
    );
    if let Some(path) = plot {
        crate::plot::garble(path, &header, &report)?;
    }
    crate::stdout::print_report(as_json, &header, report, &lines)
}
