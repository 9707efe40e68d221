//! What a caller runs ([`Runnable`]) and a circuit's input values from
//! Python: a list (one per input value, in order) or a dict keyed by input
//! value name or by owning party, each value given once; values given for
//! one instance are repeated over the batch. (A program's inputs:
//! program_run.rs.)

use crate::circuit::Circuit;
use crate::errors::input;
use crate::program::Program;
use crate::values::{repeat, to_matrix, Codec};
use huddle_circuit::program::Interface;
use huddle_circuit::{BitMatrix, Circuit as Inner};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::sync::Arc;

/// A circuit with the codecs of its values, and a compiled program's
/// interface (its values then go by name and type: program_run.rs), so
/// everything that takes a `Circuit` takes a program through
/// [`Runnable::extract`].
pub(crate) struct Runnable {
    pub(crate) circuit: Arc<Inner>,
    pub(crate) inputs: Vec<Codec>,
    pub(crate) outputs: Vec<Codec>,
    pub(crate) interface: Option<Arc<Interface>>,
}

impl Runnable {
    /// The runnable behind a Python object: a `huddle.Circuit`, or a
    /// `huddle.Program` (compiled on its first run, once).
    pub(crate) fn extract(obj: &Bound<'_, PyAny>) -> PyResult<Runnable> {
        let circuit = match obj.cast::<Program>() {
            Ok(program) => program.get().compiled(obj.py())?,
            Err(_) => obj
                .cast::<Circuit>()
                .map_err(|_| {
                    pyo3::exceptions::PyTypeError::new_err(format!(
                        "expected a huddle.Circuit or huddle.Program, got {}",
                        crate::types::type_name(obj)
                    ))
                })?
                .get()
                .clone(),
        };
        let c = circuit.inner;
        Ok(Runnable {
            inputs: c
                .inputs()
                .iter()
                .map(|v| Codec::of(&c, v.domain, v.wires as usize))
                .collect(),
            outputs: c
                .outputs()
                .iter()
                .map(|v| Codec::of(&c, v.domain, v.wires.len()))
                .collect(),
            circuit: c,
            interface: circuit.interface,
        })
    }

    /// The input values' matrices from `given` (see the module doc);
    /// `owner` maps an input value to its party, where party keys are
    /// allowed. `batch`: the instances, else the most any value gives.
    pub(crate) fn gather<'py>(
        &self,
        given: &Bound<'py, PyAny>,
        owner: Option<&dyn Fn(usize) -> usize>,
        batch: Option<usize>,
    ) -> PyResult<Vec<BitMatrix>> {
        let values = self.circuit.inputs();
        let mut slots: Vec<Option<Bound<'py, PyAny>>> = vec![None; values.len()];
        let mut place = |i: usize, v: Bound<'py, PyAny>| -> PyResult<()> {
            match slots[i].replace(v) {
                None => Ok(()),
                Some(_) => Err(input(format!(
                    "input value {i} (`{}`) is given twice",
                    values[i].name
                ))),
            }
        };
        if let Ok(dict) = given.cast::<PyDict>() {
            for (key, value) in dict.iter() {
                if let Ok(name) = key.extract::<String>() {
                    let i = values.iter().position(|v| v.name == name).ok_or_else(|| {
                        input(format!(
                            "the circuit has no input value `{name}` (it has: {})",
                            names(&self.circuit)
                        ))
                    })?;
                    place(i, value)?;
                    continue;
                }
                let party: usize = key.extract().map_err(|_| {
                    input("inputs are keyed by party (int) or input value name (str)")
                })?;
                let owner = owner.ok_or_else(|| {
                    input("the owners of input values depend on the protocol: key the inputs by name or give a list")
                })?;
                let owned: Vec<usize> = (0..values.len()).filter(|&i| owner(i) == party).collect();
                match owned.len() {
                    0 => {
                        return Err(input(format!(
                            "party {party} owns no input value of this run"
                        )))
                    }
                    1 => place(owned[0], value)?,
                    n => {
                        let list =
                            as_sequence(&value)
                                .filter(|l| l.len() == n)
                                .ok_or_else(|| {
                                    input(format!(
                                    "party {party} owns {n} input values ({}): give a list of {n}",
                                    owned
                                        .iter()
                                        .map(|&i| format!("`{}`", values[i].name))
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ))
                                })?;
                        for (&i, v) in owned.iter().zip(list) {
                            place(i, v)?;
                        }
                    }
                }
            }
        } else if let Some(list) = as_sequence(given) {
            if list.len() != values.len() {
                return Err(input(format!(
                    "the circuit takes {} input values ({}), but {} were given",
                    values.len(),
                    names(&self.circuit),
                    list.len()
                )));
            }
            for (i, v) in list.into_iter().enumerate() {
                place(i, v)?;
            }
        } else {
            return Err(input(
                "inputs are a list (one per input value) or a dict keyed by party or name",
            ));
        }
        let mut matrices = Vec::with_capacity(values.len());
        for (i, slot) in slots.into_iter().enumerate() {
            let what = format!("input value {i} (`{}`)", values[i].name);
            let value = slot.ok_or_else(|| input(format!("{what} is not given")))?;
            matrices.push(to_matrix(&value, &self.inputs[i], &what)?);
        }
        let batch =
            batch.unwrap_or_else(|| matrices.iter().map(BitMatrix::rows).max().unwrap_or(1));
        // One instance given: the same for every instance. Other counts
        // that differ from the batch are the engine's to refuse.
        Ok(matrices
            .into_iter()
            .map(|m| {
                if m.rows() == 1 && batch != 1 {
                    repeat(&m, batch)
                } else {
                    m
                }
            })
            .collect())
    }
}

