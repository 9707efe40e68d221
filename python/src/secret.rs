//! `huddle.Value`: a secret value of a program under construction, with
//! Python's operators. Each operator is one call of the Rust program
//! layer (huddle_circuit::program), which builds its circuit and checks
//! types and shapes; a secret value has no truth, integer or hash value
//! while the program is built, so those raise TypeError pointing to
//! `huddle.select`.

use crate::errors::program_misuse;
use crate::indexing;
use crate::program::{extract_shape, Program};
use crate::types::{extract_type, type_name, SecretType};
use huddle_circuit::program::{
    BinOp, CmpOp, ErrorKind, Number, Operand, UnOp, Value as InnerValue,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyFloat, PyInt, PyList, PyTuple};

/// How a secret value differs from a number, said where Python asks for one.
fn no_plain_value(what: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "a secret value has no {what} while the program is built; to choose between \
         values use huddle.select(cond, a, b)"
    ))
}

/// A secret value of a huddle.Program: `type`, `shape`, and operators
/// that add gates to its program.
///
/// With values or Python numbers on either side (a number takes the
/// value's type; floats only for fixed point): + - * & | ^ (bitwise:
/// Boolean domain), == != < <= > >= (bits), << >> (by a public int), unary
/// - and ~, abs(), @ (matrix product). Indexing v[i], v[i, j], v[a:b:s],
/// iteration over the first axis, len(), .T, .reshape(), .astype().
/// bool(), int(), float(), hash() and use as an index raise TypeError:
/// the value is secret; use huddle.select(cond, a, b) to choose.
#[pyclass(module = "huddle", name = "Value", frozen)]
pub(crate) struct Value {
    pub(crate) program: Py<Program>,
    pub(crate) inner: InnerValue,
}

/// An operand as Python gave it.
pub(crate) enum Arg {
    Secret(InnerValue),
    Literal(Number),
}

impl Arg {
    pub(crate) fn operand(&self) -> Operand<'_> {
        match self {
            Arg::Secret(v) => Operand::Value(v),
            Arg::Literal(n) => Operand::Literal(*n),
        }
    }
}

/// `obj` as an operand: a Value, a bool, an int or a float (numpy's
/// scalars too); None for anything else (the operator then says
/// NotImplemented, and Python raises its TypeError).
pub(crate) fn arg(obj: &Bound<'_, PyAny>) -> PyResult<Option<Arg>> {
    if let Ok(v) = obj.cast::<Value>() {
        return Ok(Some(Arg::Secret(v.get().inner.clone())));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Some(Arg::Literal(Number::Float(obj.extract()?))));
    }
    if obj.is_instance_of::<PyInt>() || obj.hasattr("__index__")? {
        return match obj.extract::<i128>() {
            Ok(n) => Ok(Some(Arg::Literal(Number::Int(n)))),
            Err(_) if obj.is_instance_of::<PyInt>() => Err(program_misuse(
                obj.py(),
                ErrorKind::Value,
                format!("the number {obj} is too large for any type"),
            )),
            Err(_) => Ok(None),
        };
    }
    if obj.hasattr("__float__")? && !obj.hasattr("__len__")? {
        if let Ok(x) = obj.extract::<f64>() {
            return Ok(Some(Arg::Literal(Number::Float(x))));
        }
    }
    Ok(None)
}

