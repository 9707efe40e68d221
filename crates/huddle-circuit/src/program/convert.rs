//! Conversions between types, compiled to the circuit's conversion gates:
//! Boolean to ring by B2A of each bit (weighted), ring to Boolean by one
//! A2B. Every conversion is Rust's `as` on the numbers: the value if the
//! target holds it, else wrapped to the target's width; fixed point to an
//! integer rounds toward −∞ (⌊x⌋, exact).

use super::error::Result;
use super::types::Type;
use super::value::Value;
use super::{bits, ring, Program};
use crate::builder::Builder;
use crate::model::WireId;

impl Program {
    /// `a` converted to `to` (see the module documentation).
    pub fn convert(&mut self, a: &Value, to: Type) -> Result<Value> {
        let op = format!("convert to {to}");
        self.own(&op, a)?;
        let to = self.use_type(&op, to)?;
        let from = a.ty;
        let signed = from.is_signed();
        let width = to.bits() as usize;
        Ok(match (from, to) {
            (_, _) if from == to => a.clone(),
            // Boolean to Boolean: truncate or extend.
            (
                Type::Bit | Type::UInt(_) | Type::SInt(_),
                Type::Bit | Type::UInt(_) | Type::SInt(_),
            ) => self.map(a, to, |b, p| bits::resize(b, p, width, signed)),
            // Boolean to ring: Σ 2^(j+f)·bit_j, the sign bit negative.
            (Type::Bit | Type::UInt(_) | Type::SInt(_), Type::Int(_) | Type::Fixed(..)) => {
                let shift = fraction(to);
                self.map(a, to, |b, p| vec![ring::from_bits(b, p, signed, shift)])
            }
            // Ring to Boolean: the bits of ⌊a / 2^f⌋, sign-extended.
            (Type::Int(_) | Type::Fixed(..), Type::Bit | Type::UInt(_) | Type::SInt(_)) => {
                let shift = fraction(from) as usize;
                self.map(a, to, |b, p| ring_to_bits(b, p[0], shift, width))
            }
            (Type::Int(_) | Type::Fixed(..), Type::Int(_) | Type::Fixed(..)) => {
                let (f_from, f_to) = (fraction(from), fraction(to));
                if f_to >= f_from {
                    self.map(a, to, |b, p| vec![ring::shl(b, p[0], f_to - f_from)])
                } else {
                    self.map(a, to, |b, p| vec![ring::shr(b, p[0], f_from - f_to)])
                }
            }
        })
    }
}

/// Fractional bits of a type (0 for integers).
fn fraction(ty: Type) -> u32 {
    match ty {
        Type::Fixed(_, f) => u32::from(f),
        _ => 0,
    }
}

/// Bits shift.. of the ring element x (one A2B), as `width` bits with the
/// sign (x's top bit) filling above.
fn ring_to_bits(b: &mut Builder, x: WireId, shift: usize, width: usize) -> Vec<WireId> {
    let all = b.to_bits(x);
    bits::resize(b, &all[shift..], width, true)
}
