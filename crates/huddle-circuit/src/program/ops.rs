//! The elementwise operators: arithmetic, bitwise, comparisons, min, max,
//! select, negation, abs and shifts by public amounts. Operands have one
//! type (a literal takes the other operand's); shapes are equal or one is
//! a scalar, which broadcasts.

use super::error::{shape_error, type_error, Result};
use super::types::{Shape, Type};
use super::value::{Operand, Value};
use super::{bits, ring, Program};
use crate::builder::Builder;
use crate::model::{Domain, WireId};

/// A binary operator on two values of one type, giving that type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// a + b, wrapping.
    Add,
    /// a − b, wrapping.
    Sub,
    /// a · b, wrapping; fixed point truncates (see the module documentation).
    Mul,
    /// Bitwise AND (Boolean domain).
    And,
    /// Bitwise OR (Boolean domain).
    Or,
    /// Bitwise XOR (Boolean domain).
    Xor,
    /// The smaller.
    Min,
    /// The larger.
    Max,
}

/// A comparison, giving bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// a = b.
    Eq,
    /// a ≠ b.
    Ne,
    /// a < b.
    Lt,
    /// a ≤ b.
    Le,
    /// a > b.
    Gt,
    /// a ≥ b.
    Ge,
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// −a, wrapping (the least signed value is its own negation).
    Neg,
    /// Bitwise NOT; for ring integers −a − 1, as two's complement.
    Not,
    /// |a|, wrapping like `i64::wrapping_abs`; unsigned values are their own.
    Abs,
}

impl BinOp {
    fn name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
            BinOp::Min => "min",
            BinOp::Max => "max",
        }
    }
}

impl CmpOp {
    fn name(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// The shape of an elementwise result, or why the shapes do not combine.
pub(super) fn broadcast(op: &str, shapes: &[Shape]) -> Result<Shape> {
    let mut out = Shape::Scalar;
    for &s in shapes {
        if s == Shape::Scalar || s == out {
            continue;
        }
        if out != Shape::Scalar {
            let list: Vec<String> = shapes.iter().map(Shape::to_string).collect();
            return shape_error(format!(
                "{op}: shapes {} do not match (only scalars broadcast)",
                list.join(" and ")
            ));
        }
        out = s;
    }
    Ok(out)
}

/// The index into a value broadcast over `i`.
fn at(v: &Value, i: usize) -> usize {
    if v.shape == Shape::Scalar {
        0
    } else {
        i
    }
}

impl Program {
    /// Resolves two operands to values of one type and their result shape.
    pub(super) fn pair(
        &mut self,
        op: &str,
        a: Operand,
        b: Operand,
    ) -> Result<(Value, Value, Shape)> {
        let ty = |x: &Operand| match x {
            Operand::Value(v) => Some(v.ty),
            Operand::Literal(_) => None,
        };
        let (ta, tb) = (ty(&a), ty(&b));
        let x = self.operand(op, a, tb)?;
        let y = self.operand(op, b, ta.or(Some(x.ty)))?;
        if x.ty != y.ty {
            return type_error(format!(
                "{op}: the operands' types differ: {} and {} (convert one with `convert`)",
                x.describe(),
                y.describe()
            ));
        }
        let shape = broadcast(op, &[x.shape, y.shape])?;
        Ok((x, y, shape))
    }

    /// Applies `f` to every pair of elements (as wires).
    fn zip(
        &mut self,
        x: &Value,
        y: &Value,
        shape: Shape,
        ty: Type,
        mut f: impl FnMut(&mut Builder, &[WireId], &[WireId]) -> Vec<WireId>,
    ) -> Value {
        let mut wires = Vec::with_capacity(shape.len() * ty.wires());
        for i in 0..shape.len() {
            let out = f(&mut self.builder, x.element(at(x, i)), y.element(at(y, i)));
            wires.extend_from_slice(&out);
        }
        self.value(ty, shape, wires)
    }

    /// `a op b`, elementwise.
    pub fn binary<'a>(
        &mut self,
        op: BinOp,
        a: impl Into<Operand<'a>>,
        b: impl Into<Operand<'a>>,
    ) -> Result<Value> {
        let (x, y, shape) = self.pair(op.name(), a.into(), b.into())?;
        let ty = x.ty;
        if matches!(op, BinOp::Min | BinOp::Max) {
            let below = self.compare_values(CmpOp::Lt, &x, &y, shape);
            let (smaller, larger) = if op == BinOp::Min { (&x, &y) } else { (&y, &x) };
            return self.select_values(&below, smaller, larger, shape);
        }
        if ty.domain() == Domain::Ring && matches!(op, BinOp::And | BinOp::Or | BinOp::Xor) {
            return type_error(format!(
                "{}: bitwise operators need Boolean-domain values, not {} (convert with `convert`)",
                op.name(),
                x.describe()
            ));
        }
        let w = ty.wires();
        let value = match (ty, op) {
            (Type::Bit, BinOp::Add | BinOp::Sub) | (_, BinOp::Xor) => {
                self.zip(&x, &y, shape, ty, |b, p, q| {
                    (0..w).map(|j| bits::xor(b, p[j], q[j])).collect()
                })
            }
            (Type::Bit, BinOp::Mul) | (_, BinOp::And) => self.zip(&x, &y, shape, ty, |b, p, q| {
                (0..w).map(|j| bits::and(b, p[j], q[j])).collect()
            }),
            (_, BinOp::Or) => self.zip(&x, &y, shape, ty, |b, p, q| {
                (0..w).map(|j| bits::or(b, p[j], q[j])).collect()
            }),
            (Type::UInt(_) | Type::SInt(_), BinOp::Add) => self.zip(&x, &y, shape, ty, bits::add),
            (Type::UInt(_) | Type::SInt(_), BinOp::Sub) => self.zip(&x, &y, shape, ty, bits::sub),
            (Type::UInt(_) | Type::SInt(_), BinOp::Mul) => self.zip(&x, &y, shape, ty, bits::mul),
            (_, BinOp::Add) => {
                self.zip(&x, &y, shape, ty, |b, p, q| vec![ring::add(b, p[0], q[0])])
            }
            (_, BinOp::Sub) => {
                self.zip(&x, &y, shape, ty, |b, p, q| vec![ring::sub(b, p[0], q[0])])
            }
            (Type::Fixed(_, f), BinOp::Mul) => self.zip(&x, &y, shape, ty, |b, p, q| {
                vec![fixed_mul(b, p[0], q[0], f)]
            }),
            _ => self.zip(&x, &y, shape, ty, |b, p, q| vec![ring::mul(b, p[0], q[0])]),
        };
        Ok(value)
    }

    /// `a op b`, elementwise, as bits; comparisons of signed types are signed.
    pub fn compare<'a>(
        &mut self,
        op: CmpOp,
        a: impl Into<Operand<'a>>,
        b: impl Into<Operand<'a>>,
    ) -> Result<Value> {
        let (x, y, shape) = self.pair(op.name(), a.into(), b.into())?;
        Ok(self.compare_values(op, &x, &y, shape))
    }

