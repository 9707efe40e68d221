//! `--protocol auto` in `huddle local` and `huddle party`: the requirements
//! (the flags and job keys `huddle plan` reads too), the options that would
//! choose among runs refused beside it, the choice made (the engine's
//! [`Auto::pick`]), told on stderr and in `--json`, and turned into the run.

use super::args::{ProtocolArg, RunArgs};
use crate::failure::Failure;
use huddle_circuit::{Circuit, InputOwners};
use huddle_engine::plan::{Auto, Picked};
use huddle_engine::{Rates, Run};
use huddle_net::NetProfile;

/// What auto is asked for, and this host's rates.
pub(super) struct AutoRun {
    pub(super) auto: Auto,
    pub(super) rates: Rates,
}

/// Options that choose among runs, which auto chooses: (clap's id, the
/// flag, whether the job sets it).
fn chosen_by_auto(args: &RunArgs) -> Vec<(&'static str, &'static str, bool)> {
    let j = args.loaded.as_ref().map(|l| &l.job);
    let has = |f: fn(&crate::job::Job) -> bool| j.is_some_and(f);
    vec![
        (
            "preprocess",
            "--preprocess",
            has(|j| j.preprocess.is_some()),
        ),
        (
            "split_roles",
            "--split-roles",
            has(|j| j.split_roles.is_some()),
        ),
        ("threads", "--threads", has(|j| j.threads.is_some())),
        (
            "max_fan_in",
            "--max-fan-in",
            has(|j| j.max_fan_in.is_some()),
        ),
        ("linear", "--linear", has(|j| j.linear.is_some())),
        ("opt", "--opt", has(|j| j.opt.is_some())),
        (
            "truncation",
            "--truncation",
            has(|j| j.truncation.is_some()),
        ),
        (
            "verify_every",
            "--verify-every",
            has(|j| j.verify_every.is_some()),
        ),
        ("corrupt", "--corrupt", false),
        ("fault", "--fault", false),
        ("fault_at", "--fault-at", false),
    ]
}

/// Options only auto reads.
fn auto_only(args: &RunArgs) -> Vec<(&'static str, &'static str, bool)> {
    let j = args.loaded.as_ref().map(|l| &l.job);
    let has = |f: fn(&crate::job::Job) -> bool| j.is_some_and(f);
    let mut out: Vec<_> = crate::requirements::RequirementArgs::IDS
        .iter()
        .map(|&(id, flag)| (id, flag, false))
        .collect();
    out[0].2 = has(|j| j.security.is_some());
    out[1].2 = has(|j| j.corruptions.is_some());
    out[2].2 = has(|j| j.objective.is_some());
    out[3].2 = has(|j| j.allow_dealer.is_some());
    out.push(("rates", "--rates", false));
    out
}

fn given(m: &clap::ArgMatches, id: &str) -> bool {
    m.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
}

impl RunArgs {
    /// Whether the protocol is auto.
    pub(super) fn is_auto(&self) -> bool {
        self.protocol == Some(ProtocolArg::Auto)
    }

    /// Under --protocol auto, what it is asked for, for `parties` parties
    /// (None: each protocol's own count); options that choose among runs
    /// are refused beside it, and auto's own options without it.
    /// `outside_dealer`: whether a dealer outside the parties can serve
    /// the run (`huddle local`'s process), see [`Auto`].
    pub(super) fn auto_request(
        &self,
        m: &clap::ArgMatches,
        parties: Option<usize>,
        outside_dealer: bool,
    ) -> Result<Option<AutoRun>, String> {
        let place = |in_job: bool, flag: &str| match in_job {
            true => format!(
                "`{}` in the job file",
                flag.trim_start_matches("--").replace('-', "_")
            ),
            false => flag.to_string(),
        };
        if !self.is_auto() {
            for (id, flag, in_job) in auto_only(self) {
                if given(m, id) || in_job {
                    return Err(format!(
                        "{} applies to --protocol auto only (it says what auto may choose)",
                        place(in_job, flag)
                    ));
                }
            }
            return Ok(None);
        }
        for (id, flag, in_job) in chosen_by_auto(self) {
            if given(m, id) || in_job {
                return Err(format!(
                    "--protocol auto chooses {flag} itself, so {} conflicts with it: give a \
                     protocol by name to set it, or leave it out",
                    place(in_job, flag)
                ));
            }
        }
        let rates = match &self.rates {
            Some(path) => Rates::from_file(path).map_err(|e| format!("--rates {e}"))?,
            None => Rates::default(),
        };
        let requirements = self.wants.requirements(parties, rates.cores, None);
        Ok(Some(AutoRun {
            auto: Auto {
                requirements,
                objective: self.wants.objective(),
                roles: self.roles.clone(),
                outside_dealer,
            },
            rates,
        }))
    }

    /// The run of auto's choice: its protocol, circuit and options over
    /// the others given.
    pub(super) fn build_picked(&mut self, picked: &Picked) -> Result<Run, Failure> {
        self.protocol = Some(ProtocolArg::Named(picked.candidate.choice.protocol));
        let base = self.options(None).map_err(Failure::input)?;
        Ok(picked.run(base)?)
    }
}

impl AutoRun {
    /// The choice for `circuit` over `net` at `batch` instances, told on
    /// stderr.
    pub(super) fn pick(
        &self,
        circuit: &Circuit,
        net: &NetProfile,
        batch: usize,
        rates: &Rates,
    ) -> Result<Picked, Failure> {
        let picked = self.auto.pick(circuit, net, batch, rates)?;
        eprintln!("auto: {}", picked.summary());
        if !picked.why.is_empty() {
            eprintln!("auto: {}", picked.why);
        }
        Ok(picked)
    }
}

/// The circuit's input owners over all `parties` parties where they are
/// round robin: under auto they must not depend on the protocol chosen
/// (ca2pc's dealer owns none, so round robin over it skips it).
pub(super) fn owners_over(circuit: &mut Circuit, parties: usize) -> Result<(), String> {
    if let InputOwners::RoundRobin = circuit.owners() {
        let owners = (0..circuit.inputs().len()).map(|i| i % parties).collect();
        circuit
            .set_owners(InputOwners::Explicit(owners))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// `--json`'s `auto`: the choice as `huddle plan --json` lists a
/// candidate, with why it wins.
pub(super) fn json(picked: &Picked) -> serde_json::Value {
    let mut v = crate::plan_cmd::candidate_json(&picked.candidate);
    if let serde_json::Value::Object(map) = &mut v {
        map.remove("rank");
        map.insert("why".into(), serde_json::Value::String(picked.why.clone()));
    }
    v
}
