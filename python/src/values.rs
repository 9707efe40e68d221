//! Values between numpy and the engine's [`BitMatrix`] (a row per
//! instance; bit j of a value on its j-th wire, a ring element's k bits
//! one after another: huddle_circuit::hex states the layout). How each
//! value of a circuit is written in Python is its [`Codec`].
//!
//! Given: a Boolean value as integers (a scalar, or one per instance; bit
//! j of the integer on wire j; negative integers as two's complement), as
//! `bytes` (one instance, big-endian, as the hex vectors read), or as bits
//! (a 2-D array instances × bits of 0/1, or a 1-D bool array: one
//! instance). A ring value as integers, instances × elements (1-D: the
//! instances of a one-element value, or the elements of one instance).
//! Returned: Boolean values as uint8 bits, instances × bits; ring values as
//! uint64, instances × elements.
//!
//! Arrays of any integer dtype or bool, any strides and byte order, are
//! read from their buffer in one pass without the GIL ([`crate::pack`]
//! does the bulk work); only Python ints go one by one.

use crate::errors::{input, InternalError};
use crate::pack::{self, Int, Refused};
use huddle_circuit::{BitMatrix, Circuit, Domain};
use num_bigint::BigInt;
use numpy::ndarray::Array2;
use numpy::{
    Element, IntoPyArray, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt};

/// How one value of a circuit looks from Python. A typed program adds its
/// own kinds (signed and fixed-point values) beside these.
#[derive(Clone, Debug)]
pub(crate) enum Codec {
    /// `bits` Boolean wires.
    Bits { bits: usize },
    /// `elems` elements of Z_2^`k`.
    Ring { elems: usize, k: usize },
}

impl Codec {
    /// The codec of a value of `circuit` of `wires` wires of `domain`.
    pub(crate) fn of(circuit: &Circuit, domain: Domain, wires: usize) -> Codec {
        match domain {
            Domain::Bit => Codec::Bits { bits: wires },
            Domain::Ring => Codec::Ring {
                elems: wires,
                k: circuit.ring().map_or(64, |r| r.bits() as usize),
            },
        }
    }

    /// The bits of one element: 1 for Boolean values (each bit is one).
    fn element_bits(&self) -> usize {
        match self {
            Codec::Bits { bits } => *bits,
            Codec::Ring { k, .. } => *k,
        }
    }

    /// Elements per instance.
    fn elements(&self) -> usize {
        match self {
            Codec::Bits { .. } => 1,
            Codec::Ring { elems, .. } => *elems,
        }
    }
}

/// Python's value `obj` for a value with codec `codec`, called `what` in
/// errors, as a matrix with a row per instance given.
pub(crate) fn to_matrix(obj: &Bound<'_, PyAny>, codec: &Codec, what: &str) -> PyResult<BitMatrix> {
    let py = obj.py();
    if let Ok(bytes) = obj.cast::<PyBytes>() {
        // One instance, big-endian, as `int.from_bytes(b, "big")`.
        let int_type = py.get_type::<PyInt>();
        let value = int_type.call_method1("from_bytes", (bytes, "big"))?;
        return to_matrix(&value, codec, what);
    }
    let array = match obj.cast::<PyUntypedArray>() {
        Ok(array) => array.clone(),
        Err(_) => py
            .import("numpy")?
            .call_method1("asarray", (obj,))?
            .cast_into::<PyUntypedArray>()?,
    };
    let kind = array.dtype().kind();
    let shape = array.shape().to_vec();
    let k = codec.element_bits();
    let job = match (codec, kind, shape.len()) {
        // Bits: a matrix of 0/1, or one instance's bools.
        (Codec::Bits { .. }, b'b' | b'i' | b'u', 2) | (Codec::Bits { .. }, b'b', 1) => {
            let (rows, cols) = match shape[..] {
                [rows, cols] => (rows, cols),
                _ => (1, shape[0]),
            };
            Job::Bits { rows, cols }
        }
        (_, b'b' | b'i' | b'u', 0 | 1) | (Codec::Ring { .. }, b'b' | b'i' | b'u', 2) => {
            let (rows, elems) = instances(codec, &shape, what)?;
            Job::Integers { rows, elems, k }
        }
        (_, b'O', 0 | 1) => {
            let (rows, elems) = instances(codec, &shape, what)?;
            return python_integers(&array, rows, elems, k, what);
        }
        _ => {
            return Err(input(format!(
            "{what}: expected integers or bits (0/1), got an array of dtype {} and shape {shape:?}",
            array.dtype().str()?
        )))
        }
    };
    let refused = |r: Refused| match r {
        Refused::NotABit(b) => input(format!("{what}: bits must be 0 or 1, got {b}")),
        Refused::TooWide(v) => input(format!("{what}: {v} does not fit in {k} bits")),
    };
    read_buffer(&array, kind, &job)?
        .map_err(refused)?
        .ok_or_else(|| InternalError::new_err(format!("{what}: a matrix of the wrong size")))
}

