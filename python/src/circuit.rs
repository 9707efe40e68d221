//! `huddle.Circuit`: a circuit loaded from a file, generated or compiled
//! from a program (then with the program's interface, which travels
//! beside the circuit file as `<path>.interface.json`); shared, never
//! changed in place.

use crate::errors::input;
use huddle_circuit::program::{CompiledProgram, Interface};
use huddle_circuit::{Circuit as Inner, Domain, Format, Stats};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A Boolean, arithmetic or mixed circuit.
///
/// Load one with `Circuit.load(path)`, generate one with `huddle.gen`, or
/// compile a `huddle.Program`. Its input values are given to
/// `huddle.run_local` and `huddle.evaluate` in order (or by name, or by
/// owning party); `inputs` and `outputs` describe them. A compiled program
/// (`is_program`) carries its `interface`: its inputs, public parameters
/// and outputs are then given and returned as typed numbers by name.
#[pyclass(module = "huddle", name = "Circuit", frozen)]
#[derive(Clone)]
pub(crate) struct Circuit {
    pub(crate) inner: Arc<Inner>,
    /// A compiled program's interface.
    pub(crate) interface: Option<Arc<Interface>>,
}

impl Circuit {
    pub(crate) fn new(inner: Inner) -> Circuit {
        Circuit {
            inner: Arc::new(inner),
            interface: None,
        }
    }

    /// A compiled program, as its circuit and interface.
    pub(crate) fn program(circuit: Inner, interface: Interface) -> Circuit {
        Circuit {
            inner: Arc::new(circuit),
            interface: Some(Arc::new(interface)),
        }
    }
}

/// Where a circuit file's interface lives: beside it, `<path>.interface.json`.
fn interface_path(path: &Path) -> PathBuf {
    let mut name = OsString::from(path.as_os_str());
    name.push(".interface.json");
    PathBuf::from(name)
}

/// `circuit` with the interface at `at`, checked to fit it.
fn with_interface(circuit: Inner, at: &Path) -> PyResult<Circuit> {
    let text = std::fs::read_to_string(at).map_err(|e| input(format!("{}: {e}", at.display())))?;
    let interface: Interface = serde_json::from_str(&text)
        .map_err(|e| input(format!("{}: not a program interface: {e}", at.display())))?;
    let program = CompiledProgram::from_parts(circuit, interface)
        .map_err(|e| input(format!("{}: {e}", at.display())))?;
    let (circuit, interface) = program.into_parts();
    Ok(Circuit::program(circuit, interface))
}

/// One input or output value as Python sees it.
fn describe<'py>(
    py: Python<'py>,
    c: &Inner,
    name: &str,
    domain: Domain,
    wires: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", name)?;
    d.set_item(
        "domain",
        match domain {
            Domain::Bit => "bits",
            Domain::Ring => "ring",
        },
    )?;
    d.set_item("wires", wires)?;
    d.set_item("bits", c.value_bits(domain, wires as u32))?;
    Ok(d)
}

#[pymethods]
impl Circuit {
    /// Reads Bristol Fashion, huddle's arithmetic format or (format="old")
    /// the old Bristol format; "auto" tells them apart. Raises InputError
    /// naming the file and the line for a file that is not a circuit. A
    /// compiled program's interface is read from `<path>.interface.json`
    /// where that file exists (InputError if it does not fit the circuit).
    #[staticmethod]
    #[pyo3(signature = (path, format = "auto"))]
    fn load(path: PathBuf, format: &str) -> PyResult<Circuit> {
        let format = match format {
            "auto" => Format::Auto,
            "bristol" => Format::Bristol,
            "old" => Format::OldBristol,
            other => {
                return Err(input(format!(
                    "unknown circuit format `{other}` (auto, bristol or old)"
                )))
            }
        };
        let circuit = huddle_circuit::read_circuit_file(&path, format)
            .map_err(|e| input(format!("{}: {e}", path.display())))?;
        let at = interface_path(&path);
        match at.exists() {
            true => with_interface(circuit, &at),
            false => Ok(Circuit::new(circuit)),
        }
    }

