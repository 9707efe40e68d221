//! Secret values under construction ([`Value`]), what operators take
//! ([`Operand`]: a value or a public literal) and who learns an output
//! ([`Receiver`]).

use super::types::{Number, Shape, Type};
use crate::model::WireId;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// A secret value of a [`super::Program`]: a type, a shape and the
/// circuit wires of its elements (element i holds wires
/// `i·w..(i+1)·w` for w = [`Type::wires`]). Cheap to clone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Value {
    pub(super) program: u64,
    pub(super) ty: Type,
    pub(super) shape: Shape,
    pub(super) wires: Arc<[WireId]>,
}

impl Value {
    /// The type of its elements.
    pub fn ty(&self) -> Type {
        self.ty
    }

    /// Its shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The wires of element `i`.
    pub(super) fn element(&self, i: usize) -> &[WireId] {
        let w = self.ty.wires();
        &self.wires[i * w..(i + 1) * w]
    }

    /// The wire of ring element `i` (ring types hold one wire each).
    pub(super) fn ring_element(&self, i: usize) -> WireId {
        self.wires[i]
    }

    /// "u8 (3,)": the type and shape, for messages.
    pub(super) fn describe(&self) -> String {
        format!("{} {}", self.ty, self.shape)
    }
}

/// An operand of an operator: a secret value, or a public number that
/// takes the type of the other operand (and is refused if it does not fit).
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    /// A value of the program.
    Value(&'a Value),
    /// A public scalar, compiled in as a constant.
    Literal(Number),
}

impl<'a> From<&'a Value> for Operand<'a> {
    fn from(v: &'a Value) -> Operand<'a> {
        Operand::Value(v)
    }
}

impl From<Number> for Operand<'_> {
    fn from(n: Number) -> Self {
        Operand::Literal(n)
    }
}

impl From<i64> for Operand<'_> {
    fn from(n: i64) -> Self {
        Operand::Literal(n.into())
    }
}

impl From<f64> for Operand<'_> {
    fn from(x: f64) -> Self {
        Operand::Literal(x.into())
    }
}

impl fmt::Display for Operand<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Value(v) => out.write_str(&v.describe()),
            Operand::Literal(n) => write!(out, "the literal {n}"),
        }
    }
}

/// Who learns an output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Receiver {
    /// Every party.
    All,
    /// One party.
    Party(usize),
}

impl fmt::Display for Receiver {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Receiver::All => out.write_str("all"),
            Receiver::Party(p) => write!(out, "party {p}"),
        }
    }
}