impl Runnable {
    /// The values of one party that owns input values `owned`: the value
    /// itself where it owns one, a list of them in order where it owns
    /// several, or a dict by name; None where it owns none. Rows as in
    /// [`Runnable::gather`].
    pub(crate) fn gather_owned(
        &self,
        given: Option<&Bound<'_, PyAny>>,
        owned: &[usize],
        batch: Option<usize>,
    ) -> PyResult<Vec<(usize, BitMatrix)>> {
        let values = self.circuit.inputs();
        let listed = |i: &usize| format!("`{}`", values[*i].name);
        let own_names = owned.iter().map(listed).collect::<Vec<_>>().join(", ");
        let mut slots: Vec<(usize, Option<Bound<'_, PyAny>>)> =
            owned.iter().map(|&i| (i, None)).collect();
        match given {
            None if owned.is_empty() => return Ok(Vec::new()),
            None => return Err(input(format!("this party owns {own_names}: give them"))),
            Some(g) if owned.is_empty() => {
                return Err(input(format!(
                    "this party owns no input value of this run, but inputs were given: {}",
                    g.repr()?
                )))
            }
            Some(g) => {
                if let Ok(dict) = g.cast::<PyDict>() {
                    for (key, value) in dict.iter() {
                        let name: String = key.extract()?;
                        let slot = slots
                            .iter_mut()
                            .find(|(i, _)| values[*i].name == name)
                            .ok_or_else(|| {
                                input(format!(
                                    "`{name}` is not an input value of this party ({own_names})"
                                ))
                            })?;
                        slot.1 = Some(value);
                    }
                } else if owned.len() == 1 {
                    slots[0].1 = Some(g.clone());
                } else {
                    let list = as_sequence(g).filter(|l| l.len() == owned.len()).ok_or_else(|| {
                        input(format!(
                            "this party owns {} input values ({own_names}): give a list of them or a dict by name",
                            owned.len()
                        ))
                    })?;
                    for (slot, v) in slots.iter_mut().zip(list) {
                        slot.1 = Some(v);
                    }
                }
            }
        }
        let mut matrices = Vec::with_capacity(slots.len());
        for (i, value) in slots {
            let what = format!("input value {i} (`{}`)", values[i].name);
            let value = value.ok_or_else(|| input(format!("{what} is not given")))?;
            matrices.push((i, to_matrix(&value, &self.inputs[i], &what)?));
        }
        let batch =
            batch.unwrap_or_else(|| matrices.iter().map(|(_, m)| m.rows()).max().unwrap_or(1));
        Ok(matrices
            .into_iter()
            .map(|(i, m)| {
                (
                    i,
                    if m.rows() == 1 && batch != 1 {
                        repeat(&m, batch)
                    } else {
                        m
                    },
                )
            })
            .collect())
    }
}

/// A list or tuple's items (not a string, bytes or array).
fn as_sequence<'py>(obj: &Bound<'py, PyAny>) -> Option<Vec<Bound<'py, PyAny>>> {
    if let Ok(l) = obj.cast::<PyList>() {
        return Some(l.iter().collect());
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return Some(t.iter().collect());
    }
    None
}

fn names(c: &Inner) -> String {
    c.inputs()
        .iter()
        .map(|v| format!("`{}`", v.name))
        .collect::<Vec<_>>()
        .join(", ")
}