    /// Writes Bristol Fashion, or huddle's arithmetic format if the circuit
    /// has ring wires (docs/circuit-format.md); a compiled program's
    /// interface (JSON) goes to `<path>.interface.json` beside it.
    fn save(&self, path: PathBuf) -> PyResult<()> {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
        huddle_circuit::write_circuit(&self.inner, &mut out)?;
        out.flush()?;
        if let Some(interface) = &self.interface {
            std::fs::write(interface_path(&path), interface.to_json())?;
        }
        Ok(())
    }

    /// Gate counts as `huddle circuit stats --json` prints them: gates,
    /// wires, and_depth, and_by_fanin, xor, inv, ..., and for ring
    /// circuits an "arithmetic" dict (ring_bits, mul_by_fanin, a2b, ...).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json(py, &Stats::of(&self.inner))
    }

    /// A Boolean circuit rewritten with ANDs of at most `fanin` inputs (2
    /// to 16) to lower its AND-depth: to the least depth the search finds,
    /// or to `depth` if larger. Never deeper than the circuit given. A
    /// compiled program keeps its interface.
    #[pyo3(signature = (fanin = 4, depth = None))]
    fn optimize(&self, py: Python<'_>, fanin: usize, depth: Option<u32>) -> PyResult<Circuit> {
        let inner = self.inner.clone();
        let circuit = py
            .detach(move || huddle_circuit::optimize::optimize(&inner, fanin, depth))
            .map_err(input)?;
        let Some(interface) = &self.interface else {
            return Ok(Circuit::new(circuit));
        };
        // The rewrite keeps every input and output value as it was.
        let program = CompiledProgram::from_parts(circuit, (**interface).clone())
            .map_err(|e| crate::errors::InternalError::new_err(format!("optimize: {e}")))?;
        let (circuit, interface) = program.into_parts();
        Ok(Circuit::program(circuit, interface))
    }

    /// SHA-256 of the circuit's canonical form, in hex: what the parties of
    /// a run compare at connect. For a compiled program, of the circuit's
    /// canonical form and the interface together.
    fn hash(&self) -> String {
        let hash = match &self.interface {
            None => huddle_engine::circuit_hash(&self.inner),
            Some(interface) => huddle_engine::program_hash(&self.inner, interface),
        };
        hash.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// A compiled program's interface (its JSON as a dict: parties,
    /// ring_bits, inputs, publics, outputs with their types, shapes and
    /// receivers, owners), else None.
    #[getter]
    fn interface<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.interface.as_ref().map(|i| json(py, &**i)).transpose()
    }

    /// Whether the circuit is a compiled program (has an interface).
    #[getter]
    fn is_program(&self) -> bool {
        self.interface.is_some()
    }

    /// The input values, in order: dicts of name, domain ("bits" or
    /// "ring"), wires and bits.
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let c = &self.inner;
        c.inputs()
            .iter()
            .map(|v| describe(py, c, &v.name, v.domain, v.wires as usize))
            .collect()
    }

    /// The output values, in order, as `inputs`.
    #[getter]
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let c = &self.inner;
        c.outputs()
            .iter()
            .map(|v| describe(py, c, &v.name, v.domain, v.wires.len()))
            .collect()
    }

    /// k of the ring Z_2^k of the arithmetic wires, or None for a Boolean circuit.
    #[getter]
    fn ring(&self) -> Option<u32> {
        self.inner.ring().map(|r| r.bits())
    }

    /// Gate lines.
    #[getter]
    fn gates(&self) -> usize {
        self.inner.gates().len()
    }

    fn __repr__(&self) -> String {
        let c = &self.inner;
        let kind = match c.ring() {
            None => "Boolean".to_string(),
            Some(r) => format!("Z_2^{}", r.bits()),
        };
        let program = match self.interface {
            Some(_) => " program",
            None => "",
        };
        format!(
            "<huddle.Circuit{program} {kind}, {} gates, {} inputs, {} outputs>",
            c.gates().len(),
            c.inputs().len(),
            c.outputs().len()
        )
    }
}

/// A serializable value as Python data, through its JSON (the CLI's
/// `--json` form, so both show the same keys).
pub(crate) fn json<'py, T: serde::Serialize>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value)
        .map_err(|e| crate::errors::InternalError::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
}
