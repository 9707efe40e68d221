//! A compiled program's numbers between numpy and the program layer's
//! [`Data`]: one input or public parameter as Python gives it (one
//! instance of its shape, or instances × shape; a variable-length input
//! as n ≤ max rows, or a list of such, one per instance), and one output
//! as a typed numpy array of shape (instances,) + its shape: bits as bool,
//! unsigned as uint64, signed and ring integers as int64, fixed point as
//! float64. Encoding and its checks are the program layer's
//! ([`huddle_circuit::program::PartyInputs`]).

use crate::errors::input;
use huddle_circuit::program::{Data, Shape};
use numpy::{IntoPyArray, PyArrayDyn, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PyTuple};

/// One input or public parameter's numbers, instance after instance.
pub(crate) struct Given {
    pub(crate) data: Data,
    /// Rows per instance of a variable-length input; else None.
    pub(crate) rows: Option<Vec<usize>>,
    /// The instances given.
    pub(crate) instances: usize,
}

impl Given {
    /// The value of `batch` instances: as given, or its one instance repeated.
    pub(crate) fn for_batch(self, batch: usize, what: &str) -> PyResult<Given> {
        if self.instances == batch {
            return Ok(self);
        }
        if self.instances != 1 {
            return Err(input(format!(
                "{what}: {} instances given, the batch is {batch}",
                self.instances
            )));
        }
        Ok(Given {
            data: repeat(&self.data, batch),
            rows: self.rows.map(|r| vec![r[0]; batch]),
            instances: batch,
        })
    }
}

fn repeat(data: &Data, times: usize) -> Data {
    match data {
        Data::Bools(v) => Data::Bools(v.repeat(times)),
        Data::Ints(v) => Data::Ints(v.repeat(times)),
        Data::UInts(v) => Data::UInts(v.repeat(times)),
        Data::Floats(v) => Data::Floats(v.repeat(times)),
    }
}

/// A value of `shape`: one instance (an array of that shape) or several
/// (instances × shape). `what` names it in errors.
pub(crate) fn fixed(obj: &Bound<'_, PyAny>, shape: Shape, what: &str) -> PyResult<Given> {
    let (data, dims) = numbers(obj, what)?;
    let want = shape.dims();
    let instances = if dims == want {
        1
    } else if dims.len() == want.len() + 1 && dims[1..] == want[..] {
        dims[0]
    } else {
        return Err(input(format!(
            "{what}: an array of shape {} is neither one instance {shape} nor instances × {shape}",
            shown(&dims)
        )));
    };
    Ok(Given {
        data,
        rows: None,
        instances,
    })
}

/// A variable-length value of rows of `row` (a scalar or `(columns,)`):
/// one instance (an array of n rows) or several (a list of such, one per
/// instance, or an array with an axis of instances first).
pub(crate) fn rows(obj: &Bound<'_, PyAny>, row: &[usize], what: &str) -> PyResult<Given> {
    let wrong = || {
        input(format!(
            "{what}: takes n rows of shape {} (an array of shape (n,) + that), or a list \
             of such, one per instance",
            shown(row)
        ))
    };
    let listed = obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>();
    let regular = match numbers(obj, what) {
        Ok(numbers) => Some(numbers),
        // Ragged lists: one per instance, each read below.
        Err(_) if listed => None,
        Err(e) => return Err(e),
    };
    if let Some((data, dims)) = regular {
        if let Some(n) = row_count(&dims, row) {
            return Ok(Given {
                data,
                rows: Some(vec![n]),
                instances: 1,
            });
        }
        // Instances × rows × row: every instance gives as many rows.
        if dims.len() == row.len() + 2 && dims[2..] == row[..] {
            return Ok(Given {
                data,
                rows: Some(vec![dims[1]; dims[0]]),
                instances: dims[0],
            });
        }
        if !listed {
            return Err(wrong());
        }
    }
    let mut parts = Vec::new();
    let mut counts = Vec::new();
    for item in obj.try_iter()? {
        let (data, dims) = numbers(&item?, what)?;
        counts.push(row_count(&dims, row).ok_or_else(wrong)?);
        parts.push(data);
    }
    if counts.is_empty() {
        return Err(wrong());
    }
    Ok(Given {
        data: concat(parts, what)?,
        instances: counts.len(),
        rows: Some(counts),
    })
}

/// The rows of one instance's array of shape `dims`, if it holds rows of
/// `row` (an empty array holds none).
fn row_count(dims: &[usize], row: &[usize]) -> Option<usize> {
    match dims.split_first() {
        Some((&n, rest)) if rest == row => Some(n),
        Some((&0, [])) => Some(0),
        _ => None,
    }
}

fn empty_like(data: &Data) -> Data {
    match data {
        Data::Bools(_) => Data::Bools(Vec::new()),
        Data::Ints(_) => Data::Ints(Vec::new()),
        Data::UInts(_) => Data::UInts(Vec::new()),
        Data::Floats(_) => Data::Floats(Vec::new()),
    }
}

