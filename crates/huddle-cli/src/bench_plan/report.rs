//! `huddle bench plan`'s rows, cases and summary, as text or JSON.

use super::args::PlanBenchArgs;
use super::cases::{self, Class};
use huddle_engine::plan::rank::{bytes, seconds};
use huddle_engine::plan::{Candidate, Objective};
use huddle_engine::Preprocess;
use serde::Serialize;
use serde_json::json;

/// A row counts as predicted well within this share of the measured time.
const ROW_TOLERANCE: f64 = 0.20;
/// A pick counts as right within this share of the fastest measured.
const PICK_TOLERANCE: f64 = 0.10;

/// A candidate's timed runs: medians.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Measured {
    /// Online and verification, as the run's accounting times them.
    pub online_seconds: f64,
    /// How repeatable the online time is: its upper quartile over its
    /// lower (none under four runs). A row whose runs spread more than the
    /// 20 % a prediction is judged by cannot be judged by one median.
    pub online_spread: Option<f64>,
    /// Every phase (what the prediction's total counts).
    pub total_seconds: f64,
    /// From the start to the outputs.
    pub wall_seconds: f64,
    pub runs: usize,
}

/// One candidate of a case: what the model said and what the run took.
#[derive(Debug, Serialize)]
pub struct Row {
    /// Its place in the case's ranking (1: the pick).
    pub rank: usize,
    pub protocol: String,
    pub fan_in: String,
    pub roles: String,
    pub preprocess: &'static str,
    pub threads: String,
    pub online_rounds: u32,
    pub bytes: u64,
    pub predicted_online_seconds: f64,
    pub predicted_total_seconds: f64,
    pub bound: String,
    pub measured: Option<Measured>,
    /// Predicted over measured online seconds.
    pub online_ratio: Option<f64>,
    /// Predicted over measured total seconds.
    pub total_ratio: Option<f64>,
    /// Why it was not run.
    pub skipped: Option<String>,
}

impl Row {
    pub fn new(rank: usize, c: &Candidate, measured: Result<Measured, String>) -> Row {
        let ch = &c.choice;
        let p = &c.prediction;
        let mut protocol = ch.protocol.name().to_string();
        if let Some(l) = ch.linear {
            protocol.push_str(&format!(" ({})", l.name()));
        }
        let ratio = |pred: f64, meas: f64| (meas > 0.0).then(|| pred / meas);
        let (measured, skipped) = match measured {
            Ok(m) => (Some(m), None),
            Err(why) => (None, Some(why)),
        };
        Row {
            rank,
            protocol,
            fan_in: ch.fan_in.to_string(),
            roles: ch.roles_label(),
            preprocess: match (
                ch.protocol.descriptor().separate_preprocessing,
                ch.preprocess,
            ) {
                (false, _) => "-",
                (true, Preprocess::Separate) => "separate",
                (true, Preprocess::Interleaved) => "interleaved",
            },
            threads: if ch.split_roles {
                "split".into()
            } else {
                ch.threads.to_string()
            },
            online_rounds: c.online_rounds(),
            bytes: c.bytes(),
            predicted_online_seconds: p.online_seconds,
            predicted_total_seconds: p.total_seconds,
            bound: p.why(),
            online_ratio: measured.and_then(|m| ratio(p.online_seconds, m.online_seconds)),
            total_ratio: measured.and_then(|m| ratio(p.total_seconds, m.total_seconds)),
            measured,
            skipped,
        }
    }

    /// Whether the predicted online time is within the tolerance (None:
    /// not run).
    pub fn online_within(&self) -> Option<bool> {
        self.online_ratio.map(|r| (r - 1.0).abs() <= ROW_TOLERANCE)
    }

    /// Whether its online runs' quartiles lie within the row tolerance of
    /// each other (runs of one are taken as repeatable: they are long).
    fn repeatable(&self) -> bool {
        self.measured
            .is_some_and(|m| m.online_spread.is_none_or(|s| s - 1.0 <= ROW_TOLERANCE))
    }

    fn label(&self) -> String {
        format!(
            "{} (fan-in {}, roles {}, preprocessing {})",
            self.protocol, self.fan_in, self.roles, self.preprocess
        )
    }
}

