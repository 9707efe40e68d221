//! `huddle.run_local` and `huddle.evaluate`: a run of every party in this
//! process through the engine's `Run`, and the plaintext evaluator (the
//! oracle the protocols are tested against). The parties run with the GIL
//! released; the calling thread wakes every [`POLL`] to let Python handle
//! signals, and a Ctrl-C cancels the run and raises KeyboardInterrupt once
//! every party has stopped.

use crate::errors::{input, local_error, run_error, InternalError};
use crate::inputs::Runnable;
use crate::program_run;
use crate::report::{Outputs, Report, RunResult};
use huddle_circuit::program::Pads;
use huddle_circuit::{BitMatrix, PlainEvaluator};
use huddle_engine::error::RunError;
use huddle_engine::{
    LocalError, LocalNet, Preprocess, Protocol, Run, RunOptions, RunReport, Truncation,
};
use huddle_net::NetProfile;
use pyo3::prelude::*;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

/// How often a waiting caller lets Python run its signal handlers: the
/// delay between a Ctrl-C and the cancel.
const POLL: Duration = Duration::from_millis(50);

/// What the cancel says to the run (and to its error, were it read).
const INTERRUPTED: &str = "interrupted (KeyboardInterrupt in Python)";

/// Runs every party of `protocol` ("trio", "mfi3", "quad", "bgw3", ...;
/// `huddle.protocols()` lists them) in this process on `circuit`: a
/// huddle.Circuit, or a huddle.Program (compiled on first use, once).
///
/// inputs of a circuit: a list with one value per input value of the
///   circuit, in order; or a dict keyed by input value name, or by party
///   (the values that party owns under this protocol: the value itself, or
///   a list of them if it owns several). A Boolean value: integers (a
///   scalar, or one per instance; bit j on wire j), `bytes` (big-endian,
///   one instance) or a 2-D 0/1 array (instances × bits). A ring value:
///   integers, instances × elements (1-D for a one-element value's
///   instances); negative numbers as two's complement. A value given for
///   one instance is used for all.
/// inputs of a program: {party: {name: array}}, {party: array} (a party
///   with one input) or {name: array}; an array is one instance of the
///   input's shape or instances × shape (numbers, lists or numpy); a
///   variable-length input n <= max_rows rows, or a list of such, one per
///   instance.
/// publics (programs): {name: value} (every party gives the same copy) or
///   {party: {name: value}} (each party its own).
/// batch: instances (default: the most any input gives).
/// parties: the party count (default: the protocol's own, else 3; a
///   program's own).
/// net: "lan", "wan", "aws3", "hetero4" or a .toml profile (emulated
///   latency and bandwidth of every link).
/// threads: worker threads per party.
/// links: "memory" (threads joined in memory), "tcp" or "tls" (loopback).
/// split_roles: every party plays every role at once (the secret-sharing
///   protocols without a dealer; refused elsewhere).
/// reveal_to: the one party that learns a circuit's outputs (default:
///   every party); a program's go where its reveal() says.
/// truncation: how fixed-point products truncate under the secret-sharing
///   protocols: "exact" (default; as evaluate(), through A2B and B2A) or
///   "probabilistic" (fused into the product, fewer rounds: the result may
///   be one more in the last place, and wraps around with probability
///   about |v| / 2^k).
/// preprocess: "separate" (ASTRA's and Trio's preprocessing before the
///   inputs) or "interleaved" (layer by layer); default the protocol's.
///
/// Returns a RunResult: `outputs` (see Outputs; a program's by name as
/// typed numpy arrays) and `report` (see Report). Raises a HuddleError
/// subclass per exit-code category with the engine's message; Ctrl-C stops
/// every party and raises KeyboardInterrupt.
#[pyfunction]
#[pyo3(signature = (circuit, protocol = "trio", inputs = None, publics = None, batch = None, parties = None, net = "lan", threads = 1, links = "memory", split_roles = false, reveal_to = None, truncation = None, preprocess = None))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
pub(crate) fn run_local(
    py: Python<'_>,
    circuit: &Bound<'_, PyAny>,
    protocol: &str,
    inputs: Option<&Bound<'_, PyAny>>,
    publics: Option<&Bound<'_, PyAny>>,
    batch: Option<usize>,
    parties: Option<usize>,
    net: &str,
    threads: usize,
    links: &str,
    split_roles: bool,
    reveal_to: Option<usize>,
    truncation: Option<&str>,
    preprocess: Option<&str>,
) -> PyResult<RunResult> {
    let runnable = Runnable::extract(circuit)?;
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
    let (matrices, pads) = match &runnable.interface {
        Some(interface) => {
            let (all, _, pads) = program_run::all_inputs(interface, inputs, publics, batch)?;
            (all, Some(pads))
        }
        None => {
            let owner = |i: usize| run.owner(i);
            let given = circuit_inputs(py, inputs, publics)?;
            (runnable.gather(&given, Some(&owner), batch)?, None)
        }
    };
    let net =
        local_net(links)?.with_profile(NetProfile::named(net).map_err(|e| input(e.to_string()))?);
    let parties = run.clone();
    let mut report = wait_for(py, &run, move || {
        parties.local(&matrices, &net).map_err(Failed::Local)
    })?;
    // The values move to Outputs (the report's copy is not read again).
    let outputs = outputs(py, &runnable, std::mem::take(&mut report.outputs), pads)?;
    Ok(RunResult::new(
        Py::new(py, outputs)?,
        Py::new(py, Report(report))?,
    ))
}