/// The instances' numbers one after another, in one kind: integers of
/// mixed signedness as Ints where they fit, else as given.
fn concat(parts: Vec<Data>, what: &str) -> PyResult<Data> {
    let mut parts = parts.into_iter().filter(|d| !d.is_empty()).peekable();
    let Some(first) = parts.peek() else {
        return Ok(Data::Ints(Vec::new()));
    };
    let mut out = empty_like(first);
    for part in parts {
        out = match (out, part) {
            (Data::Bools(mut a), Data::Bools(b)) => {
                a.extend(b);
                Data::Bools(a)
            }
            (Data::Ints(mut a), Data::Ints(b)) => {
                a.extend(b);
                Data::Ints(a)
            }
            (Data::UInts(mut a), Data::UInts(b)) => {
                a.extend(b);
                Data::UInts(a)
            }
            (Data::Floats(mut a), Data::Floats(b)) => {
                a.extend(b);
                Data::Floats(a)
            }
            _ => {
                return Err(input(format!(
                    "{what}: give every instance's rows as numbers of one kind \
                     (ints, bools or floats)"
                )))
            }
        };
    }
    Ok(out)
}

/// The numbers of `obj` (flat, row-major) and numpy's shape of it.
pub(crate) fn numbers(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<(Data, Vec<usize>)> {
    let numpy = obj.py().import("numpy")?;
    let array = numpy
        .call_method1("asarray", (obj,))
        .map_err(|e| input(format!("{what}: not an array of numbers ({e})")))?;
    let dims: Vec<usize> = array.getattr("shape")?.extract()?;
    let mut kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    // numpy reads a plain list mixing ints below 2^63 with ints from 2^63 up
    // as float64, which would round them: read such a list as Python's ints.
    let mut array = array;
    if kind == "f" && !obj.is_instance(&numpy.getattr("ndarray")?)? {
        let objects = numpy.call_method1("asarray", (obj, "object"))?;
        if all_ints(&objects)? {
            array = objects;
            kind = "O".into();
        }
    }
    let flat = |dtype: &str| -> PyResult<Bound<'_, PyAny>> {
        numpy.call_method1("ascontiguousarray", (array.call_method0("ravel")?, dtype))
    };
    let data = match kind.as_str() {
        "b" => Data::Bools(slice::<bool>(&flat("bool")?)?),
        "i" => Data::Ints(slice::<i64>(&flat("int64")?)?),
        "u" => Data::UInts(slice::<u64>(&flat("uint64")?)?),
        "f" => Data::Floats(slice::<f64>(&flat("float64")?)?),
        // Python ints beyond int64 (numpy keeps them as objects).
        "O" => match (flat("int64"), flat("uint64")) {
            (Ok(a), _) => Data::Ints(slice::<i64>(&a)?),
            (_, Ok(a)) => Data::UInts(slice::<u64>(&a)?),
            _ => {
                return Err(input(format!(
                    "{what}: expected numbers that fit 64 bits, got {}",
                    obj.repr()?
                )))
            }
        },
        _ => {
            return Err(input(format!(
                "{what}: expected numbers, got an array of dtype {}",
                array.getattr("dtype")?.str()?
            )))
        }
    };
    Ok((data, dims))
}

/// Whether every element of an object array is an integer (Python's or numpy's).
fn all_ints(objects: &Bound<'_, PyAny>) -> PyResult<bool> {
    let integer = objects.py().import("numpy")?.getattr("integer")?;
    for item in objects.call_method0("ravel")?.try_iter()? {
        let item = item?;
        if !(item.is_instance_of::<PyInt>() || item.is_instance(&integer)?) {
            return Ok(false);
        }
    }
    Ok(true)
}

fn slice<T: numpy::Element + Copy>(array: &Bound<'_, PyAny>) -> PyResult<Vec<T>> {
    let array = array.cast::<PyArrayDyn<T>>()?.readonly();
    Ok(array.as_slice()?.to_vec())
}

/// `data` (the numbers of `batch` instances) as a numpy array of shape
/// (batch,) + `shape`, typed as the module documentation says.
pub(crate) fn to_numpy<'py>(
    py: Python<'py>,
    data: Data,
    batch: usize,
    shape: Shape,
) -> PyResult<Bound<'py, PyAny>> {
    let mut dims = vec![batch];
    dims.extend(shape.dims());
    let flat = match data {
        Data::Bools(v) => v.into_pyarray(py).into_any(),
        Data::Ints(v) => v.into_pyarray(py).into_any(),
        Data::UInts(v) => v.into_pyarray(py).into_any(),
        Data::Floats(v) => v.into_pyarray(py).into_any(),
    };
    flat.call_method1("reshape", (dims,))
}

/// A shape as Python writes it: (), (3,), (2, 3).
pub(crate) fn shown(dims: &[usize]) -> String {
    match dims {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            dims.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
