//! `huddle.Party`: this process as one party of a run across hosts, over
//! TLS as a parties file sets it up (`huddle certs` makes one). The hello
//! carries the run's settings and the circuit's hash, so parties that
//! disagree on either stop at connect (MismatchError) naming the
//! difference. Job files (`huddle party --job`) are the CLI's: a program
//! gives the circuit and the inputs itself.

use crate::errors::input;
use crate::inputs::Runnable;
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
    /// protocol, threads, split_roles, reveal_to: as run_local; every
    /// party must give the same (the hello compares them), and the same
    /// circuit. The party count is the parties file's.
    /// inputs: the input values this party owns: the value itself if it
    ///   owns one, a list of them (in order) or a dict by name if several,
    ///   None if it owns none. Values as run_local's.
    /// batch: the instances; a party without inputs and without a batch
    ///   takes what the others say.
    ///
    /// Returns a RunResult: this party's outputs (none for a party that
    /// learns nothing) and its report (its own links). Ctrl-C stops the
    /// run (from connect on: once connected) and tells the peers.
    #[pyo3(signature = (circuit, protocol, inputs = None, batch = None, threads = 1, split_roles = false, reveal_to = None))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments
    fn run(
        &self,
        py: Python<'_>,
        circuit: &Bound<'_, PyAny>,
        protocol: &str,
        inputs: Option<&Bound<'_, PyAny>>,
        batch: Option<usize>,
        threads: usize,
        split_roles: bool,
        reveal_to: Option<usize>,
    ) -> PyResult<RunResult> {
        let runnable = Runnable::extract(circuit)?;
        let choices = Choices {
            protocol,
            parties: Some(self.config.parties()),
            threads,
            split_roles,
            reveal_to,
        };
        let run = choices.build(py, &runnable)?;
        let owned = run.owned_by(self.id);
        let values = runnable.gather_owned(inputs, &owned, batch)?;
        let batch = match (values.first(), batch) {
            (Some((_, m)), _) => Batch::Given(m.rows()),
            (None, Some(n)) => Batch::Given(n),
            (None, None) => Batch::Open,
        };
        let mut plan = PartyPlan::new(self.id, batch);
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
        let outputs = if report.outputs.is_empty() {
            crate::report::Outputs::new(py, Vec::new(), Vec::new(), Vec::new())?
        } else {
            outputs(py, &runnable, std::mem::take(&mut report.outputs))?
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