/// A circuit's inputs (an empty list if none), refusing public parameters.
pub(crate) fn circuit_inputs<'py>(
    py: Python<'py>,
    inputs: Option<&Bound<'py, PyAny>>,
    publics: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    if publics.is_some_and(|p| !p.is_none()) {
        return Err(input(
            "publics are a program's public parameters; a circuit has none",
        ));
    }
    match inputs {
        Some(given) => Ok(given.clone()),
        None => Ok(pyo3::types::PyList::empty(py).into_any()),
    }
}

/// What a caller chooses of a run beyond circuit and inputs.
pub(crate) struct Choices<'a> {
    pub(crate) protocol: &'a str,
    pub(crate) parties: Option<usize>,
    pub(crate) threads: usize,
    pub(crate) split_roles: bool,
    pub(crate) reveal_to: Option<usize>,
    /// "exact" or "probabilistic" (None: exact).
    pub(crate) truncation: Option<&'a str>,
    /// "separate" or "interleaved" (None: the protocol's default).
    pub(crate) preprocess: Option<&'a str>,
}

impl Choices<'_> {
    /// The checked run (the engine refuses what does not go together).
    pub(crate) fn build(&self, py: Python<'_>, runnable: &Runnable) -> PyResult<Run> {
        let protocol = Protocol::parse(self.protocol).map_err(|e| run_error(py, &e))?;
        let mut options = RunOptions::for_protocol(protocol)
            .with_threads(self.threads)
            .with_split_roles(self.split_roles)
            .with_reveal_to(self.reveal_to);
        if let Some(name) = self.truncation {
            let all = [Truncation::Exact, Truncation::Probabilistic].map(Truncation::name);
            options = options.with_truncation(named("truncation", name, Truncation::parse, &all)?);
        }
        if let Some(name) = self.preprocess {
            let all = [Preprocess::Separate, Preprocess::Interleaved].map(Preprocess::name);
            options = options.with_preprocess(named("preprocess", name, Preprocess::parse, &all)?);
        }
        let mut builder = Run::builder(protocol)
            .circuit(runnable.circuit.clone())
            .options(options);
        if let Some(n) = self.parties {
            builder = builder.parties(n);
        }
        builder.build().map_err(|e| run_error(py, &e))
    }
}

/// The option `what` its spelling `name` names, or an InputError listing
/// the spellings there are.
fn named<T>(what: &str, name: &str, parse: fn(&str) -> Option<T>, all: &[&str]) -> PyResult<T> {
    parse(name).ok_or_else(|| {
        let all: Vec<String> = all.iter().map(|s| format!("{s:?}")).collect();
        input(format!("{what} {name:?}: expected {}", all.join(" or ")))
    })
}

