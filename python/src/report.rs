//! What a run gives Python: its outputs ([`Outputs`]) and its report
//! ([`Report`], the engine's `RunReport` read through getters).

use crate::values::{to_integers, to_numpy, Codec};
use huddle_circuit::BitMatrix;
use huddle_engine::{PerPhase, RunReport};
use pyo3::prelude::*;
use std::collections::BTreeMap;

/// The output values of a run or of `huddle.evaluate`, in the circuit's
/// order: `outputs[i]` or `outputs["name"]` is a numpy array, Boolean
/// values as uint8 bits (instances × bits, bit j on the value's j-th
/// wire), ring values as uint64 (instances × elements). `integers(key)`
/// gives the same values as numbers. A compiled program's outputs are
/// numbers already, typed by the program: shape (instances,) + the
/// output's shape, bits as bool, unsigned as uint64, signed and ring
/// integers as int64, fixed point as float64.
#[pyclass(module = "huddle", frozen)]
pub(crate) struct Outputs {
    names: Vec<String>,
    codecs: Vec<Codec>,
    matrices: Vec<BitMatrix>,
    arrays: Vec<Py<PyAny>>,
}

impl Outputs {
    pub(crate) fn new(
        py: Python<'_>,
        names: Vec<String>,
        codecs: Vec<Codec>,
        matrices: Vec<BitMatrix>,
    ) -> PyResult<Outputs> {
        let arrays = matrices
            .iter()
            .zip(&codecs)
            .map(|(m, c)| to_numpy(py, m, c).map(Bound::unbind))
            .collect::<PyResult<_>>()?;
        Ok(Outputs {
            names,
            codecs,
            matrices,
            arrays,
        })
    }

    /// A program's outputs: typed arrays already (no codecs).
    pub(crate) fn typed(names: Vec<String>, arrays: Vec<Py<PyAny>>) -> Outputs {
        Outputs {
            names,
            codecs: Vec::new(),
            matrices: Vec::new(),
            arrays,
        }
    }

    fn index(&self, key: &Bound<'_, PyAny>) -> PyResult<usize> {
        if let Ok(name) = key.extract::<String>() {
            return self.names.iter().position(|n| *n == name).ok_or_else(|| {
                pyo3::exceptions::PyKeyError::new_err(format!(
                    "no output value `{name}` (there are: {})",
                    self.names.join(", ")
                ))
            });
        }
        let i: isize = key.extract()?;
        let n = self.names.len() as isize;
        let j = if i < 0 { i + n } else { i };
        if !(0..n).contains(&j) {
            return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                "output index {i} out of range ({n} outputs)"
            )));
        }
        Ok(j as usize)
    }
}

#[pymethods]
impl Outputs {
    fn __len__(&self) -> usize {
        self.arrays.len()
    }

    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        Ok(self.arrays[self.index(key)?].clone_ref(py))
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let list = pyo3::types::PyList::new(py, self.arrays.iter().map(|a| a.clone_ref(py)))?;
        Ok(list.try_iter()?.into_any().unbind())
    }

    /// The output values' names, in order.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.names.clone()
    }

    /// Output value `key` (index or name) as numbers: a Boolean value one
    /// integer per instance (bit j of it on wire j; uint64, or int64 if
    /// `signed`, up to 64 bits; wider: an object array of Python ints); a
    /// ring value uint64 or (signed) int64, instances × elements. A
    /// program's outputs are numbers already: the same array (`signed`
    /// aside).
    #[pyo3(signature = (key, signed = false))]
    fn integers<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
        signed: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let i = self.index(key)?;
        match (self.matrices.get(i), self.codecs.get(i)) {
            (Some(m), Some(codec)) => to_integers(py, m, codec, signed),
            _ => Ok(self.arrays[i].bind(py).clone()),
        }
    }

    fn __repr__(&self) -> String {
        format!("<huddle.Outputs {}>", self.names.join(", "))
    }
}

/// What a run cost: bytes per phase and directed link, rounds and seconds
/// per phase, and how it ran. `to_dict()` gives the JSON of `huddle local
/// --json` (docs/cli.md describes its fields).
#[pyclass(module = "huddle", frozen)]
pub(crate) struct Report(pub(crate) RunReport);

#[pymethods]
impl Report {
    /// The protocol's name.
    #[getter]
    fn protocol(&self) -> &'static str {
        self.0.protocol.name()
    }
    /// Parties of the run.
    #[getter]
    fn parties(&self) -> usize {
        self.0.parties
    }
    /// Instances evaluated.
    #[getter]
    fn batch(&self) -> usize {
        self.0.batch
    }
    /// Rounds of the online phase.
    #[getter]
    fn online_rounds(&self) -> u32 {
        self.0.online_rounds
    }
    /// Rounds per phase (setup, offline, online, verify, dependent).
    #[getter]
    fn rounds(&self) -> PerPhase<u32> {
        self.0.rounds.clone()
    }
    /// Bytes per phase and directed link ("0->1"), protocol payload only.
    #[getter]
    fn bytes(&self) -> PerPhase<BTreeMap<String, u64>> {
        self.0.bytes.clone()
    }
    /// Bytes of every phase and link together.
    #[getter]
    fn total_bytes(&self) -> u64 {
        self.0.bytes.values().flat_map(|l| l.values()).sum()
    }
    /// Seconds per phase.
    #[getter]
    fn seconds(&self) -> PerPhase<f64> {
        self.0.seconds.clone()
    }
    /// Seconds from the start of the run to its outputs.
    #[getter]
    fn wall_seconds(&self) -> f64 {
        self.0.wall_seconds
    }
    /// Gates times instances per wall second.
    #[getter]
    fn gates_per_second(&self) -> f64 {
        self.0.gates_per_second
    }
    /// Threads (lanes) each party ran.
    #[getter]
    fn threads(&self) -> usize {
        self.0.threads
    }
    /// The protocol's warning, where it gives no security (ttp).
    #[getter]
    fn warning(&self) -> Option<&'static str> {
        self.0.warning
    }
    /// The report as `huddle local --json` prints it (outputs aside).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::circuit::json(py, &self.0)
    }
    fn __repr__(&self) -> String {
        format!(
            "<huddle.Report {}: {} parties, {} instances, {} online rounds, {} bytes, {:.3} s>",
            self.protocol(),
            self.0.parties,
            self.0.batch,
            self.0.online_rounds,
            self.total_bytes(),
            self.0.wall_seconds
        )
    }
}

/// A finished run: `outputs` (as a party that learns them has them) and
/// `report`. `result[key]` is `result.outputs[key]`.
#[pyclass(module = "huddle", frozen)]
pub(crate) struct RunResult {
    /// The output values.
    #[pyo3(get)]
    outputs: Py<Outputs>,
    /// The run's costs.
    #[pyo3(get)]
    report: Py<Report>,
}

impl RunResult {
    pub(crate) fn new(outputs: Py<Outputs>, report: Py<Report>) -> RunResult {
        RunResult { outputs, report }
    }
}

#[pymethods]
impl RunResult {
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.outputs.get().__getitem__(py, key)
    }
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "<huddle.RunResult {}>",
            self.report.bind(py).get().__repr__()
        )
    }
}
