//! Reductions and products: `sum`, `min_of`/`max_of` over all elements,
//! `dot` of vectors and matrix products. Ring integers use DOT gates and
//! fixed point DOTTR (one truncation per product sum, not per term);
//! Boolean integers multiply and add with their circuits.

use super::error::{shape_error, type_error, Result};
use super::ops::{BinOp, CmpOp};
use super::types::{Shape, Type};
use super::value::Value;
use super::{bits, ring, Program};
use crate::model::{Domain, WireId, MAX_DOT_LEN};

impl Program {
    /// The sum of all elements (wrapping; XOR for bits), a scalar.
    pub fn sum(&mut self, a: &Value) -> Result<Value> {
        self.own("sum", a)?;
        let elements: Vec<Value> = (0..a.shape.len()).map(|i| self.scalar(a, i)).collect();
        self.fold(&elements, BinOp::Add, a.ty)
    }

    /// The smallest element, a scalar.
    pub fn min_of(&mut self, a: &Value) -> Result<Value> {
        self.extreme("min_of", a, BinOp::Min)
    }

    /// The largest element, a scalar.
    pub fn max_of(&mut self, a: &Value) -> Result<Value> {
        self.extreme("max_of", a, BinOp::Max)
    }

    fn extreme(&mut self, op: &str, a: &Value, how: BinOp) -> Result<Value> {
        self.own(op, a)?;
        if a.shape.is_empty() {
            return shape_error(format!("{op}: the value {} has no elements", a.describe()));
        }
        let elements: Vec<Value> = (0..a.shape.len()).map(|i| self.scalar(a, i)).collect();
        self.fold(&elements, how, a.ty)
    }

    /// Combines `values` pairwise in a balanced tree (logarithmic depth).
    fn fold(&mut self, values: &[Value], op: BinOp, ty: Type) -> Result<Value> {
        if values.is_empty() {
            return self.constant(ty, Shape::Scalar, &[0i64.into()]);
        }
        if ty.domain() == Domain::Ring && op == BinOp::Add {
            let terms: Vec<WireId> = values.iter().map(|v| v.wires[0]).collect();
            let s = ring::sum(&mut self.builder, &terms);
            return Ok(self.value(ty, Shape::Scalar, vec![s]));
        }
        let mut level = values.to_vec();
        while level.len() > 1 {
            let mut next = Vec::with_capacity(level.len().div_ceil(2));
            for pair in level.chunks(2) {
                next.push(match pair {
                    [x, y] => self.binary(op, x, y)?,
                    [x] => x.clone(),
                    _ => unreachable!("chunks of two"),
                });
            }
            level = next;
        }
        Ok(level.swap_remove(0))
    }

    /// Element `i` of `a` as a scalar.
    pub(super) fn scalar(&self, a: &Value, i: usize) -> Value {
        self.value(a.ty, Shape::Scalar, a.element(i).to_vec())
    }

    /// The dot product of two vectors of one type and length.
    pub fn dot(&mut self, a: &Value, b: &Value) -> Result<Value> {
        self.own("dot", a)?;
        self.own("dot", b)?;
        let (Shape::Vector(n), Shape::Vector(m)) = (a.shape, b.shape) else {
            return shape_error(format!(
                "dot: needs two vectors, not {} and {}",
                a.describe(),
                b.describe()
            ));
        };
        if n != m {
            return shape_error(format!(
                "dot: vectors of different lengths: {} and {}",
                a.describe(),
                b.describe()
            ));
        }
        self.check_same("dot", a, b)?;
        let rows: Vec<usize> = (0..n).collect();
        self.dot_at(a, &rows, b, &rows)
    }