/// What is made of a numpy buffer: a matrix of its 0/1 bits, `rows` ×
/// `cols`; or of its integers, `rows` × `elems` elements of `k` bits.
enum Job {
    Bits { rows: usize, cols: usize },
    Integers { rows: usize, elems: usize, k: usize },
}

impl Job {
    fn run<T: Int>(&self, values: &[T]) -> Result<Option<BitMatrix>, Refused> {
        match *self {
            Job::Bits { rows, cols } => pack::bits(values, rows, cols).map(Some),
            Job::Integers { rows, elems, k } if k > 64 => {
                Ok(pack::rows(pack::wide_words(values, k), rows, elems, k))
            }
            Job::Integers { rows, elems, k } => {
                Ok(pack::rows(pack::words(values, k)?, rows, elems, k))
            }
        }
    }
}

/// `job` done on `array`'s buffer (dtype kind `kind`: b, i or u) with the
/// GIL released.
fn read_buffer(
    array: &Bound<'_, PyUntypedArray>,
    kind: u8,
    job: &Job,
) -> PyResult<Result<Option<BitMatrix>, Refused>> {
    if kind == b'b' {
        // numpy bools are bytes of 0/1: read as such (any other byte is
        // refused like a bit given as 2).
        let bytes = array.call_method1("view", ("uint8",))?.cast_into()?;
        return read_buffer(&bytes, b'u', job);
    }
    if let Some(done) = run_on_any(array, job) {
        return Ok(done);
    }
    // Strides, alignment or a byte order the typed views refuse: numpy
    // copies the array into a C-contiguous buffer of the same integers in
    // native byte order.
    let native = array.dtype().call_method1("newbyteorder", ("=",))?;
    let copy = array
        .py()
        .import("numpy")?
        .call_method1("ascontiguousarray", (array, native))?
        .cast_into::<PyUntypedArray>()?;
    run_on_any(&copy, job).ok_or_else(|| {
        InternalError::new_err(format!(
            "no integer buffer for an array of dtype {}",
            array.dtype()
        ))
    })
}

/// `job` on `array`'s buffer if it holds machine integers of one of
/// numpy's sizes, C-contiguous, aligned and in native byte order.
fn run_on_any(
    array: &Bound<'_, PyUntypedArray>,
    job: &Job,
) -> Option<Result<Option<BitMatrix>, Refused>> {
    run_on::<u8>(array, job)
        .or_else(|| run_on::<i8>(array, job))
        .or_else(|| run_on::<u16>(array, job))
        .or_else(|| run_on::<i16>(array, job))
        .or_else(|| run_on::<u32>(array, job))
        .or_else(|| run_on::<i32>(array, job))
        .or_else(|| run_on::<u64>(array, job))
        .or_else(|| run_on::<i64>(array, job))
}

/// `job` on `array`'s buffer if its elements are `T`s, C-contiguous and
/// aligned; else None.
fn run_on<T: Int + Element>(
    array: &Bound<'_, PyUntypedArray>,
    job: &Job,
) -> Option<Result<Option<BitMatrix>, Refused>> {
    let typed = array.cast::<PyArrayDyn<T>>().ok()?;
    if !typed.is_c_contiguous() {
        return None;
    }
    let view = typed.try_readonly().ok()?;
    let values = view.as_slice().ok()?;
    Some(array.py().detach(|| job.run(values)))
}

/// Instances and elements of integers of `shape` (see the module doc).
fn instances(codec: &Codec, shape: &[usize], what: &str) -> PyResult<(usize, usize)> {
    let elems = codec.elements();
    let (rows, got) = match *shape {
        [] => (1, 1),
        [n] if elems == 1 => (n, 1),
        [n] => (1, n),
        [r, c] => (r, c),
        _ => (0, 0),
    };
    if got != elems || rows == 0 {
        return Err(input(format!(
            "{what} takes {elems} element{} per instance, got an array of shape {shape:?}",
            if elems == 1 { "" } else { "s" }
        )));
    }
    Ok((rows, elems))
}

/// The Python ints of an object array, each as `k.div_ceil(64)` words.
fn python_integers(
    array: &Bound<'_, PyUntypedArray>,
    rows: usize,
    elems: usize,
    k: usize,
    what: &str,
) -> PyResult<BitMatrix> {
    let flat = array.call_method0("ravel")?;
    let mut words = Vec::with_capacity(rows * elems * k.div_ceil(64));
    for item in flat.try_iter()? {
        words.extend(wide_integer(&item?, k, what)?);
    }
    pack::rows(words, rows, elems, k)
        .ok_or_else(|| InternalError::new_err(format!("{what}: a matrix of the wrong size")))
}