/// One case: its rows and whether the pick was right.
#[derive(Debug, Serialize)]
pub struct CaseReport {
    pub circuit: String,
    pub security: &'static str,
    pub parties: usize,
    pub net: String,
    pub batch: usize,
    pub rows: Vec<Row>,
    /// The ranking's first, as it was measured (None: not run).
    pub pick_seconds: Option<f64>,
    /// The fastest measured row: its rank and seconds.
    pub fastest_rank: Option<usize>,
    pub fastest_seconds: Option<f64>,
    /// Whether the pick measured within 10 % of the fastest.
    pub pick_right: Option<bool>,
}

impl CaseReport {
    pub fn new(
        circuit: &str,
        class: Class,
        net: &str,
        batch: usize,
        objective: Objective,
        rows: Vec<Row>,
    ) -> CaseReport {
        let judged = |r: &Row| {
            r.measured.map(|m| match objective {
                Objective::Online => m.online_seconds,
                _ => m.total_seconds,
            })
        };
        let pick_seconds = rows.iter().find(|r| r.rank == 1).and_then(judged);
        let fastest = rows
            .iter()
            .filter_map(|r| judged(r).map(|s| (r.rank, s)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        CaseReport {
            circuit: circuit.into(),
            security: class.name(),
            parties: class.parties(),
            net: net.into(),
            batch,
            pick_seconds,
            fastest_rank: fastest.map(|f| f.0),
            fastest_seconds: fastest.map(|f| f.1),
            pick_right: pick_seconds
                .zip(fastest)
                .map(|(p, (_, f))| p <= f * (1.0 + PICK_TOLERANCE)),
            rows,
        }
    }

    /// The case in one line: the pick, the fastest, the verdict.
    pub fn headline(&self) -> String {
        let name = |rank: Option<usize>| {
            rank.and_then(|k| self.rows.iter().find(|r| r.rank == k))
                .map_or("-".to_string(), |r| r.protocol.clone())
        };
        format!(
            "{} {} ({} parties) {} batch {}: pick {} {}, fastest {} {}{}",
            self.circuit,
            self.security,
            self.parties,
            self.net,
            self.batch,
            name(Some(1)),
            self.pick_seconds.map_or("not run".into(), seconds),
            name(self.fastest_rank),
            self.fastest_seconds.map_or("-".into(), seconds),
            match self.pick_right {
                Some(true) => " -> pick within 10 %",
                Some(false) => " -> PICK OFF",
                None => "",
            }
        )
    }
}

/// The summary: rows within 20 % online, cases whose pick is right.
#[derive(Debug, Serialize)]
struct Summary {
    rows_measured: usize,
    rows_online_within_20_percent: usize,
    /// Rows whose online runs' quartiles lie within 20 % of each other,
    /// and of them those predicted within 20 %.
    rows_repeatable: usize,
    rows_repeatable_within_20_percent: usize,
    rows_not_run: usize,
    cases_judged: usize,
    cases_pick_within_10_percent: usize,
}

fn summary(cases: &[CaseReport]) -> Summary {
    let rows = || cases.iter().flat_map(|c| &c.rows);
    Summary {
        rows_measured: rows().filter(|r| r.measured.is_some()).count(),
        rows_online_within_20_percent: rows().filter(|r| r.online_within() == Some(true)).count(),
        rows_repeatable: rows().filter(|r| r.repeatable()).count(),
        rows_repeatable_within_20_percent: rows()
            .filter(|r| r.repeatable() && r.online_within() == Some(true))
            .count(),
        rows_not_run: rows().filter(|r| r.measured.is_none()).count(),
        cases_judged: cases.iter().filter(|c| c.pick_right.is_some()).count(),
        cases_pick_within_10_percent: cases.iter().filter(|c| c.pick_right == Some(true)).count(),
    }
}

/// The host the measurements ran on, as /proc/cpuinfo names its CPU.
fn cpu() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn transport_name(t: crate::run::TransportArg) -> &'static str {
    match t {
        crate::run::TransportArg::Memory => "memory",
        crate::run::TransportArg::Tcp => "tcp",
        crate::run::TransportArg::Tls => "tls",
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

fn share(n: usize, of: usize) -> String {
    if of == 0 {
        "-".into()
    } else {
        format!("{n}/{of} ({:.0} %)", 100.0 * n as f64 / of as f64)
    }
}

fn ratio(r: Option<f64>) -> String {
    r.map_or("-".into(), |r| format!("{r:.2}"))
}

/// The report as text: per case its headline and rows, then which
/// protocol measured fastest where, then the summary.
pub fn text(cases: &[CaseReport], args: &PlanBenchArgs, objective: Objective) -> String {
    let mut out = format!(
        "huddle bench plan: {} cases, every party on this host ({}, {} cores), {} transport, \
         one thread per party, pick by {} seconds; predicted / measured = ratio (1.00: \
         exact)\n",
        cases.len(),
        cpu(),
        cores(),
        transport_name(args.transport),
        objective.name()
    );
    for name in &args.cases {
        out.push_str(&format!("  {name}: {}\n", cases::describe(name)));
    }
    for case in cases {
        out.push('\n');
        out.push_str(&case.headline());
        out.push('\n');
        for r in &case.rows {
            let measured = match (&r.measured, &r.skipped) {
                (Some(m), _) => format!(
                    "online {} / {} = {}  total {} / {} = {}  ({} run{}{})",
                    seconds(r.predicted_online_seconds),
                    seconds(m.online_seconds),
                    ratio(r.online_ratio),
                    seconds(r.predicted_total_seconds),
                    seconds(m.total_seconds),
                    ratio(r.total_ratio),
                    m.runs,
                    if m.runs == 1 { "" } else { "s" },
                    m.online_spread
                        .map_or(String::new(), |s| format!(", quartiles {s:.2}x apart"))
                ),
                (None, why) => why.clone().unwrap_or_default(),
            };
            out.push_str(&format!(
                "  {:>3} {}  {} rounds {}  {}  [{}]\n",
                r.rank,
                r.label(),
                r.online_rounds,
                bytes(r.bytes),
                measured,
                r.bound
            ));
        }
    }
    out.push_str("\nfastest measured (by ");
    out.push_str(objective.name());
    out.push_str(" seconds):\n");
    out.push_str(&winners(cases, args));
    let s = summary(cases);
    out.push_str(&format!(
        "\nrows with predicted online time within 20 %: {}\n  of the rows whose runs repeat \
         within 20 % (quartiles): {}\ncases whose pick is within 10 % of the fastest measured: \
         {}\nrows not run: {}",
        share(s.rows_online_within_20_percent, s.rows_measured),
        share(s.rows_repeatable_within_20_percent, s.rows_repeatable),
        share(s.cases_pick_within_10_percent, s.cases_judged),
        s.rows_not_run
    ));
    out
}

/// Per circuit and class, a line per network: the fastest measured
/// protocol at each batch.
fn winners(cases: &[CaseReport], args: &PlanBenchArgs) -> String {
    let mut out = String::new();
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for c in cases {
        if seen.contains(&(&c.circuit, c.security)) {
            continue;
        }
        seen.push((&c.circuit, c.security));
        out.push_str(&format!("  {} {}:\n", c.circuit, c.security));
        let mut nets: Vec<&str> = Vec::new();
        for d in cases
            .iter()
            .filter(|d| d.circuit == c.circuit && d.security == c.security)
        {
            if !nets.contains(&d.net.as_str()) {
                nets.push(&d.net);
            }
        }
        for net in nets {
            let cells: Vec<String> = args
                .batches
                .iter()
                .filter_map(|&b| {
                    cases
                        .iter()
                        .find(|d| {
                            d.circuit == c.circuit
                                && d.security == c.security
                                && d.net == net
                                && d.batch == b
                        })
                        .map(|d| {
                            let best = d
                                .fastest_rank
                                .and_then(|k| d.rows.iter().find(|r| r.rank == k))
                                .map_or("-".to_string(), |r| r.protocol.clone());
                            format!("batch {b}: {best}")
                        })
                })
                .collect();
            out.push_str(&format!("    {net:<8} {}\n", cells.join(", ")));
        }
    }
    out
}

/// The report as one JSON object: the host, the options, every case with
/// its rows, the summary.
pub fn json(
    cases: &[CaseReport],
    args: &PlanBenchArgs,
    objective: Objective,
) -> Result<String, String> {
    let s = summary(cases);
    let value = json!({
        "cpu": cpu(),
        "cores": cores(),
        "transport": transport_name(args.transport),
        "objective": objective.name(),
        "rates": args.rates.as_ref().map_or("default".to_string(), |p| p.display().to_string()),
        "cases": cases,
        "summary": s,
    });
    serde_json::to_string_pretty(&value).map_err(|e| e.to_string())
}
