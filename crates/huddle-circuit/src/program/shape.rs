//! Rearranging values without gates: indexing, stacking, reshaping and
//! transposing. Only wires move, so these cost nothing.

use super::error::{shape_error, Result};
use super::types::Shape;
use super::value::Value;
use super::Program;

impl Program {
    /// `a[i]`: an element of a vector, a row of a matrix.
    pub fn index(&self, a: &Value, i: usize) -> Result<Value> {
        self.own("index", a)?;
        let w = a.ty.wires();
        let (n, shape, per) = match a.shape {
            Shape::Scalar => {
                return shape_error(format!(
                    "index: a scalar {} has no elements to index",
                    a.describe()
                ))
            }
            Shape::Vector(n) => (n, Shape::Scalar, 1),
            Shape::Matrix(r, c) => (r, Shape::Vector(c), c),
        };
        if i >= n {
            return shape_error(format!("index: {i} is out of range for {}", a.describe()));
        }
        Ok(self.value(
            a.ty,
            shape,
            a.wires[i * per * w..(i + 1) * per * w].to_vec(),
        ))
    }

    /// Scalars stacked into a vector, or vectors of one length into a
    /// matrix (one row each); all of one type.
    pub fn stack(&self, values: &[Value]) -> Result<Value> {
        let Some(first) = values.first() else {
            return shape_error("stack: needs at least one value");
        };
        for v in values {
            self.own("stack", v)?;
            if v.ty != first.ty || v.shape != first.shape {
                return shape_error(format!(
                    "stack: values of one type and shape, not {} and {}",
                    first.describe(),
                    v.describe()
                ));
            }
        }
        let shape = match first.shape {
            Shape::Scalar => Shape::Vector(values.len()),
            Shape::Vector(n) => Shape::Matrix(values.len(), n),
            Shape::Matrix(..) => {
                return shape_error(format!(
                    "stack: matrices {} cannot be stacked",
                    first.describe()
                ))
            }
        };
        let wires = values
            .iter()
            .flat_map(|v| v.wires.iter().copied())
            .collect();
        Ok(self.value(first.ty, shape, wires))
    }

    /// `a` with the same elements in `shape` (row after row).
    pub fn reshape(&self, a: &Value, shape: Shape) -> Result<Value> {
        self.own("reshape", a)?;
        if shape.len() != a.shape.len() {
            return shape_error(format!("reshape: {} cannot become {shape}", a.describe()));
        }
        Ok(self.value(a.ty, shape, a.wires.to_vec()))
    }

    /// The transpose of a matrix (a vector or scalar is its own).
    pub fn transpose(&self, a: &Value) -> Result<Value> {
        self.own("transpose", a)?;
        let Shape::Matrix(r, c) = a.shape else {
            return Ok(a.clone());
        };
        let mut wires = Vec::with_capacity(a.wires.len());
        for j in 0..c {
            for i in 0..r {
                wires.extend_from_slice(a.element(i * c + j));
            }
        }
        Ok(self.value(a.ty, Shape::Matrix(c, r), wires))
    }
}
