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

use crate::errors::input;
use huddle_circuit::{BitMatrix, Circuit, Domain};
use num_bigint::BigInt;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArrayDyn, PyArrayMethods};
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

    /// Bits of one instance.
    fn row_bits(&self) -> usize {
        self.element_bits() * self.elements()
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
    let numpy = py.import("numpy")?;
    let array = numpy.call_method1("asarray", (obj,))?;
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    let ndim: usize = array.getattr("ndim")?.extract()?;
    let shape: Vec<usize> = array.getattr("shape")?.extract()?;
    match (codec, kind.as_str(), ndim) {
        // Bits: a matrix of 0/1, or one instance's bools.
        (Codec::Bits { .. }, "b" | "i" | "u", 2) | (Codec::Bits { .. }, "b", 1) => {
            let (rows, cols) = if ndim == 2 {
                (shape[0], shape[1])
            } else {
                (1, shape[0])
            };
            let bits = numpy.call_method1("ascontiguousarray", (array, "uint8"))?;
            bits_matrix(&bits.cast_into::<PyArrayDyn<u8>>()?, rows, cols, what)
        }
        (_, "b" | "i" | "u", 0 | 1) if codec.element_bits() > 64 => {
            // Wider than a machine word: as Python ints, sign-extended.
            let objects = array.call_method1("astype", ("object",))?;
            to_matrix(&objects, codec, what)
        }
        (_, "b" | "i" | "u", 0 | 1) | (Codec::Ring { .. }, "b" | "i" | "u", 2) => {
            let (rows, elems) = instances(codec, &shape, what)?;
            let words = machine_integers(&numpy, &array, &kind, codec.element_bits(), what)?;
            Ok(pack(&words, rows, elems, codec))
        }
        (_, "O", 0 | 1) => {
            let (rows, elems) = instances(codec, &shape, what)?;
            let flat = array.call_method0("ravel")?;
            let mut words = Vec::with_capacity(rows * elems);
            for item in flat.try_iter()? {
                words.push(wide_integer(&item?, codec.element_bits(), what)?);
            }
            Ok(pack_wide(&words, rows, elems, codec))
        }
        _ => Err(input(format!(
            "{what}: expected integers or bits (0/1), got an array of dtype {} and shape {shape:?}",
            array.getattr("dtype")?.str()?
        ))),
    }
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

/// Integers of a numpy integer array as words below 2^`bits` (at most 64
/// bits; wider Boolean values come as Python ints or bits).
fn machine_integers(
    numpy: &Bound<'_, PyModule>,
    array: &Bound<'_, PyAny>,
    kind: &str,
    bits: usize,
    what: &str,
) -> PyResult<Vec<u64>> {
    let flat = numpy.call_method1("ravel", (array,))?;
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let too_wide =
        |v: &dyn std::fmt::Display| input(format!("{what}: {v} does not fit in {bits} bits"));
    if kind == "i" {
        let values = numpy.call_method1("ascontiguousarray", (flat, "int64"))?;
        let values = values.cast_into::<PyArrayDyn<i64>>()?.readonly();
        // -2^(bits-1) <= v < 2^bits: signed or unsigned, as the caller means it.
        let (low, high) = (-(1i128 << (bits - 1)), 1i128 << bits);
        values
            .as_slice()?
            .iter()
            .map(|&v| match i128::from(v) {
                w if w < low || w >= high => Err(too_wide(&v)),
                _ => Ok(v as u64 & mask),
            })
            .collect()
    } else {
        let values = numpy.call_method1("ascontiguousarray", (flat, "uint64"))?;
        let values = values.cast_into::<PyArrayDyn<u64>>()?.readonly();
        values
            .as_slice()?
            .iter()
            .map(|&v| {
                if v & !mask != 0 {
                    Err(too_wide(&v))
                } else {
                    Ok(v)
                }
            })
            .collect()
    }
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

/// A matrix of 0/1 bytes, `rows` × `cols`.
fn bits_matrix(
    array: &Bound<'_, PyArrayDyn<u8>>,
    rows: usize,
    cols: usize,
    what: &str,
) -> PyResult<BitMatrix> {
    let array = array.readonly();
    let bytes = array.as_slice()?;
    let mut m = BitMatrix::zeros(rows, cols);
    for (r, row) in bytes.chunks(cols.max(1)).enumerate().take(rows) {
        for (c, &b) in row.iter().enumerate() {
            match b {
                0 => {}
                1 => m.set(r, c, true),
                _ => return Err(input(format!("{what}: bits must be 0 or 1, got {b}"))),
            }
        }
    }
    Ok(m)
}

/// Elements of at most 64 bits, row-major, into rows of `codec`'s bits.
fn pack(words: &[u64], rows: usize, elems: usize, codec: &Codec) -> BitMatrix {
    let k = codec.element_bits();
    let mut m = BitMatrix::zeros(rows, codec.row_bits());
    if k == 64 {
        for (r, values) in words.chunks(elems).enumerate() {
            m.row_mut(r).copy_from_slice(values);
        }
        return m;
    }
    for (r, values) in words.chunks(elems).enumerate() {
        let row = m.row_mut(r);
        for (e, &v) in values.iter().enumerate() {
            put(row, e * k, v, k);
        }
    }
    m
}

/// [`pack`] of elements of any width, each as its words.
fn pack_wide(words: &[Vec<u64>], rows: usize, elems: usize, codec: &Codec) -> BitMatrix {
    let k = codec.element_bits();
    let mut m = BitMatrix::zeros(rows, codec.row_bits());
    for (r, values) in words.chunks(elems).enumerate() {
        let row = m.row_mut(r);
        for (e, value) in values.iter().enumerate() {
            for (i, &w) in value.iter().enumerate() {
                let len = (k - i * 64).min(64);
                put(row, e * k + i * 64, w, len);
            }
        }
    }
    m
}

/// Writes the `len` (<= 64) low bits of `v` into `row` from bit `at`.
fn put(row: &mut [u64], at: usize, v: u64, len: usize) {
    let (word, shift) = (at / 64, at % 64);
    row[word] |= v << shift;
    if shift != 0 && shift + len > 64 {
        row[word + 1] |= v >> (64 - shift);
    }
}

/// The `len` (<= 64) bits of `row` from bit `at`.
fn get(row: &[u64], at: usize, len: usize) -> u64 {
    let (word, shift) = (at / 64, at % 64);
    let mut v = row[word] >> shift;
    if shift != 0 && shift + len > 64 {
        v |= row[word + 1] << (64 - shift);
    }
    if len < 64 {
        v & ((1 << len) - 1)
    } else {
        v
    }
}

/// An output value as numpy: bits (uint8, instances × bits) or ring
/// elements (uint64, instances × elements).
pub(crate) fn to_numpy<'py>(
    py: Python<'py>,
    m: &BitMatrix,
    codec: &Codec,
) -> PyResult<Bound<'py, PyAny>> {
    let rows = m.rows();
    Ok(match codec {
        Codec::Bits { bits } => {
            let mut out = Vec::with_capacity(rows * bits);
            for r in 0..rows {
                let row = m.row(r);
                out.extend((0..*bits).map(|c| ((row[c / 64] >> (c % 64)) & 1) as u8));
            }
            array2(out, rows, *bits)?.into_pyarray(py).into_any()
        }
        Codec::Ring { elems, k } => {
            let mut out = Vec::with_capacity(rows * elems);
            for r in 0..rows {
                let row = m.row(r);
                out.extend((0..*elems).map(|e| get(row, e * k, *k)));
            }
            array2(out, rows, *elems)?.into_pyarray(py).into_any()
        }
    })
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
                .map(|i| get(m.row(r), i * 64, (k - i * 64).min(64)))
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
    let mut out = Vec::with_capacity(rows * elems);
    for r in 0..rows {
        out.extend((0..elems).map(|e| get(m.row(r), e * k, k)));
    }
    let shape_1d = matches!(codec, Codec::Bits { .. });
    if signed {
        let extend = |v: u64| {
            if k < 64 && v >> (k - 1) == 1 {
                (v | !((1 << k) - 1)) as i64
            } else {
                v as i64
            }
        };
        let values: Vec<i64> = out.into_iter().map(extend).collect();
        if shape_1d {
            return Ok(values.into_pyarray(py).into_any());
        }
        return Ok(array2(values, rows, elems)?.into_pyarray(py).into_any());
    }
    if shape_1d {
        return Ok(out.into_pyarray(py).into_any());
    }
    Ok(array2(out, rows, elems)?.into_pyarray(py).into_any())
}

fn array2<T>(v: Vec<T>, rows: usize, cols: usize) -> PyResult<Array2<T>> {
    Array2::from_shape_vec((rows, cols), v)
        .map_err(|e| crate::errors::InternalError::new_err(e.to_string()))
}

/// `m` with its one row repeated `rows` times (a value given once for a
/// batch of instances).
pub(crate) fn repeat(m: &BitMatrix, rows: usize) -> BitMatrix {
    let words = m.row(0).repeat(rows);
    BitMatrix::from_row_words(rows, m.cols(), words).unwrap_or_else(|| m.clone())
}
