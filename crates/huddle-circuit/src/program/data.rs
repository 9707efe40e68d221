//! Numbers in and out: [`Data`] (a flat array of one element type, as
//! numpy holds it) encoded into the rows of a party's circuit input
//! values (`inputs.rs`) and decoded from output rows
//! ([`Interface::decode_output`], or [`super::Pads::decode`] for a
//! party's outputs, masked or not). Element e of instance r is number
//! r·E + e (E elements per instance, row after row); in the row it is bits
//! e·b..e·b + b − 1 (b bits per element), the layout of every circuit
//! value. Encoding is exact or an error: a number the type cannot hold is
//! refused, never wrapped.

use super::error::{shape_error, usage_error, value_error, Result};
use super::interface::{Interface, OutputSpec};
use super::types::{Number, Type};
use crate::model::Domain;
use huddle_core::BitMatrix;

/// A flat array of numbers.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// Bits.
    Bools(Vec<bool>),
    /// Signed integers.
    Ints(Vec<i64>),
    /// Unsigned integers.
    UInts(Vec<u64>),
    /// Real numbers (fixed point).
    Floats(Vec<f64>),
}

impl Data {
    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            Data::Bools(v) => v.len(),
            Data::Ints(v) => v.len(),
            Data::UInts(v) => v.len(),
            Data::Floats(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i`.
    pub fn number(&self, i: usize) -> Number {
        match self {
            Data::Bools(v) => Number::from(v[i]),
            Data::Ints(v) => Number::from(v[i]),
            Data::UInts(v) => Number::from(v[i]),
            Data::Floats(v) => Number::from(v[i]),
        }
    }

    /// The numbers of `raws`, each decoded as `ty`: bits as `Bools`,
    /// unsigned as `UInts`, signed and ring integers as `Ints`, fixed
    /// point as `Floats`.
    fn decode(ty: Type, raws: impl Iterator<Item = u64>) -> Data {
        let int = |raw| match ty.decode(raw) {
            Number::Int(n) => n,
            Number::Float(_) => unreachable!("integer types decode to integers"),
        };
        match ty {
            Type::Bit => Data::Bools(raws.map(|r| r & 1 == 1).collect()),
            Type::UInt(_) => Data::UInts(raws.map(|r| int(r) as u64).collect()),
            Type::SInt(_) | Type::Int(_) => Data::Ints(raws.map(|r| int(r) as i64).collect()),
            Type::Fixed(..) => Data::Floats(
                raws.map(|r| match ty.decode(r) {
                    Number::Float(x) => x,
                    Number::Int(n) => n as f64,
                })
                .collect(),
            ),
        }
    }
}

/// Writes the low `bits` bits of `raw` at bit `pos` of `row`.
fn put(row: &mut [u64], pos: usize, bits: u32, raw: u64) {
    let (word, shift) = (pos / 64, pos % 64);
    row[word] |= raw << shift;
    if shift as u32 + bits > 64 {
        row[word + 1] |= raw >> (64 - shift);
    }
}

/// The `bits` bits at bit `pos` of `row`.
fn get(row: &[u64], pos: usize, bits: u32) -> u64 {
    let (word, shift) = (pos / 64, pos % 64);
    let mut raw = row[word] >> shift;
    if shift as u32 + bits > 64 {
        raw |= row[word + 1] << (64 - shift);
    }
    raw & (u64::MAX >> (64 - bits))
}

/// `data` as rows: instance r gives `given[r]` ≤ `elements` numbers of
/// `ty` (fewer for a variable-length input: its rows given, the rest
/// zeros), instance after instance.
pub(super) fn encode(
    what: &str,
    ty: Type,
    elements: usize,
    given: &[usize],
    data: &Data,
) -> Result<BitMatrix> {
    let batch = given.len();
    let total: usize = given.iter().sum();
    if data.len() != total {
        return shape_error(match given.first() {
            Some(&g) if given.iter().all(|&n| n == g) => format!(
                "{what}: {} numbers given for {batch} instance(s) of {g} elements",
                data.len()
            ),
            _ => format!(
                "{what}: {} numbers given for {total} elements of {batch} instances",
                data.len()
            ),
        });
    }
    let b = ty.bits();
    let mut m = BitMatrix::zeros(batch, elements * b as usize);
    let mut at = 0;
    for (r, &n) in given.iter().enumerate() {
        let row = m.row_mut(r);
        for e in 0..n {
            let raw = ty.encode(data.number(at + e)).or_else(|why| {
                value_error(format!("{what}: element {e} of instance {r}: {why}"))
            })?;
            put(row, e * b as usize, b, raw);
        }
        at += n;
    }
    Ok(m)
}

/// The numbers of output `out` from its rows, less `pad` (rows of the
/// same shape) where the output is masked.
pub(super) fn decode_rows(
    out: &OutputSpec,
    rows: &BitMatrix,
    pad: Option<&BitMatrix>,
) -> Result<Data> {
    let (n, b) = (out.shape.len(), out.ty.bits());
    if rows.cols() != n * b as usize {
        return shape_error(format!(
            "output {:?}: rows of {} bits given, the output has {}",
            out.name,
            rows.cols(),
            n * b as usize
        ));
    }
    let unmask = |r: usize, e: usize, raw: u64| match pad {
        None => raw,
        Some(pad) => {
            let key = get(pad.row(r), e * b as usize, b);
            match out.ty.domain() {
                Domain::Bit => raw ^ key,
                Domain::Ring => raw.wrapping_sub(key),
            }
        }
    };
    let raws = (0..rows.rows())
        .flat_map(|r| (0..n).map(move |e| unmask(r, e, get(rows.row(r), e * b as usize, b))));
    Ok(Data::decode(out.ty, raws))
}

impl Interface {
    /// The numbers of output `index` from its rows (one per instance). An
    /// output masked for its receiver is refused: only that party's
    /// pads decode it ([`super::Pads::decode`]).
    pub fn decode_output(&self, index: usize, rows: &BitMatrix) -> Result<Data> {
        let Some(out) = self.outputs.get(index) else {
            return usage_error(format!("output {index} does not exist"));
        };
        if out.mask.is_some() {
            return usage_error(format!(
                "output {:?} goes to {} and is revealed masked with its one-time pad: \
                 only the pads of that party (from PartyInputs::finish) decode it, with Pads::decode",
                out.name, out.to
            ));
        }
        decode_rows(out, rows, None)
    }
}
