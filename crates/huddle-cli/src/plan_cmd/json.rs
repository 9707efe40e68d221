//! `huddle plan --json`: the plan as one JSON object, its keys in a fixed
//! order (docs/cli.md lists them), every candidate ranked.

use huddle_engine::plan::{Candidate, FanIn, Objective, Refused, Requirements};
use huddle_engine::Preprocess;
use serde::Serialize;

/// What the plan is for.
pub struct About<'a> {
    pub circuit: String,
    pub net: &'a str,
    pub batch: usize,
    pub objective: Objective,
    pub req: &'a Requirements,
    /// The rates file read (None: the defaults).
    pub rates: Option<String>,
}

#[derive(Serialize)]
struct Plan<'a> {
    circuit: &'a str,
    net: &'a str,
    batch: usize,
    objective: &'static str,
    requirements: Req<'a>,
    rates: &'a str,
    winner: Option<Row>,
    why: &'a str,
    candidates: Vec<Row>,
    refused: Vec<Left<'a>>,
}

#[derive(Serialize)]
struct Req<'a> {
    security: &'static str,
    parties: Option<usize>,
    corruptions: usize,
    allow_dealer: bool,
    max_threads: usize,
    fan_ins: Option<&'a [usize]>,
}

#[derive(Serialize)]
struct Left<'a> {
    protocol: &'static str,
    reason: &'a str,
}

/// One candidate.
#[derive(Serialize)]
struct Row {
    rank: usize,
    protocol: &'static str,
    security: &'static str,
    parties: usize,
    tolerated: usize,
    /// The most operands per product (null: garbling, any).
    fan_in: Option<usize>,
    rewritten: bool,
    /// Role r played by host `roles[r]`.
    roles: Vec<usize>,
    preprocess: &'static str,
    split_roles: bool,
    threads: usize,
    linear: Option<&'static str>,
    online_rounds: u32,
    bytes: u64,
    online_bytes: u64,
    offline_seconds: f64,
    online_seconds: f64,
    total_seconds: f64,
    bound: String,
}

fn row(rank: usize, c: &Candidate) -> Row {
    let ch = &c.choice;
    let p = &c.prediction;
    let (fan_in, rewritten) = match ch.fan_in {
        FanIn::Limit { max, rewritten } => (Some(max), rewritten),
        FanIn::Any => (None, false),
    };
    Row {
        rank,
        protocol: ch.protocol.name(),
        security: ch.protocol.descriptor().security.label(),
        parties: ch.parties,
        tolerated: ch.tolerated,
        fan_in,
        rewritten,
        roles: ch.roles.clone(),
        preprocess: preprocess(ch.preprocess),
        split_roles: ch.split_roles,
        threads: ch.threads,
        linear: ch.linear.map(|l| l.name()),
        online_rounds: c.online_rounds(),
        bytes: c.bytes(),
        online_bytes: c.online_bytes(),
        offline_seconds: p.offline_seconds,
        online_seconds: p.online_seconds,
        total_seconds: p.total_seconds,
        bound: p.why(),
    }
}

/// One candidate as the plan's JSON lists it (`--protocol auto`'s
/// `--json` reports its choice so).
pub fn candidate_json(c: &Candidate) -> serde_json::Value {
    // Plain data of strings and numbers: serializing it cannot fail.
    serde_json::to_value(row(1, c)).unwrap_or_default()
}

pub fn preprocess(p: Preprocess) -> &'static str {
    match p {
        Preprocess::Separate => "separate",
        Preprocess::Interleaved => "interleaved",
    }
}

/// The plan as pretty JSON.
pub fn plan(about: &About, ranked: &[Candidate], why: &str, refused: &[Refused]) -> String {
    let plan = Plan {
        circuit: &about.circuit,
        net: about.net,
        batch: about.batch,
        objective: about.objective.name(),
        requirements: Req {
            security: about.req.guarantee.name(),
            parties: about.req.parties,
            corruptions: about.req.corruptions,
            allow_dealer: about.req.allow_dealer,
            max_threads: about.req.max_threads,
            fan_ins: about.req.fan_ins.as_deref(),
        },
        rates: about.rates.as_deref().unwrap_or("default"),
        winner: ranked.first().map(|c| row(1, c)),
        why,
        candidates: ranked
            .iter()
            .enumerate()
            .map(|(i, c)| row(i + 1, c))
            .collect(),
        refused: refused
            .iter()
            .map(|r| Left {
                protocol: r.protocol.name(),
                reason: &r.reason,
            })
            .collect(),
    };
    // Plain data of strings and numbers: serializing it cannot fail.
    serde_json::to_string_pretty(&plan).unwrap_or_default()
}
