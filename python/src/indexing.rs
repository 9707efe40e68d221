//! Indexing a secret value as numpy indexes an array: `v[i]`, `v[i, j]`,
//! `v[a:b:s]`, `v[:, j]`, negative positions from the end. Public
//! positions only; only wires move (the program layer's `index` and
//! `stack`), so indexing costs no gates.

use crate::errors::program_misuse;
use crate::program::Program;
use crate::secret::Value;
use huddle_circuit::program::{ErrorKind, Program as Inner, ProgramError, Value as InnerValue};
use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PySlice, PySliceMethods, PyTuple};

/// What one index picks along its axis.
enum Pick {
    /// One position: the axis goes away.
    At(usize),
    /// Positions in order: the axis stays.
    Many(Vec<usize>),
}

/// `v[key]`.
pub(crate) fn item(
    program: &Program,
    py: Python<'_>,
    v: &InnerValue,
    key: &Bound<'_, PyAny>,
) -> PyResult<InnerValue> {
    let dims = v.shape().dims();
    if dims.is_empty() {
        return Err(PyTypeError::new_err(format!(
            "a scalar huddle.Value ({}) cannot be indexed",
            v.ty()
        )));
    }
    let keys: Vec<Bound<'_, PyAny>> = match key.cast::<PyTuple>() {
        Ok(t) => t.iter().collect(),
        Err(_) => vec![key.clone()],
    };
    if keys.len() > dims.len() {
        return Err(PyIndexError::new_err(format!(
            "{} indices for a value of shape {}",
            keys.len(),
            v.shape()
        )));
    }
    let picks = keys
        .iter()
        .zip(&dims)
        .map(|(k, &n)| pick(py, k, n))
        .collect::<PyResult<Vec<_>>>()?;
    program.build(py, |b| select(&mut b.program, v, &picks))
}

fn pick(py: Python<'_>, key: &Bound<'_, PyAny>, n: usize) -> PyResult<Pick> {
    if let Ok(slice) = key.cast::<PySlice>() {
        let len = isize::try_from(n).map_err(|e| PyIndexError::new_err(e.to_string()))?;
        let s = slice.indices(len)?;
        let positions: Vec<usize> = (0..s.slicelength)
            .map(|k| (s.start + k as isize * s.step) as usize)
            .collect();
        if positions.is_empty() {
            return Err(program_misuse(
                py,
                ErrorKind::Shape,
                format!(
                    "the slice {} selects no element of an axis of {n}",
                    key.repr()?
                ),
            ));
        }
        return Ok(Pick::Many(positions));
    }
    if key.cast::<Value>().is_ok() {
        return Err(PyTypeError::new_err(
            "a secret value cannot be an index (positions are public ints); to choose \
             between values use huddle.select(cond, a, b)",
        ));
    }
    let i: i64 = key.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "indices are ints or slices, not {}",
            crate::types::type_name(key)
        ))
    })?;
    let at = if i < 0 { i + n as i64 } else { i };
    if at < 0 || at >= n as i64 {
        return Err(PyIndexError::new_err(format!(
            "index {i} is out of range for an axis of {n}"
        )));
    }
    Ok(Pick::At(at as usize))
}

/// The elements of `v` that `picks` (one per leading axis) choose.
fn select(p: &mut Inner, v: &InnerValue, picks: &[Pick]) -> Result<InnerValue, ProgramError> {
    let Some((first, rest)) = picks.split_first() else {
        return Ok(v.clone());
    };
    match first {
        Pick::At(i) => {
            let sub = p.index(v, *i)?;
            select(p, &sub, rest)
        }
        Pick::Many(positions) => {
            let parts = positions
                .iter()
                .map(|&i| {
                    let sub = p.index(v, i)?;
                    select(p, &sub, rest)
                })
                .collect::<Result<Vec<_>, _>>()?;
            p.stack(&parts)
        }
    }
}
