//! The methods of `huddle.Program` (the class and its life:
//! program_state.rs): declarations and functions, each a call of the Rust
//! [`huddle_circuit::program::Program`], which builds every operator's
//! circuit; compiling gives a `huddle.Circuit` that carries the interface.
//! The `with` block and the module-level functions are
//! python/huddle/_program.py, sugar over these methods; the operators of
//! values are secret.rs.

use crate::circuit::Circuit;
use crate::errors::{program_error, program_misuse};
use crate::program_state::{Program, State};
use crate::secret::{arg, secret, values, Arg, Value};
use crate::types::{extract_shape, extract_type};
use huddle_circuit::program::{
    BinOp, ErrorKind, Number, Program as Inner, Receiver, Shape, UnOp, Value as InnerValue,
};
use pyo3::prelude::*;

fn receiver(py: Python<'_>, to: &Bound<'_, PyAny>) -> PyResult<Receiver> {
    if let Ok(p) = to.extract::<usize>() {
        return Ok(Receiver::Party(p));
    }
    match to.extract::<String>() {
        Ok(s) if s == "all" => Ok(Receiver::All),
        _ => Err(program_misuse(
            py,
            ErrorKind::Value,
            format!(
                "reveal: `to` is a party id or \"all\", not {}",
                to.repr().map_or_else(|_| "?".into(), |r| r.to_string())
            ),
        )),
    }
}

/// The numbers of a constant and their shape (numpy's reading of `obj`).
fn numbers(obj: &Bound<'_, PyAny>) -> PyResult<(Shape, Vec<Number>)> {
    let py = obj.py();
    let array = py.import("numpy")?.call_method1("asarray", (obj,))?;
    let dims: Vec<usize> = array.getattr("shape")?.extract()?;
    let shape = Shape::from_dims(&dims).map_err(|e| program_misuse(py, ErrorKind::Shape, e))?;
    let mut out = Vec::with_capacity(shape.len());
    for item in array
        .call_method0("ravel")?
        .call_method0("tolist")?
        .try_iter()?
    {
        let item = item?;
        out.push(match arg(&item)? {
            Some(Arg::Literal(n)) => n,
            _ => {
                return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "constant: expected numbers, got {}",
                    item.repr()?
                )))
            }
        });
    }
    Ok((shape, out))
}

#[pymethods]
impl Program {
    #[new]
    #[pyo3(signature = (parties, fan_in = None))]
    fn new(py: Python<'_>, parties: usize, fan_in: Option<usize>) -> PyResult<Program> {
        let mut program = Inner::new(parties).map_err(|e| program_error(py, &e))?;
        if let Some(f) = fan_in {
            program = program.with_fan_in(f).map_err(|e| program_error(py, &e))?;
        }
        Ok(Program {
            parties,
            state: State::new(program),
        })
    }

    /// The number of parties.
    #[getter]
    fn parties(&self) -> usize {
        self.parties
    }

    /// Whether the program is compiled (it cannot grow any more).
    #[getter(is_compiled)]
    fn compiled_already(&self) -> bool {
        self.status() != "building"
    }

