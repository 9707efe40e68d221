//! Numbers in and out: [`Data`] (a flat array of one element type, as
//! numpy holds it) encoded into the rows of a party's circuit input
//! values ([`PartyInputs`]) and decoded from output rows
//! ([`Interface::decode_output`]). Element e of instance r is number
//! r·E + e (E elements per instance, row after row); in the row it is bits
//! e·b..e·b + b − 1 (b bits per element), the layout of every circuit
//! value. Encoding is exact or an error: a number the type cannot hold is
//! refused, never wrapped.

use super::error::{shape_error, usage_error, value_error, Result};
use super::interface::Interface;
use super::types::{Number, Type};
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
fn encode(
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

/// One party's input values, filled by name and handed to a run.
pub struct PartyInputs<'a> {
    interface: &'a Interface,
    party: usize,
    batch: usize,
    /// Per circuit input value: its rows once given.
    values: Vec<Option<BitMatrix>>,
}

impl Interface {
    /// An empty set of `party`'s inputs for `batch` instances.
    pub fn party_inputs(&self, party: usize, batch: usize) -> PartyInputs<'_> {
        PartyInputs {
            interface: self,
            party,
            batch,
            values: vec![None; self.owners.len()],
        }
    }

    /// The numbers of output `index` from its rows (one per instance).
    pub fn decode_output(&self, index: usize, rows: &BitMatrix) -> Result<Data> {
        let Some(out) = self.outputs.get(index) else {
            return usage_error(format!("output {index} does not exist"));
        };
        let (n, b) = (out.shape.len(), out.ty.bits());
        if rows.cols() != n * b as usize {
            return shape_error(format!(
                "output {:?}: rows of {} bits given, the output has {}",
                out.name,
                rows.cols(),
                n * b as usize
            ));
        }
        let raws =
            (0..rows.rows()).flat_map(|r| (0..n).map(move |e| get(rows.row(r), e * b as usize, b)));
        Ok(Data::decode(out.ty, raws))
    }

    /// Every party's values (from [`PartyInputs::finish`], party by party)
    /// merged into the circuit's input values, in order: what a plaintext
    /// evaluation takes.
    pub fn merge(&self, per_party: Vec<Vec<BitMatrix>>) -> Result<Vec<BitMatrix>> {
        let mut lists: Vec<std::vec::IntoIter<BitMatrix>> =
            per_party.into_iter().map(Vec::into_iter).collect();
        let mut all = Vec::with_capacity(self.owners.len());
        for (i, &p) in self.owners.iter().enumerate() {
            match lists.get_mut(p).and_then(Iterator::next) {
                Some(m) => all.push(m),
                None => {
                    return usage_error(format!("party {p} gave no rows for circuit input {i}"))
                }
            }
        }
        Ok(all)
    }
}

impl PartyInputs<'_> {
    /// Gives the input or public parameter `name`: `data` holds
    /// `batch` × (its elements) numbers.
    pub fn set(&mut self, name: &str, data: &Data) -> Result<()> {
        let iface = self.interface;
        if let Some(p) = iface.public(name) {
            let what = format!("public {name:?} ({} {})", p.ty, p.shape);
            let Some(&index) = p.values.get(self.party) else {
                return usage_error(format!("{what}: party {} does not exist", self.party));
            };
            let n = p.shape.len();
            let m = encode(&what, p.ty, n, &vec![n; self.batch], data)?;
            return self.store(&what, index, m);
        }
        let spec = self.own_input(name)?;
        let what = format!("input {name:?} ({} {})", spec.ty, spec.shape);
        if spec.max_rows.is_some() {
            return usage_error(format!(
                "{what}: a variable-length input is given with set_rows"
            ));
        }
        let n = spec.shape.len();
        let m = encode(&what, spec.ty, n, &vec![n; self.batch], data)?;
        self.store(&what, spec.values[0], m)
    }

    /// Gives the variable-length input `name`: `rows` rows (at most its
    /// maximum) per instance, `data` holding `batch` × `rows` × (row
    /// length) numbers; its validity bits say `rows`.
    pub fn set_rows(&mut self, name: &str, data: &Data, rows: usize) -> Result<()> {
        self.set_rows_each(name, data, &vec![rows; self.batch])
    }

    /// Gives the variable-length input `name` with a row count per
    /// instance: `rows[r]` rows (at most its maximum) for instance r,
    /// `data` holding their numbers instance after instance.
    pub fn set_rows_each(&mut self, name: &str, data: &Data, rows: &[usize]) -> Result<()> {
        let spec = self.own_input(name)?;
        let what = format!("input {name:?} ({} {})", spec.ty, spec.shape);
        let Some(max) = spec.max_rows else {
            return usage_error(format!("{what}: has a fixed length; give it with set"));
        };
        if rows.len() != self.batch {
            return shape_error(format!(
                "{what}: row counts of {} instances given for {}",
                rows.len(),
                self.batch
            ));
        }
        if let Some(&n) = rows.iter().find(|&&n| n > max) {
            return value_error(format!("{what}: {n} rows given, at most {max} allowed"));
        }
        let per_row = spec.shape.len() / max;
        let given: Vec<usize> = rows.iter().map(|n| n * per_row).collect();
        let m = encode(&what, spec.ty, max * per_row, &given, data)?;
        let mut valid = BitMatrix::zeros(self.batch, max);
        for (r, &n) in rows.iter().enumerate() {
            for i in 0..n {
                valid.set(r, i, true);
            }
        }
        let (values, mask) = (spec.values[0], spec.values[1]);
        self.store(&what, values, m)?;
        self.store(&what, mask, valid)
    }

    /// The party's circuit input values, in circuit order (those of
    /// [`Interface::owned_by`]), or which one is missing.
    pub fn finish(self) -> Result<Vec<BitMatrix>> {
        let iface = self.interface;
        let mut out = Vec::new();
        for (i, value) in self.values.into_iter().enumerate() {
            if iface.owners[i] != self.party {
                continue;
            }
            match value {
                Some(m) => out.push(m),
                None => {
                    let name = iface
                        .inputs
                        .iter()
                        .find(|s| s.values.contains(&i))
                        .map(|s| s.name.clone())
                        .or_else(|| {
                            iface
                                .publics
                                .iter()
                                .find(|p| p.values.contains(&i))
                                .map(|p| p.name.clone())
                        })
                        .unwrap_or_default();
                    return usage_error(format!("party {} gave no value for {name:?}", self.party));
                }
            }
        }
        Ok(out)
    }

    fn own_input(&self, name: &str) -> Result<&super::interface::InputSpec> {
        match self.interface.input(name) {
            Some(s) if s.party == self.party => Ok(s),
            Some(s) => usage_error(format!(
                "input {name:?} belongs to party {}, not party {}",
                s.party, self.party
            )),
            None => usage_error(format!(
                "the program has no input or public parameter {name:?}"
            )),
        }
    }

    fn store(&mut self, what: &str, index: usize, m: BitMatrix) -> Result<()> {
        if self.values[index].is_some() {
            return usage_error(format!("{what}: given twice"));
        }
        self.values[index] = Some(m);
        Ok(())
    }
}
