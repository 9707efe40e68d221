//! What a value is: its element [`Type`], its [`Shape`], and how one
//! element's number becomes the bits the circuit carries and back
//! ([`Type::encode`], [`Type::decode`]): exact, and refusing numbers the
//! type cannot hold rather than wrapping them.

use crate::model::Domain;
use huddle_core::RingWidth;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The type of every element of a value.
///
/// Boolean-domain types are carried as bits (one wire per bit, least
/// significant first); ring types as one element of the program's ring
/// Z_2^k each. Arithmetic wraps around at the type's width: two's
/// complement for the signed ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Type {
    /// One bit (Boolean domain); arithmetic on bits is modulo 2.
    Bit,
    /// An unsigned integer of 1 to 64 bits (Boolean domain).
    UInt(u32),
    /// A signed (two's complement) integer of 1 to 64 bits (Boolean domain).
    SInt(u32),
    /// A signed integer of the ring Z_2^k (arithmetic domain).
    Int(RingWidth),
    /// A fixed-point number x·2^f held as a signed ring element, with `f`
    /// fractional bits (1 ≤ f < k).
    Fixed(RingWidth, u8),
}

impl Type {
    /// Checks the type's parameters: widths 1..=64, fractional bits 1..k.
    pub fn check(self) -> Result<Type, String> {
        match self {
            Type::UInt(w) | Type::SInt(w) if !(1..=64).contains(&w) => {
                Err(format!("an integer type has 1 to 64 bits, not {w}"))
            }
            Type::Fixed(ring, f) if f == 0 || u32::from(f) >= ring.bits() => Err(format!(
                "a fixed-point type over Z_2^{} has 1 to {} fractional bits, not {f}",
                ring.bits(),
                ring.bits() - 1
            )),
            t => Ok(t),
        }
    }

    /// Where the type's elements live.
    pub fn domain(self) -> Domain {
        match self {
            Type::Bit | Type::UInt(_) | Type::SInt(_) => Domain::Bit,
            Type::Int(_) | Type::Fixed(..) => Domain::Ring,
        }
    }

    /// The ring a ring type computes in.
    pub fn ring(self) -> Option<RingWidth> {
        match self {
            Type::Int(r) | Type::Fixed(r, _) => Some(r),
            _ => None,
        }
    }

    /// Bits of one element: the width, or k for ring types.
    pub fn bits(self) -> u32 {
        match self {
            Type::Bit => 1,
            Type::UInt(w) | Type::SInt(w) => w,
            Type::Int(r) | Type::Fixed(r, _) => r.bits(),
        }
    }

    /// Wires of one element: its bits in the Boolean domain, else one.
    pub fn wires(self) -> usize {
        match self.domain() {
            Domain::Bit => self.bits() as usize,
            Domain::Ring => 1,
        }
    }

    /// Whether the type reads its top bit as a sign.
    pub fn is_signed(self) -> bool {
        !matches!(self, Type::Bit | Type::UInt(_))
    }

    /// Mask of the element's bits.
    fn mask(self) -> u64 {
        u64::MAX >> (64 - self.bits())
    }

    /// The element bits of `number`, or why the type cannot hold it
    /// exactly. Integers must lie in the type's range (a bit: 0 or 1);
    /// fixed point takes any finite number whose x·2^f, rounded to the
    /// nearest integer (ties away from zero), lies in the signed k-bit range.
    pub fn encode(self, number: Number) -> Result<u64, String> {
        let (min, max): (i128, i128) = match self {
            Type::Bit => (0, 1),
            Type::UInt(w) => (0, (1i128 << w) - 1),
            _ => (
                -(1i128 << (self.bits() - 1)),
                (1i128 << (self.bits() - 1)) - 1,
            ),
        };
        let scaled: i128 = match (self, number) {
            (Type::Fixed(_, f), Number::Float(x)) => {
                let y = (x * 2f64.powi(i32::from(f))).round();
                if !y.is_finite() || y.abs() > 2f64.powi(100) {
                    return Err(format!("{self} cannot hold {x}"));
                }
                y as i128
            }
            (Type::Fixed(_, f), Number::Int(n)) => n.saturating_mul(1i128 << f),
            (_, Number::Float(x)) => {
                return Err(format!("{self} holds integers, not {x}"));
            }
            (_, Number::Int(n)) => n,
        };
        if scaled < min || scaled > max {
            let range = match self {
                Type::Fixed(_, f) => {
                    let unit = 2f64.powi(i32::from(f));
                    format!("{} to {}", min as f64 / unit, max as f64 / unit)
                }
                _ => format!("{min} to {max}"),
            };
            return Err(format!("{self} cannot hold {number}: its range is {range}"));
        }
        Ok(scaled as u64 & self.mask())
    }