/// The circuit's outputs in the clear (huddle's plaintext evaluator, the
/// oracle every protocol is tested against). `inputs` as for run_local,
/// for a circuit as a list or keyed by name (owners depend on a
/// protocol); a program's and its `publics` as run_local takes them.
#[pyfunction]
#[pyo3(signature = (circuit, inputs = None, publics = None, batch = None))]
pub(crate) fn evaluate(
    py: Python<'_>,
    circuit: &Bound<'_, PyAny>,
    inputs: Option<&Bound<'_, PyAny>>,
    publics: Option<&Bound<'_, PyAny>>,
    batch: Option<usize>,
) -> PyResult<Outputs> {
    let runnable = Runnable::extract(circuit)?;
    let (matrices, pads) = match &runnable.interface {
        Some(interface) => {
            let (all, _, pads) = program_run::all_inputs(interface, inputs, publics, batch)?;
            (all, Some(pads))
        }
        None => {
            let given = circuit_inputs(py, inputs, publics)?;
            (runnable.gather(&given, None, batch)?, None)
        }
    };
    let c = runnable.circuit.clone();
    let result = py.detach(move || PlainEvaluator::new(&c).evaluate(&matrices));
    let values = result.map_err(|e| input(e.to_string()))?;
    outputs(py, &runnable, values, pads)
}

/// The outputs as Python gets them: a circuit's by its codecs, a
/// program's typed by its interface, those the holders of `pads` learn.
pub(crate) fn outputs(
    py: Python<'_>,
    runnable: &Runnable,
    values: Vec<BitMatrix>,
    pads: Option<Pads>,
) -> PyResult<Outputs> {
    if let Some(interface) = &runnable.interface {
        let pads =
            pads.ok_or_else(|| InternalError::new_err("a program's outputs need its pads"))?;
        return program_run::outputs(py, interface, &values, pads);
    }
    let names = runnable
        .circuit
        .outputs()
        .iter()
        .map(|v| v.name.clone())
        .collect();
    Outputs::new(py, names, runnable.outputs.clone(), values)
}

fn local_net(links: &str) -> PyResult<LocalNet> {
    match links {
        "memory" => Ok(LocalNet::memory()),
        "tcp" => Ok(LocalNet::tcp()),
        "tls" => Ok(LocalNet::tls()),
        other => Err(input(format!(
            "unknown links `{other}` (memory, tcp or tls)"
        ))),
    }
}

/// Why a run on the worker thread failed: a local run's error names the
/// party whose error explains it; a one-party run's is its own.
pub(crate) enum Failed {
    Local(LocalError),
    Party(RunError),
}

/// Runs `work` (a run of `run`) on a thread of its own and waits for it
/// with the GIL released, waking to let Python handle signals: a pending
/// KeyboardInterrupt cancels the run, and is raised once it has stopped
/// (no party outlives the call).
pub(crate) fn wait_for(
    py: Python<'_>,
    run: &Run,
    work: impl FnOnce() -> Result<RunReport, Failed> + Send + 'static,
) -> PyResult<RunReport> {
    let (tx, mut rx) = mpsc::channel::<Result<RunReport, Failed>>();
    let worker = std::thread::Builder::new()
        .name("huddle-run".into())
        .spawn(move || {
            let _ = tx.send(work());
        })?;
    loop {
        // The receiver moves in and out: it is Send, not Sync.
        let (back, got) = py.detach(move || {
            let got = rx.recv_timeout(POLL);
            (rx, got)
        });
        rx = back;
        match got {
            Ok(result) => {
                let _ = py.detach(move || worker.join());
                return result.map_err(|e| match e {
                    Failed::Local(e) => local_error(py, &e),
                    Failed::Party(e) => run_error(py, &e),
                });
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Err(interrupt) = py.check_signals() {
                    run.cancel_token().cancel(INTERRUPTED);
                    // Every party stops at its next wait.
                    let _ = py.detach(move || worker.join());
                    return Err(interrupt);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(InternalError::new_err(
                    "internal error (a bug in huddle): the run's thread ended without a result",
                ))
            }
        }
    }
}
