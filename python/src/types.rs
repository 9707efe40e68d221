//! `huddle.Type`, the element type of a secret value (huddle_circuit's
//! program [`Type`]), its constants (`huddle.u8`, `huddle.i32`, ...) and
//! constructors (`huddle.uint(w)`, `huddle.sint(w)`, `huddle.ring(k)`,
//! `huddle.fixed(f, k=64)`).

use crate::errors::program_misuse;
use huddle_circuit::program::{ErrorKind, Type};
use huddle_core::RingWidth;
use pyo3::prelude::*;

/// The type of every element of a secret value.
///
/// Boolean domain (one wire per bit): `huddle.bit`, unsigned `u8` ... `u64`
/// and `huddle.uint(w)`, signed (two's complement) `i8` ... `i64` and
/// `huddle.sint(w)`, for w = 1..64. Ring domain (one element of Z_2^k
/// each; one k per program): `huddle.ring(k)`, a signed integer, and
/// `huddle.fixed(f, k=64)`, a fixed-point number with f fractional bits,
/// for k = 8, 16, 32 or 64. Arithmetic wraps at the width. `str(t)` is its
/// name (`"i32"`, `"fixed64.16"`), which `Type.parse` reads back.
#[pyclass(module = "huddle", name = "Type", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct SecretType(pub(crate) Type);

/// The Boolean-domain constants the module exports, by their names.
pub(crate) const CONSTANTS: [Type; 9] = [
    Type::Bit,
    Type::UInt(8),
    Type::UInt(16),
    Type::UInt(32),
    Type::UInt(64),
    Type::SInt(8),
    Type::SInt(16),
    Type::SInt(32),
    Type::SInt(64),
];

#[pymethods]
impl SecretType {
    /// The type named `name` as `str(t)` writes it: "bit", "u8", "i32",
    /// "ring64", "fixed64.16".
    #[staticmethod]
    fn parse(py: Python<'_>, name: &str) -> PyResult<SecretType> {
        name.parse()
            .map(SecretType)
            .map_err(|e| program_misuse(py, ErrorKind::Value, e))
    }

    /// Bits of one element (k for ring types).
    #[getter]
    fn bits(&self) -> u32 {
        self.0.bits()
    }

    /// Whether the top bit is a sign.
    #[getter]
    fn signed(&self) -> bool {
        self.0.is_signed()
    }

    /// "bits" (the Boolean domain) or "ring".
    #[getter]
    fn domain(&self) -> &'static str {
        match self.0.ring() {
            None => "bits",
            Some(_) => "ring",
        }
    }

    /// k of the ring Z_2^k of a ring type, else None.
    #[getter]
    fn ring(&self) -> Option<u32> {
        self.0.ring().map(|r| r.bits())
    }

    /// The fractional bits of a fixed-point type, else None.
    #[getter]
    fn frac(&self) -> Option<u8> {
        match self.0 {
            Type::Fixed(_, f) => Some(f),
            _ => None,
        }
    }

    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        match self.0 {
            t if CONSTANTS.contains(&t) => format!("huddle.{t}"),
            Type::UInt(w) => format!("huddle.uint({w})"),
            Type::SInt(w) => format!("huddle.sint({w})"),
            Type::Int(r) => format!("huddle.ring({})", r.bits()),
            Type::Fixed(r, f) if r == RingWidth::W64 => format!("huddle.fixed({f})"),
            Type::Fixed(r, f) => format!("huddle.fixed({f}, {})", r.bits()),
            Type::Bit => "huddle.bit".into(),
        }
    }

    /// Pickles as its name.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let parse = py.get_type::<SecretType>().getattr("parse")?;
        Ok((parse, (self.0.to_string(),)))
    }
}

fn checked(py: Python<'_>, ty: Type) -> PyResult<SecretType> {
    ty.check()
        .map(SecretType)
        .map_err(|e| program_misuse(py, ErrorKind::Value, e))
}

fn ring_width(py: Python<'_>, k: u32) -> PyResult<RingWidth> {
    RingWidth::from_bits(k).ok_or_else(|| {
        program_misuse(
            py,
            ErrorKind::Value,
            format!("a ring is Z_2^k for k = 8, 16, 32 or 64, not {k}"),
        )
    })
}

/// uint(w) -> Type: an unsigned integer of w = 1..64 bits (Boolean domain).
#[pyfunction]
pub(crate) fn uint(py: Python<'_>, w: u32) -> PyResult<SecretType> {
    checked(py, Type::UInt(w))
}

/// sint(w) -> Type: a signed (two's complement) integer of w = 1..64 bits
/// (Boolean domain).
#[pyfunction]
pub(crate) fn sint(py: Python<'_>, w: u32) -> PyResult<SecretType> {
    checked(py, Type::SInt(w))
}

/// ring(k) -> Type: a signed integer of the ring Z_2^k, k = 8, 16, 32 or
/// 64 (arithmetic domain; a program has one ring).
#[pyfunction]
pub(crate) fn ring(py: Python<'_>, k: u32) -> PyResult<SecretType> {
    checked(py, Type::Int(ring_width(py, k)?))
}

/// fixed(f, k=64) -> Type: a fixed-point number with f fractional bits
/// (1 <= f < k), held as a signed element of Z_2^k. Products round toward
/// -infinity; protocols may give one unit (2^-f) more.
#[pyfunction]
#[pyo3(signature = (f, k = 64))]
pub(crate) fn fixed(py: Python<'_>, f: u8, k: u32) -> PyResult<SecretType> {
    checked(py, Type::Fixed(ring_width(py, k)?, f))
}

/// The type `obj` names: a `huddle.Type`, or its name as a str.
pub(crate) fn extract_type(obj: &Bound<'_, PyAny>) -> PyResult<Type> {
    if let Ok(t) = obj.cast::<SecretType>() {
        return Ok(t.get().0);
    }
    if let Ok(name) = obj.extract::<String>() {
        return SecretType::parse(obj.py(), &name).map(|t| t.0);
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "expected a huddle.Type (huddle.i32, huddle.fixed(16), ...), got {}",
        type_name(obj)
    )))
}

/// The Python type name of `obj`, for messages.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".into(), |n| n.to_string())
}

/// Adds the class, the constructors and the constants to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SecretType>()?;
    m.add_function(wrap_pyfunction!(uint, m)?)?;
    m.add_function(wrap_pyfunction!(sint, m)?)?;
    m.add_function(wrap_pyfunction!(ring, m)?)?;
    m.add_function(wrap_pyfunction!(fixed, m)?)?;
    for t in CONSTANTS {
        m.add(t.to_string().as_str(), SecretType(t))?;
    }
    Ok(())
}
