//! `huddle.Party`: this process as one party of a run across hosts, over
//! TLS as a parties file sets it up (`huddle certs` makes one). The hello
//! carries the run's settings, the circuit's hash and a program's
//! interface digest, so parties that disagree on any stop at connect
//! (MismatchError) naming the difference. Job files (`huddle party
//! --job`) are the CLI's: a Python program gives the circuit and the
//! inputs itself.

use crate::errors::input;
use crate::inputs::Runnable;
use crate::program_run;
use crate::report::{Report, RunResult};
use crate::run::{outputs, wait_for, Choices, Failed};
use huddle_engine::OwnValue;
use huddle_engine::{Batch, PartyLinks, PartyPlan};
use huddle_net::{NetProfile, NetworkConfig};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::time::Duration;

/// One party of a run across hosts: Party(config, id, net="lan",
/// setup_timeout=60.0, idle_timeout=10.0).
///
/// config: a parties file (parties.toml: session, [tls] ca, one [[party]]
///   per party with host, port, cert and key; `huddle certs` writes one).
/// id: this party's id in it.
/// net: an emulated network profile on this party's links (as run_local).
/// setup_timeout: seconds to keep trying to reach every peer.
/// idle_timeout: seconds a wait goes on a peer that sends nothing at all.
#[pyclass(module = "huddle", frozen)]
pub(crate) struct Party {
    config: NetworkConfig,
    name: String,
    id: usize,
    links: PartyLinks,
}

#[pymethods]
impl Party {
    #[new]
    #[pyo3(signature = (config, id, net = "lan", setup_timeout = 60.0, idle_timeout = 10.0))]
    fn new(
        py: Python<'_>,
        config: PathBuf,
        id: usize,
        net: &str,
        setup_timeout: f64,
        idle_timeout: f64,
    ) -> PyResult<Party> {
        let name = config.display().to_string();
        let parsed = NetworkConfig::from_file(&config).map_err(|e| input(e.to_string()))?;
        let seconds = |s: f64, what: &str| {
            Duration::try_from_secs_f64(s)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    input(format!(
                        "{what} must be a positive number of seconds, not {s}"
                    ))
                })
        };
        let links = PartyLinks::tls_from_config(&parsed, &name, id)
            .map_err(|e| crate::errors::run_error(py, &e))?
            .with_timeouts(
                seconds(setup_timeout, "setup_timeout")?,
                seconds(idle_timeout, "idle_timeout")?,
            )
            .with_profile(NetProfile::named(net).map_err(|e| input(e.to_string()))?);
        Ok(Party {
            config: parsed,
            name,
            id,
            links,
        })
    }

    /// Connects to the other parties and runs this party's part.
    ///
    /// circuit: a huddle.Circuit, or a huddle.Program (compiled once).
    /// protocol, threads, split_roles, reveal_to, truncation, preprocess:
    /// as run_local; every party must give the same (the hello compares
    /// them), and the same
    /// circuit (and a program's same interface). The party count is the
    /// parties file's.
    /// inputs of a circuit: the input values this party owns: the value
    ///   itself if it owns one, a list of them (in order) or a dict by name
    ///   if several, None if it owns none. Values as run_local's.
    /// inputs of a program: this party's inputs, a dict by name (or the
    ///   value of its one input); publics: its copies, a dict by name.
    /// batch: the instances; a party without inputs and without a batch
    ///   takes what the others say.
    ///
    /// Returns a RunResult: this party's outputs (none for a party that
    /// learns nothing; of a program, those it learns) and its report (its
    /// own links). Ctrl-C stops the run (from connect on: once connected)
    /// and tells the peers.
    #[pyo3(signature = (circuit, protocol, inputs = None, publics = None, batch = None, threads = 1, split_roles = false, reveal_to = None, truncation = None, preprocess = None))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments
    fn run(
        &self,
        py: Python<'_>,
        circuit: &Bound<'_, PyAny>,
        protocol: &str,
        inputs: Option<&Bound<'_, PyAny>>,
        publics: Option<&Bound<'_, PyAny>>,
        batch: Option<usize>,
        threads: usize,
        split_roles: bool,
        reveal_to: Option<usize>,
        truncation: Option<&str>,
        preprocess: Option<&str>,
    ) -> PyResult<RunResult> {
        let runnable = Runnable::extract(circuit)?;
        let parties = Some(self.config.parties());
        let (parties, reveal_to) = match &runnable.interface {
            Some(interface) => program_run::choices(interface, parties, reveal_to)?,
            None => (parties, reveal_to),
        };
        let choices = Choices {
            protocol,
            parties,
            threads,
            split_roles,
            reveal_to,
            truncation,
            preprocess,
        };
        let run = choices.build(py, &runnable)?;
        let (values, given_batch, pads) = match &runnable.interface {
            Some(interface) => {
                let own = program_run::own_inputs(interface, self.id, inputs, publics, batch)?;
                (own.values, own.batch, own.pads)
            }
            None => {
                let inputs = inputs.filter(|g| !g.is_none());
                if publics.is_some_and(|p| !p.is_none()) {
                    return Err(input(
                        "publics are a program's public parameters; a circuit has none",
                    ));
                }
                let values = runnable.gather_owned(inputs, &run.owned_by(self.id), batch)?;
                let rows = values.first().map(|(_, m)| m.rows()).or(batch);
                (values, rows, None)
            }
        };
        let batch = match given_batch {
            Some(n) => Batch::Given(n),
            None => Batch::Open,
        };
        let mut plan = PartyPlan::new(self.id, batch);
        if let Some(interface) = &runnable.interface {
            let (first, last) = program_run::hello_settings(interface);
            plan = plan.with_hello_settings(first, last);
        }
        for (i, m) in values {
            plan = plan.with_input(i, OwnValue::Rows(m));
        }
        let (party, config, links) = (run.clone(), self.config.clone(), self.links.clone());
        let mut report = wait_for(py, &run, move || {
            let mut net = party
                .connect(&config, &plan, &links)
                .map_err(Failed::Party)?;
            party.party(&mut net, plan).map_err(Failed::Party)
        })?;
        let outputs = match &runnable.interface {
            Some(interface) => {
                let pads = match pads {
                    Some(pads) => pads,
                    None => program_run::no_pads(interface, self.id, report.batch)?,
                };
                program_run::outputs(py, interface, &report.outputs, pads)?
            }
            None if report.outputs.is_empty() => {
                crate::report::Outputs::new(py, Vec::new(), Vec::new(), Vec::new())?
            }
            None => outputs(py, &runnable, std::mem::take(&mut report.outputs), None)?,
        };
        Ok(RunResult::new(
            Py::new(py, outputs)?,
            Py::new(py, Report(report))?,
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<huddle.Party {} of {} ({})>",
            self.id,
            self.config.parties(),
            self.name
        )
    }
}