    /// input(party, type, shape=(), name=None) -> Value: a secret input
    /// `party` gives at run time, of `type` and `shape` (() a scalar, (n,)
    /// a vector, (r, c) a matrix). Names default to "in0", "in1", ...
    #[pyo3(signature = (party, r#type, shape = None, name = None))]
    fn input(
        slf: &Bound<'_, Self>,
        party: usize,
        r#type: &Bound<'_, PyAny>,
        shape: Option<&Bound<'_, PyAny>>,
        name: Option<String>,
    ) -> PyResult<Value> {
        let py = slf.py();
        let ty = extract_type(r#type)?;
        let shape = shape.map_or(Ok(Shape::Scalar), |s| extract_shape(py, s))?;
        let v = slf.get().build(py, |b| {
            let name = b.input_name(name);
            let v = b.program.input(party, ty, shape, &name)?;
            b.declared(name);
            Ok(v)
        })?;
        Ok(secret(slf, v))
    }

    /// input_rows(party, type, max_rows, columns=None, name=None) -> Rows:
    /// a variable-length input: up to `max_rows` rows (scalars, or rows of
    /// `columns` elements) of which `party` gives any number n at run time.
    /// Rows(values, valid): `values` of shape (max_rows,) or (max_rows,
    /// columns), the rows after the n given being zeros; `valid` one bit
    /// per row. n stays secret but for what the program computes from valid.
    #[pyo3(signature = (party, r#type, max_rows, columns = None, name = None))]
    fn input_rows<'py>(
        slf: &Bound<'py, Self>,
        party: usize,
        r#type: &Bound<'py, PyAny>,
        max_rows: usize,
        columns: Option<usize>,
        name: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let ty = extract_type(r#type)?;
        let row = columns.map_or(Shape::Scalar, Shape::Vector);
        let rows = slf.get().build(py, |b| {
            let name = b.input_name(name);
            let rows = b.program.input_rows(party, ty, row, max_rows, &name)?;
            b.declared(name);
            Ok(rows)
        })?;
        let (values, valid) = (secret(slf, rows.values), secret(slf, rows.valid));
        py.import("huddle._program")?
            .getattr("Rows")?
            .call1((values, valid))
    }

    /// public(name, type, shape=()) -> Value: a public parameter given at
    /// run time. Every party gives its copy; the program computes with
    /// party 0's and adds the output "public_ok" (whether all copies
    /// agree); every other output is 0 unless they do.
    #[pyo3(signature = (name, r#type, shape = None))]
    fn public(
        slf: &Bound<'_, Self>,
        name: String,
        r#type: &Bound<'_, PyAny>,
        shape: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Value> {
        let py = slf.py();
        let ty = extract_type(r#type)?;
        let shape = shape.map_or(Ok(Shape::Scalar), |s| extract_shape(py, s))?;
        let v = slf.get().build(py, |b| {
            let v = b.program.public(&name, ty, shape)?;
            b.declared(name);
            Ok(v)
        })?;
        Ok(secret(slf, v))
    }

    /// constant(values, type) -> Value: public numbers (a scalar, a list,
    /// a list of lists or a numpy array) as a value of `type`, compiled in.
    fn constant(
        slf: &Bound<'_, Self>,
        values: &Bound<'_, PyAny>,
        r#type: &Bound<'_, PyAny>,
    ) -> PyResult<Value> {
        let ty = extract_type(r#type)?;
        let (shape, numbers) = numbers(values)?;
        let v = slf
            .get()
            .build(slf.py(), |b| b.program.constant(ty, shape, &numbers))?;
        Ok(secret(slf, v))
    }

    /// reveal(value, to="all", name=None): makes `value` an output that
    /// party `to` (an id) or every party ("all") learns. Names default to
    /// "out0", "out1", ...
    #[pyo3(signature = (value, to = None, name = None))]
    fn reveal(
        &self,
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        to: Option<&Bound<'_, PyAny>>,
        name: Option<String>,
    ) -> PyResult<()> {
        let v = values(&[value])?.remove(0);
        let to = to.map_or(Ok(Receiver::All), |t| receiver(py, t))?;
        self.build(py, |b| {
            let name = b.output_name(name);
            b.program.reveal(&v, to, &name)?;
            b.revealed(name);
            Ok(())
        })
    }

    /// select(c, a, b) -> Value: a where the bit c is 1, else b,
    /// elementwise (scalars broadcast; a or b may be a Python number).
    fn select(
        slf: &Bound<'_, Self>,
        c: &Bound<'_, PyAny>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
    ) -> PyResult<Value> {
        let c = values(&[c])?.remove(0);
        let (a, b) = (operand(a)?, operand(b)?);
        let v = slf
            .get()
            .build(slf.py(), |p| p.program.select(&c, a.operand(), b.operand()))?;
        Ok(secret(slf, v))
    }

    /// sum(v) -> Value: the sum of all elements (wrapping; XOR for bits).
    fn sum(slf: &Bound<'_, Self>, v: &Bound<'_, PyAny>) -> PyResult<Value> {
        let v = values(&[v])?.remove(0);
        let s = slf.get().build(slf.py(), |p| p.program.sum(&v))?;
        Ok(secret(slf, s))
    }

    /// dot(a, b) -> Value: the dot product of two vectors of one type and
    /// length (fixed point truncates once).
    fn dot(slf: &Bound<'_, Self>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Value> {
        let v = values(&[a, b])?;
        let d = slf.get().build(slf.py(), |p| p.program.dot(&v[0], &v[1]))?;
        Ok(secret(slf, d))
    }

    /// matmul(a, b) -> Value: (n,)@(n, m) -> (m,), (r, n)@(n, m) -> (r, m),
    /// (r, n)@(n,) -> (r,); also `a @ b`.
    fn matmul(
        slf: &Bound<'_, Self>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
    ) -> PyResult<Value> {
        let v = values(&[a, b])?;
        let m = slf
            .get()
            .build(slf.py(), |p| p.program.matmul(&v[0], &v[1]))?;
        Ok(secret(slf, m))
    }

    /// min(a, b=None) -> Value: the least element of `a`; with `b`, the
    /// smaller of a and b elementwise (signed types compare signed).
    #[pyo3(signature = (a, b = None))]
    fn min(
        slf: &Bound<'_, Self>,
        a: &Bound<'_, PyAny>,
        b: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Value> {
        extreme(slf, a, b, BinOp::Min)
    }

    /// max(a, b=None) -> Value: the largest element of `a`; with `b`, the
    /// larger of a and b elementwise.
    #[pyo3(signature = (a, b = None))]
    fn max(
        slf: &Bound<'_, Self>,
        a: &Bound<'_, PyAny>,
        b: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Value> {
        extreme(slf, a, b, BinOp::Max)
    }

    /// abs(v) -> Value: |v| elementwise, wrapping (the least signed value
    /// is its own).
    fn abs(slf: &Bound<'_, Self>, v: &Bound<'_, PyAny>) -> PyResult<Value> {
        let v = values(&[v])?.remove(0);
        let a = slf
            .get()
            .build(slf.py(), |p| p.program.unary(UnOp::Abs, &v))?;
        Ok(secret(slf, a))
    }

    /// stack(values) -> Value: scalars into a vector, or vectors of one
    /// length into a matrix (a row each); all of one type.
    fn stack(slf: &Bound<'_, Self>, values_: &Bound<'_, PyAny>) -> PyResult<Value> {
        let items: Vec<Bound<'_, PyAny>> = values_.try_iter()?.collect::<PyResult<_>>()?;
        let refs: Vec<&Bound<'_, PyAny>> = items.iter().collect();
        let v = values(&refs)?;
        let s = slf.get().build(slf.py(), |p| p.program.stack(&v))?;
        Ok(secret(slf, s))
    }

    /// convert(v, type) -> Value: `v` as `type`, as Rust's `as` does: the
    /// value where the type holds it, else wrapped; fixed point to an
    /// integer rounds toward -infinity. Between domains it compiles to
    /// A2B / B2A. Also `v.astype(type)`.
    fn convert(
        slf: &Bound<'_, Self>,
        v: &Bound<'_, PyAny>,
        r#type: &Bound<'_, PyAny>,
    ) -> PyResult<Value> {
        let v = values(&[v])?.remove(0);
        let ty = extract_type(r#type)?;
        let c = slf.get().build(slf.py(), |p| p.program.convert(&v, ty))?;
        Ok(secret(slf, c))
    }

    /// compile() -> Circuit: the program's circuit and interface. Building
    /// the same program gives the same circuit, byte for byte. Once only.
    fn compile(&self, py: Python<'_>) -> PyResult<Circuit> {
        self.compile_once(py, true)
    }

    fn __enter__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, Self>> {
        let py = slf.py();
        py.import("huddle._program")?
            .call_method1("_enter", (slf,))?;
        Ok(slf.clone())
    }

    fn __exit__(
        slf: &Bound<'_, Self>,
        _kind: &Bound<'_, PyAny>,
        _error: &Bound<'_, PyAny>,
        _trace: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let py = slf.py();
        py.import("huddle._program")?
            .call_method1("_exit", (slf,))?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        format!(
            "<huddle.Program of {} parties, {}>",
            self.parties,
            self.status()
        )
    }
}

/// An operand of a function: a value or a Python number.
fn operand(obj: &Bound<'_, PyAny>) -> PyResult<Arg> {
    arg(obj)?.ok_or_else(|| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "expected a huddle.Value or a number, got {}",
            crate::types::type_name(obj)
        ))
    })
}

fn extreme(
    slf: &Bound<'_, Program>,
    a: &Bound<'_, PyAny>,
    b: Option<&Bound<'_, PyAny>>,
    op: BinOp,
) -> PyResult<Value> {
    let py = slf.py();
    let v: InnerValue = match b {
        None => {
            let a = values(&[a])?.remove(0);
            slf.get().build(py, |p| match op {
                BinOp::Min => p.program.min_of(&a),
                _ => p.program.max_of(&a),
            })?
        }
        Some(b) => {
            let (a, b) = (operand(a)?, operand(b)?);
            slf.get()
                .build(py, |p| p.program.binary(op, a.operand(), b.operand()))?
        }
    };
    Ok(secret(slf, v))
}