    /// The matrix product: (n,)·(n, m) → (m,), (r, n)·(n, m) → (r, m),
    /// (r, n)·(n,) → (r,).
    pub fn matmul(&mut self, a: &Value, b: &Value) -> Result<Value> {
        self.own("matmul", a)?;
        self.own("matmul", b)?;
        self.check_same("matmul", a, b)?;
        // As (rows, inner) and (inner, cols), with the result's shape.
        let (r, n1, vector_a) = match a.shape {
            Shape::Vector(n) => (1, n, true),
            Shape::Matrix(r, n) => (r, n, false),
            Shape::Scalar => return self.matmul_error(a, b),
        };
        let (n2, c, vector_b) = match b.shape {
            Shape::Vector(n) => (n, 1, true),
            Shape::Matrix(n, c) => (n, c, false),
            Shape::Scalar => return self.matmul_error(a, b),
        };
        if n1 != n2 || (vector_a && vector_b) {
            return self.matmul_error(a, b);
        }
        let shape = match (vector_a, vector_b) {
            (true, _) => Shape::Vector(c),
            (_, true) => Shape::Vector(r),
            _ => Shape::Matrix(r, c),
        };
        let mut wires = Vec::with_capacity(shape.len() * a.ty.wires());
        for i in 0..r {
            let row: Vec<usize> = (0..n1).map(|k| i * n1 + k).collect();
            for j in 0..c {
                let col: Vec<usize> = (0..n1).map(|k| k * c + j).collect();
                let d = self.dot_at(a, &row, b, &col)?;
                wires.extend_from_slice(&d.wires);
            }
        }
        Ok(self.value(a.ty, shape, wires))
    }

    fn matmul_error(&self, a: &Value, b: &Value) -> Result<Value> {
        shape_error(format!(
            "matmul: shapes {} and {} do not fit: (n,)·(n, m), (r, n)·(n, m) or (r, n)·(n,)",
            a.describe(),
            b.describe()
        ))
    }

    fn check_same(&self, op: &str, a: &Value, b: &Value) -> Result<()> {
        if a.ty != b.ty {
            return type_error(format!(
                "{op}: the operands' types differ: {} and {} (convert one with `convert`)",
                a.describe(),
                b.describe()
            ));
        }
        Ok(())
    }

    /// Σ_k a[xs[k]]·b[ys[k]].
    fn dot_at(&mut self, a: &Value, xs: &[usize], b: &Value, ys: &[usize]) -> Result<Value> {
        let ty = a.ty;
        if ty.domain() == Domain::Bit {
            let products: Vec<Value> = xs
                .iter()
                .zip(ys)
                .map(|(&i, &j)| {
                    let (p, q) = (a.element(i), b.element(j));
                    let prod = match ty {
                        Type::Bit => vec![bits::and(&mut self.builder, p[0], q[0])],
                        _ => bits::mul(&mut self.builder, p, q),
                    };
                    self.value(ty, Shape::Scalar, prod)
                })
                .collect();
            return self.fold(&products, BinOp::Add, ty);
        }
        let trunc = match ty {
            Type::Fixed(_, f) => Some(f),
            _ => None,
        };
        // One DOT (DOTTR) gate per MAX_DOT_LEN terms, then their sum.
        let mut parts = Vec::new();
        for (cx, cy) in xs.chunks(MAX_DOT_LEN).zip(ys.chunks(MAX_DOT_LEN)) {
            let left: Vec<WireId> = cx.iter().map(|&i| a.ring_element(i)).collect();
            let right: Vec<WireId> = cy.iter().map(|&j| b.ring_element(j)).collect();
            parts.push(match trunc {
                Some(f) => self.builder.fixed_dot(&left, &right, f),
                None => self.builder.dot(&left, &right),
            });
        }
        let s = ring::sum(&mut self.builder, &parts);
        Ok(self.value(ty, Shape::Scalar, vec![s]))
    }

    /// The bit "every element of x equals y's" (x and y of one type and shape).
    pub(super) fn all_equal(&mut self, x: &Value, y: &Value) -> WireId {
        let eq = self.compare_values(CmpOp::Eq, x, y, x.shape);
        let bits: Vec<WireId> = eq.wires.to_vec();
        self.builder.and_all(&bits)
    }
}