/// The secret values `objs` (a TypeError names the first that is not one).
pub(crate) fn values(objs: &[&Bound<'_, PyAny>]) -> PyResult<Vec<InnerValue>> {
    objs.iter()
        .map(|obj| match obj.cast::<Value>() {
            Ok(v) => Ok(v.get().inner.clone()),
            Err(_) => Err(PyTypeError::new_err(format!(
                "expected a huddle.Value, got {} (make numbers values with huddle.constant)",
                type_name(obj)
            ))),
        })
        .collect()
}

/// `v` as a Value of `program`.
pub(crate) fn secret(program: &Bound<'_, Program>, v: InnerValue) -> Value {
    Value {
        program: program.clone().unbind(),
        inner: v,
    }
}

impl Value {
    /// A value built from this one by `f` on its program.
    fn derive(
        &self,
        py: Python<'_>,
        f: impl FnOnce(
            &mut huddle_circuit::program::Program,
        ) -> huddle_circuit::program::Result<InnerValue>,
    ) -> PyResult<Value> {
        let program = self.program.bind(py);
        let v = program.get().build(py, |b| f(&mut b.program))?;
        Ok(secret(program, v))
    }

    /// `self op other` (or `other op self`), NotImplemented for operands
    /// that are neither values nor numbers.
    fn binary(
        &self,
        py: Python<'_>,
        op: BinOp,
        other: &Bound<'_, PyAny>,
        reflected: bool,
    ) -> PyResult<Py<PyAny>> {
        let Some(other) = arg(other)? else {
            return Ok(py.NotImplemented());
        };
        let me = Operand::Value(&self.inner);
        let (a, b) = match reflected {
            false => (me, other.operand()),
            true => (other.operand(), me),
        };
        let v = self.derive(py, |p| p.binary(op, a, b))?;
        Ok(Py::new(py, v)?.into_any())
    }

    fn shift(&self, py: Python<'_>, amount: &Bound<'_, PyAny>, left: bool) -> PyResult<Value> {
        if amount.cast::<Value>().is_ok() {
            return Err(PyTypeError::new_err(
                "a shift amount must be a public int, not a secret value (shifts by secret \
                 amounts are not circuits of fixed shape)",
            ));
        }
        let s: i64 = amount.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "a shift amount is a public int, not {}",
                type_name(amount)
            ))
        })?;
        if s < 0 {
            return Err(program_misuse(
                py,
                ErrorKind::Value,
                format!("negative shift amount {s}"),
            ));
        }
        // Shifting by the width or more already gives 0 (or the sign).
        let s = u32::try_from(s).unwrap_or(u32::MAX);
        self.derive(py, |p| match left {
            true => p.shift_left(&self.inner, s),
            false => p.shift_right(&self.inner, s),
        })
    }

    fn first_axis(&self) -> PyResult<usize> {
        match self.inner.shape().dims().first() {
            Some(&n) => Ok(n),
            None => Err(PyTypeError::new_err(format!(
                "a scalar huddle.Value ({}) has no length and no elements",
                self.inner.ty()
            ))),
        }
    }
}