/// A Python int as `bits.div_ceil(64)` little-endian words, two's
/// complement if negative; refused unless -2^(bits-1) <= v < 2^bits.
fn wide_integer(item: &Bound<'_, PyAny>, bits: usize, what: &str) -> PyResult<Vec<u64>> {
    let value: BigInt = item.extract().map_err(|_| {
        input(format!(
            "{what}: expected integers, got {}",
            item.repr().map_or_else(|_| "?".into(), |r| r.to_string())
        ))
    })?;
    let low = -(BigInt::from(1) << (bits - 1));
    let high = BigInt::from(1) << bits;
    if value < low || value >= high {
        return Err(input(format!(
            "{what}: {value} does not fit in {bits} bits"
        )));
    }
    let value = if value < BigInt::from(0) {
        value + &high
    } else {
        value
    };
    let (_, mut words) = value.to_u64_digits();
    words.resize(bits.div_ceil(64), 0);
    Ok(words)
}

/// An output value as numpy: bits (uint8, instances × bits) or ring
/// elements (uint64, instances × elements), filled with the GIL released.
pub(crate) fn to_numpy<'py>(
    py: Python<'py>,
    m: &BitMatrix,
    codec: &Codec,
) -> PyResult<Bound<'py, PyAny>> {
    let rows = m.rows();
    Ok(match codec {
        Codec::Bits { bits } => {
            let mut out = zeros(rows, *bits)?;
            py.detach(|| pack::bytes_of_bits(m, &mut out));
            array(py, rows, *bits, out)?
        }
        Codec::Ring { elems, k } => {
            let out = py.detach(|| pack::elements(m, *elems, *k));
            array(py, rows, *elems, out)?
        }
    })
}

/// A zeroed buffer of `rows` × `cols`. It comes from the allocator huddle
/// set, not numpy's: numpy asks for huge pages, and a first touch of those
/// stalls for as long as the system takes to find and clear 2 MiB, which
/// after a large run was longer than the faults of 4 KiB pages.
fn zeros<T: Default + Clone>(rows: usize, cols: usize) -> PyResult<Vec<T>> {
    let len = rows
        .checked_mul(cols)
        .ok_or_else(|| InternalError::new_err("an output array too large to address"))?;
    Ok(vec![T::default(); len])
}

/// `values` as a `rows` × `cols` numpy array, without a copy.
fn array<'py, T: Element>(
    py: Python<'py>,
    rows: usize,
    cols: usize,
    values: Vec<T>,
) -> PyResult<Bound<'py, PyAny>> {
    let array = Array2::from_shape_vec((rows, cols), values)
        .map_err(|e| InternalError::new_err(e.to_string()))?;
    Ok(array.into_pyarray(py).into_any())
}

/// An output value as integers: a Boolean value one integer per instance
/// (uint64/int64 up to 64 bits, else an object array of Python ints); a
/// ring value uint64/int64, instances × elements. `signed`: two's
/// complement (of the value's bits, of each ring element's k).
pub(crate) fn to_integers<'py>(
    py: Python<'py>,
    m: &BitMatrix,
    codec: &Codec,
    signed: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let rows = m.rows();
    let (elems, k) = (codec.elements(), codec.element_bits());
    if k > 64 {
        let mut ints = Vec::with_capacity(rows);
        for r in 0..rows {
            let words: Vec<u64> = (0..k.div_ceil(64))
                .map(|i| pack::get(m.row(r), i * 64, (k - i * 64).min(64)))
                .collect();
            // BigUint takes 32-bit digits, least significant first.
            let mut value = BigInt::from(num_bigint::BigUint::from_slice(
                &words
                    .iter()
                    .flat_map(|w| [*w as u32, (*w >> 32) as u32])
                    .collect::<Vec<_>>(),
            ));
            if signed && value >= BigInt::from(1) << (k - 1) {
                value -= BigInt::from(1) << k;
            }
            ints.push(value);
        }
        let numpy = py.import("numpy")?;
        return numpy.call_method1("array", (ints, "object"));
    }
    let words = py.detach(|| pack::elements(m, elems, k));
    // A Boolean value: one integer per instance.
    let cols = if matches!(codec, Codec::Bits { .. }) {
        None
    } else {
        Some(elems)
    };
    if signed {
        let unused = 64 - k;
        let values: Vec<i64> = py.detach(|| {
            words
                .into_iter()
                .map(|v| ((v << unused) as i64) >> unused)
                .collect()
        });
        return match cols {
            None => Ok(values.into_pyarray(py).into_any()),
            Some(c) => array(py, rows, c, values),
        };
    }
    match cols {
        None => Ok(words.into_pyarray(py).into_any()),
        Some(c) => array(py, rows, c, words),
    }
}

/// `m` with its one row repeated `rows` times (a value given once for a
/// batch of instances).
pub(crate) fn repeat(m: &BitMatrix, rows: usize) -> BitMatrix {
    let words = m.row(0).repeat(rows);
    BitMatrix::from_row_words(rows, m.cols(), words).unwrap_or_else(|| m.clone())
}