    pub(super) fn compare_values(
        &mut self,
        op: CmpOp,
        x: &Value,
        y: &Value,
        shape: Shape,
    ) -> Value {
        let ty = x.ty;
        let (x, y, negate) = match op {
            CmpOp::Eq | CmpOp::Lt => (x, y, false),
            CmpOp::Ne => (x, y, true),
            CmpOp::Gt => (y, x, false),
            CmpOp::Le => (y, x, true),
            CmpOp::Ge => (x, y, true),
        };
        let equality = matches!(op, CmpOp::Eq | CmpOp::Ne);
        self.zip(x, y, shape, Type::Bit, |b, p, q| {
            let bit = match (ty.domain(), equality) {
                (Domain::Bit, true) => bits::eq(b, p, q),
                (Domain::Bit, false) if ty.is_signed() => bits::lt_signed(b, p, q),
                (Domain::Bit, false) => bits::lt_unsigned(b, p, q),
                (Domain::Ring, true) => ring::eq(b, p[0], q[0]),
                (Domain::Ring, false) => ring::lt(b, p[0], q[0]),
            };
            vec![if negate { b.not(bit) } else { bit }]
        })
    }

    /// `-a`, `~a` or `|a|`, elementwise.
    pub fn unary(&mut self, op: UnOp, a: &Value) -> Result<Value> {
        let name = format!("{op:?}").to_lowercase();
        self.own(&name, a)?;
        let ty = a.ty;
        let w = ty.wires();
        let value = match (op, ty) {
            (UnOp::Not, Type::Fixed(..)) => {
                return type_error(format!(
                    "not: bitwise NOT of {} has no meaning",
                    a.describe()
                ))
            }
            (UnOp::Neg | UnOp::Abs, Type::Bit) | (UnOp::Abs, Type::UInt(_)) => a.clone(),
            (UnOp::Not, Type::Int(_)) => self.map(a, ty, |b, p| vec![ring::not(b, p[0])]),
            (UnOp::Not, _) => self.map(a, ty, |b, p| (0..w).map(|j| b.not(p[j])).collect()),
            (UnOp::Neg, Type::UInt(_) | Type::SInt(_)) => self.map(a, ty, bits::neg),
            (UnOp::Neg, _) => self.map(a, ty, |b, p| vec![ring::neg(b, p[0])]),
            (UnOp::Abs, Type::SInt(_)) => self.map(a, ty, |b, p| {
                let negated = bits::neg(b, p);
                bits::select(b, p[w - 1], &negated, p)
            }),
            (UnOp::Abs, _) => self.map(a, ty, |b, p| vec![ring::abs(b, p[0])]),
        };
        Ok(value)
    }