#[pymethods]
impl Value {
    /// The element type.
    #[getter]
    fn r#type(&self) -> SecretType {
        SecretType(self.inner.ty())
    }

    /// The shape: () a scalar, (n,) a vector, (r, c) a matrix.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.shape().dims())
    }

    /// The number of dimensions (0, 1 or 2).
    #[getter]
    fn ndim(&self) -> usize {
        self.inner.shape().dims().len()
    }

    /// The number of elements.
    #[getter]
    fn size(&self) -> usize {
        self.inner.shape().len()
    }

    /// The program the value belongs to.
    #[getter]
    fn program(&self, py: Python<'_>) -> Py<Program> {
        self.program.clone_ref(py)
    }

    /// The transpose (a vector or scalar is its own).
    #[getter(T)]
    fn transpose(&self, py: Python<'_>) -> PyResult<Value> {
        self.derive(py, |p| p.transpose(&self.inner))
    }

    /// reshape(*shape) -> Value: the same elements (row after row) in
    /// another shape: v.reshape(2, 3) or v.reshape((2, 3)).
    #[pyo3(signature = (*shape))]
    fn reshape(&self, py: Python<'_>, shape: &Bound<'_, PyTuple>) -> PyResult<Value> {
        let shape = match shape.len() {
            1 if shape.get_item(0)?.extract::<usize>().is_err() => {
                extract_shape(py, &shape.get_item(0)?)?
            }
            _ => extract_shape(py, shape.as_any())?,
        };
        self.derive(py, |p| p.reshape(&self.inner, shape))
    }

    /// astype(type) -> Value: huddle.convert(self, type).
    fn astype(&self, py: Python<'_>, r#type: &Bound<'_, PyAny>) -> PyResult<Value> {
        let ty = extract_type(r#type)?;
        self.derive(py, |p| p.convert(&self.inner, ty))
    }

    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinOp::Add, o, false)
    }
    fn __radd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinOp::Add, o, true)
    }
    fn __sub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinOp::Sub, o, false)
    }
    fn __rsub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinOp::Sub, o, true)
    }
    fn __mul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinOp::Mul, o, false)
    }
    fn __rmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinOp::Mul, o, true)
    }
    fn __and__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinOp::And, o, false)
    }
    fn __rand__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinOp::And, o, true)
    }
    fn __or__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinOp::Or, o, false)
    }
    fn __ror__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinOp::Or, o, true)
    }
    fn __xor__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinOp::Xor, o, false)
    }
    fn __rxor__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinOp::Xor, o, true)
    }

    fn __lshift__(&self, py: Python<'_>, amount: &Bound<'_, PyAny>) -> PyResult<Value> {
        self.shift(py, amount, true)
    }
    fn __rshift__(&self, py: Python<'_>, amount: &Bound<'_, PyAny>) -> PyResult<Value> {
        self.shift(py, amount, false)
    }
    fn __rlshift__(&self, _o: &Bound<'_, PyAny>) -> PyResult<Value> {
        Err(PyTypeError::new_err(
            "a shift amount must be a public int, not a secret value",
        ))
    }
    fn __rrshift__(&self, _o: &Bound<'_, PyAny>) -> PyResult<Value> {
        Err(PyTypeError::new_err(
            "a shift amount must be a public int, not a secret value",
        ))
    }

    fn __matmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(other) = o.cast::<Value>() else {
            return Ok(py.NotImplemented());
        };
        let v = self.derive(py, |p| p.matmul(&self.inner, &other.get().inner))?;
        Ok(Py::new(py, v)?.into_any())
    }
    fn __rmatmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(other) = o.cast::<Value>() else {
            return Ok(py.NotImplemented());
        };
        let v = self.derive(py, |p| p.matmul(&other.get().inner, &self.inner))?;
        Ok(Py::new(py, v)?.into_any())
    }

    fn __richcmp__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<Py<PyAny>> {
        let Some(other) = arg(other)? else {
            return Ok(py.NotImplemented());
        };
        let op = match op {
            CompareOp::Eq => CmpOp::Eq,
            CompareOp::Ne => CmpOp::Ne,
            CompareOp::Lt => CmpOp::Lt,
            CompareOp::Le => CmpOp::Le,
            CompareOp::Gt => CmpOp::Gt,
            CompareOp::Ge => CmpOp::Ge,
        };
        let v = self.derive(py, |p| p.compare(op, &self.inner, other.operand()))?;
        Ok(Py::new(py, v)?.into_any())
    }

    fn __neg__(&self, py: Python<'_>) -> PyResult<Value> {
        self.derive(py, |p| p.unary(UnOp::Neg, &self.inner))
    }
    fn __invert__(&self, py: Python<'_>) -> PyResult<Value> {
        self.derive(py, |p| p.unary(UnOp::Not, &self.inner))
    }
    fn __abs__(&self, py: Python<'_>) -> PyResult<Value> {
        self.derive(py, |p| p.unary(UnOp::Abs, &self.inner))
    }
    fn __pos__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __bool__(&self) -> PyResult<bool> {
        Err(no_plain_value(
            "truth value (asked by if, while, and, or, not, bool())",
        ))
    }
    fn __int__(&self) -> PyResult<i64> {
        Err(no_plain_value("integer value (asked by int())"))
    }
    fn __float__(&self) -> PyResult<f64> {
        Err(no_plain_value("float value (asked by float())"))
    }
    fn __index__(&self) -> PyResult<i64> {
        Err(no_plain_value(
            "integer value to index or count with (asked by an index, range(), operator.index())",
        ))
    }
    fn __hash__(&self) -> PyResult<isize> {
        Err(no_plain_value(
            "hash (asked by hash(), a dict key, a set; == gives a secret bit)",
        ))
    }
    #[pyo3(signature = (*_args, **_kwargs))]
    fn __array__(
        &self,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, pyo3::types::PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        Err(PyTypeError::new_err(
            "a secret value is no numpy array while the program is built: reveal it and \
             run the program to get numbers",
        ))
    }
    /// numpy defers to Value's operators (`np.int64(3) + v` is `v.__radd__`).
    #[classattr]
    fn __array_ufunc__(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }

    fn __len__(&self) -> PyResult<usize> {
        self.first_axis()
    }

    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Value> {
        let program = self.program.bind(py);
        let v = indexing::item(program.get(), py, &self.inner, key)?;
        Ok(secret(program, v))
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let n = self.first_axis()?;
        let program = self.program.bind(py);
        let items = program.get().build(py, |b| {
            (0..n)
                .map(|i| b.program.index(&self.inner, i))
                .collect::<Result<Vec<_>, _>>()
        })?;
        let list = PyList::new(py, items.into_iter().map(|v| secret(program, v)))?;
        Ok(list.try_iter()?.into_any().unbind())
    }

    fn __repr__(&self) -> String {
        format!("<huddle.Value {} {}>", self.inner.ty(), self.inner.shape())
    }
}