    /// The number the element bits `raw` stand for (bits above the
    /// element's width are ignored).
    pub fn decode(self, raw: u64) -> Number {
        let raw = raw & self.mask();
        let signed = || {
            let unused = 64 - self.bits();
            i128::from(((raw << unused) as i64) >> unused)
        };
        match self {
            Type::Bit | Type::UInt(_) => Number::Int(i128::from(raw)),
            Type::SInt(_) | Type::Int(_) => Number::Int(signed()),
            Type::Fixed(_, f) => Number::Float(signed() as f64 / 2f64.powi(i32::from(f))),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Bit => write!(out, "bit"),
            Type::UInt(w) => write!(out, "u{w}"),
            Type::SInt(w) => write!(out, "i{w}"),
            Type::Int(r) => write!(out, "ring{}", r.bits()),
            Type::Fixed(r, f) => write!(out, "fixed{}.{f}", r.bits()),
        }
    }
}

impl From<Type> for String {
    fn from(t: Type) -> String {
        t.to_string()
    }
}

impl TryFrom<String> for Type {
    type Error = String;
    fn try_from(name: String) -> Result<Type, String> {
        name.parse()
    }
}

impl std::str::FromStr for Type {
    type Err = String;

    /// The type named as [`Type`]'s `Display` writes it: `bit`, `u8`,
    /// `i32`, `ring64`, `fixed64.16`.
    fn from_str(name: &str) -> Result<Type, String> {
        let bad = || {
            format!("unknown type {name:?} (bit, u1..u64, i1..i64, ring8..ring64, fixed<k>.<f>)")
        };
        let ring = |k: &str| {
            k.parse()
                .ok()
                .and_then(RingWidth::from_bits)
                .ok_or_else(bad)
        };
        let t = if name == "bit" {
            Type::Bit
        } else if let Some(rest) = name.strip_prefix("fixed") {
            let (k, f) = rest.split_once('.').ok_or_else(bad)?;
            Type::Fixed(ring(k)?, f.parse().map_err(|_| bad())?)
        } else if let Some(k) = name.strip_prefix("ring") {
            Type::Int(ring(k)?)
        } else if let Some(w) = name.strip_prefix('u') {
            Type::UInt(w.parse().map_err(|_| bad())?)
        } else if let Some(w) = name.strip_prefix('i') {
            Type::SInt(w.parse().map_err(|_| bad())?)
        } else {
            return Err(bad());
        };
        t.check()
    }
}

/// One element's number, as a user writes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    /// An integer (wide enough for every u64 and i64).
    Int(i128),
    /// A real number, for fixed point.
    Float(f64),
}

impl fmt::Display for Number {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(n) => write!(out, "{n}"),
            Number::Float(x) => write!(out, "{x}"),
        }
    }
}

impl From<i64> for Number {
    fn from(n: i64) -> Number {
        Number::Int(i128::from(n))
    }
}

impl From<u64> for Number {
    fn from(n: u64) -> Number {
        Number::Int(i128::from(n))
    }
}

impl From<f64> for Number {
    fn from(x: f64) -> Number {
        Number::Float(x)
    }
}

impl From<bool> for Number {
    fn from(b: bool) -> Number {
        Number::Int(i128::from(b))
    }
}

/// A value's shape: a scalar, a vector or a matrix (row-major).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Shape {
    /// One element.
    Scalar,
    /// n elements.
    Vector(usize),
    /// rows × columns elements, row after row.
    Matrix(usize, usize),
}

impl Shape {
    /// The number of elements.
    pub fn len(self) -> usize {
        match self {
            Shape::Scalar => 1,
            Shape::Vector(n) => n,
            Shape::Matrix(r, c) => r.saturating_mul(c),
        }
    }

    /// Whether the shape has no elements.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The dimensions, as numpy gives them (empty for a scalar).
    pub fn dims(self) -> Vec<usize> {
        match self {
            Shape::Scalar => vec![],
            Shape::Vector(n) => vec![n],
            Shape::Matrix(r, c) => vec![r, c],
        }
    }

    /// The shape of `dims` (at most two of them).
    pub fn from_dims(dims: &[usize]) -> Result<Shape, String> {
        match *dims {
            [] => Ok(Shape::Scalar),
            [n] => Ok(Shape::Vector(n)),
            [r, c] => Ok(Shape::Matrix(r, c)),
            _ => Err(format!(
                "shape {dims:?} has {} dimensions; values have at most 2",
                dims.len()
            )),
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Scalar => write!(out, "()"),
            Shape::Vector(n) => write!(out, "({n},)"),
            Shape::Matrix(r, c) => write!(out, "({r}, {c})"),
        }
    }
}
