//! One party's inputs by name ([`PartyInputs`]): its numbers encoded
//! into its circuit input values, and at the end ([`PartyInputs::finish`])
//! the one-time pads of the outputs masked for it (`pads.rs`).

use super::data::{encode, Data};
use super::error::{shape_error, usage_error, value_error, Result};
use super::interface::Interface;
use super::pads::Pads;
use huddle_core::BitMatrix;

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
    /// [`Interface::owned_by`]), or which one is missing; with the
    /// one-time pads of the outputs masked for this party, drawn now from
    /// the operating system's random generator and written into their
    /// input values. The pads are the only way to decode those outputs
    /// ([`Pads::decode`]), for this run only: finishing again draws new ones.
    pub fn finish(mut self) -> Result<(Vec<BitMatrix>, Pads)> {
        let iface = self.interface;
        let pads = Pads::draw(iface, self.party, self.batch)?;
        for (index, rows) in pads.values() {
            self.values[index] = Some(rows.clone());
        }
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
        Ok((out, pads))
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