    /// `a << s` for a public s: wrapping (0 once s reaches the width).
    pub fn shift_left(&mut self, a: &Value, s: u32) -> Result<Value> {
        self.own("<<", a)?;
        Ok(match a.ty.domain() {
            Domain::Bit => self.map(a, a.ty, |b, p| bits::shl(b, p, s)),
            Domain::Ring => self.map(a, a.ty, |b, p| vec![ring::shl(b, p[0], s)]),
        })
    }

    /// `a >> s` for a public s: logical for unsigned types, arithmetic
    /// (⌊a / 2^s⌋, exact) for signed and ring types.
    pub fn shift_right(&mut self, a: &Value, s: u32) -> Result<Value> {
        self.own(">>", a)?;
        let signed = a.ty.is_signed();
        Ok(match a.ty.domain() {
            Domain::Bit => self.map(a, a.ty, |b, p| bits::shr(b, p, s, signed)),
            Domain::Ring => self.map(a, a.ty, |b, p| vec![ring::shr(b, p[0], s)]),
        })
    }

    /// `c ? a : b` elementwise, for bits `c`; a and b of one type (a
    /// literal takes the other's), shapes broadcasting.
    pub fn select<'a>(
        &mut self,
        c: &Value,
        a: impl Into<Operand<'a>>,
        b: impl Into<Operand<'a>>,
    ) -> Result<Value> {
        self.own("select", c)?;
        if c.ty != Type::Bit {
            return type_error(format!(
                "select: the condition must be bits, not {} (compare to get bits)",
                c.describe()
            ));
        }
        let (x, y, shape) = self.pair("select", a.into(), b.into())?;
        let shape = broadcast("select", &[c.shape, shape])?;
        self.select_values(c, &x, &y, shape)
    }

    pub(super) fn select_values(
        &mut self,
        c: &Value,
        x: &Value,
        y: &Value,
        shape: Shape,
    ) -> Result<Value> {
        let ty = x.ty;
        let mut wires = Vec::with_capacity(shape.len() * ty.wires());
        for i in 0..shape.len() {
            let bit = c.element(at(c, i))[0];
            let (p, q) = (x.element(at(x, i)), y.element(at(y, i)));
            match ty.domain() {
                Domain::Bit => wires.extend(bits::select(&mut self.builder, bit, p, q)),
                Domain::Ring => wires.push(ring::select(&mut self.builder, bit, p[0], q[0])),
            }
        }
        Ok(self.value(ty, shape, wires))
    }

    /// Applies `f` to every element.
    pub(super) fn map(
        &mut self,
        a: &Value,
        ty: Type,
        mut f: impl FnMut(&mut Builder, &[WireId]) -> Vec<WireId>,
    ) -> Value {
        let mut wires = Vec::with_capacity(a.shape.len() * ty.wires());
        for i in 0..a.shape.len() {
            wires.extend(f(&mut self.builder, a.element(i)));
        }
        self.value(ty, a.shape, wires)
    }
}

/// The fixed-point product: a public factor that is a whole number n
/// (its raw value a multiple of 2^f) is an exact, free n·x; else one DOTTR.
fn fixed_mul(b: &mut Builder, x: WireId, y: WireId, f: u8) -> WireId {
    let whole = |b: &Builder, w: WireId| {
        let ring = b.ring()?;
        let raw = i128::from(ring.signed(b.known(w)?));
        (raw % (1i128 << f) == 0).then_some((raw >> f) as u64)
    };
    match (whole(b, x), whole(b, y)) {
        (_, Some(n)) => ring::scale(b, x, n),
        (Some(n), _) => ring::scale(b, y, n),
        _ => ring::fixed_mul(b, x, y, f),
    }
}
