//! One-time pads of masked outputs (`receivers.rs`): drawn from the
//! operating system's random generator when a party's inputs are finished
//! ([`super::PartyInputs::finish`]), one per instance and masked output, and
//! kept by the party as [`Pads`], which decoding its outputs consumes
//! ([`Pads::decode`]), giving [`Outputs`]: the numbers it learns, by name.

use super::data::{decode_rows, Data};
use super::error::{usage_error, ErrorKind, ProgramError, Result};
use super::interface::Interface;
use super::value::Receiver;
use huddle_core::BitMatrix;
use std::fmt;

/// The one-time pads of one or more parties for one run: the only way to
/// decode the outputs masked for them. Neither `Clone` nor printable (its
/// `Debug` shows whose pads and how many, not their bits); decoding
/// consumes them, and every [`super::PartyInputs::finish`] draws new ones.
pub struct Pads {
    /// Whose pads, ascending.
    parties: Vec<usize>,
    batch: usize,
    /// Per output of the interface: its pad input value and rows, where it
    /// is masked for one of `parties`.
    outputs: Vec<Option<(usize, BitMatrix)>>,
}

impl Pads {
    /// Fresh pads of `party` for `batch` instances: uniformly random rows
    /// for each output masked for it.
    pub(super) fn draw(iface: &Interface, party: usize, batch: usize) -> Result<Pads> {
        let mut outputs = Vec::with_capacity(iface.outputs.len());
        for o in &iface.outputs {
            outputs.push(match (o.to, o.mask) {
                (Receiver::Party(p), Some(index)) if p == party => {
                    let bits = o.shape.len() * o.ty.bits() as usize;
                    Some((index, random_rows(batch, bits)?))
                }
                _ => None,
            });
        }
        Ok(Pads {
            parties: vec![party],
            batch,
            outputs,
        })
    }

    /// The pad input values and their rows.
    pub(super) fn values(&self) -> impl Iterator<Item = (usize, &BitMatrix)> {
        self.outputs.iter().flatten().map(|(i, m)| (*i, m))
    }

    /// The parties whose pads these are.
    pub fn parties(&self) -> &[usize] {
        &self.parties
    }

    /// Every one of `all`'s pads (each of other parties, for the same
    /// run): what a caller holding every party decodes with, e.g. around
    /// the plaintext evaluator or a run of every party in one process.
    pub fn join(all: impl IntoIterator<Item = Pads>) -> Result<Pads> {
        let mut all = all.into_iter();
        let Some(mut joined) = all.next() else {
            return usage_error("no pads to join");
        };
        for pads in all {
            if pads.batch != joined.batch || pads.outputs.len() != joined.outputs.len() {
                return usage_error("pads of different runs cannot be joined");
            }
            if let Some(p) = pads.parties.iter().find(|p| joined.parties.contains(p)) {
                return usage_error(format!("party {p}'s pads are given twice"));
            }
            joined.parties.extend(&pads.parties);
            for (mine, theirs) in joined.outputs.iter_mut().zip(pads.outputs) {
                if theirs.is_some() {
                    *mine = theirs;
                }
            }
        }
        joined.parties.sort_unstable();
        Ok(joined)
    }

    /// The outputs these parties learn, from the output rows their run
    /// gave them (one matrix per output, in order; none where the run
    /// reveals to another party), unmasked with the pads, which this
    /// consumes. An error if rows are missing or of another run.
    pub fn decode(self, iface: &Interface, rows: &[BitMatrix]) -> Result<Outputs> {
        let holder = holder(&self.parties);
        if self.outputs.len() != iface.outputs.len() {
            return usage_error(format!("{holder}'s pads belong to another program"));
        }
        let learns = |to| match to {
            Receiver::All => true,
            Receiver::Party(p) => self.parties.contains(&p),
        };
        let learned = iface.outputs.iter().filter(|o| learns(o.to)).count();
        if rows.len() != iface.outputs.len() && !(rows.is_empty() && learned == 0) {
            return usage_error(format!(
                "{} output(s) given, the program has {} and {holder} learns {learned}",
                rows.len(),
                iface.outputs.len()
            ));
        }
        let mut outputs = Vec::with_capacity(iface.outputs.len());
        for (i, (o, pad)) in iface.outputs.iter().zip(&self.outputs).enumerate() {
            if !learns(o.to) {
                outputs.push((o.name.clone(), o.to, None));
                continue;
            }
            let m = &rows[i];
            if m.rows() != self.batch {
                return usage_error(format!(
                    "output {:?}: {} instance(s) given, {holder}'s pads are for {}: \
                     pads decode only the run they were drawn for",
                    o.name,
                    m.rows(),
                    self.batch
                ));
            }
            let pad = match (o.mask, pad) {
                (None, _) => None,
                (Some(i), Some((j, pad))) if i == *j && pad.cols() == m.cols() => Some(pad),
                _ => {
                    return usage_error(format!(
                        "output {:?}: {holder}'s pads do not fit its mask",
                        o.name
                    ))
                }
            };
            outputs.push((o.name.clone(), o.to, Some(decode_rows(o, m, pad)?)));
        }
        Ok(Outputs { holder, outputs })
    }
}

impl fmt::Debug for Pads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pads")
            .field("parties", &self.parties)
            .field("batch", &self.batch)
            .field("masked_outputs", &self.values().count())
            .finish_non_exhaustive()
    }
}

/// The outputs one or more parties learn from a run: [`Pads::decode`].
#[derive(Clone, Debug, PartialEq)]
pub struct Outputs {
    /// "party 1" or "parties 0, 1, 2", for messages.
    holder: String,
    /// Every output of the program: name, receiver, numbers if learned.
    outputs: Vec<(String, Receiver, Option<Data>)>,
}

impl Outputs {
    /// The numbers of output `name`, or an error saying that there is no
    /// such output or that these parties do not learn it.
    pub fn get(&self, name: &str) -> Result<&Data> {
        match self.outputs.iter().find(|(n, ..)| n == name) {
            Some((_, _, Some(data))) => Ok(data),
            Some((_, to, None)) => usage_error(format!(
                "{} does not learn output {name:?}: it goes to {to}",
                self.holder
            )),
            None => usage_error(format!("the program has no output {name:?}")),
        }
    }

    /// The outputs learned, by name, in the program's order.
    pub fn learned(&self) -> impl Iterator<Item = (&str, &Data)> {
        self.outputs
            .iter()
            .filter_map(|(n, _, d)| d.as_ref().map(|d| (n.as_str(), d)))
    }

    /// The outputs learned, by name, in the program's order.
    pub fn into_learned(self) -> Vec<(String, Data)> {
        self.outputs
            .into_iter()
            .filter_map(|(n, _, d)| d.map(|d| (n, d)))
            .collect()
    }
}

/// "party 1" or "parties 0, 2".
fn holder(parties: &[usize]) -> String {
    match parties {
        [p] => format!("party {p}"),
        _ => {
            let ids: Vec<String> = parties.iter().map(usize::to_string).collect();
            format!("parties {}", ids.join(", "))
        }
    }
}

/// `rows` rows of `bits` uniformly random bits from the operating system.
fn random_rows(rows: usize, bits: usize) -> Result<BitMatrix> {
    let per_row = bits.div_ceil(64);
    let Some(len) = rows.checked_mul(per_row).and_then(|w| w.checked_mul(8)) else {
        return usage_error(format!("{rows} instances of {bits}-bit pads are too many"));
    };
    let mut bytes = vec![0u8; len];
    getrandom::fill(&mut bytes).map_err(|e| {
        ProgramError::new(
            ErrorKind::Entropy,
            format!("the operating system's random generator failed: {e}"),
        )
    })?;
    let tail = match bits % 64 {
        0 => u64::MAX,
        used => (1u64 << used) - 1,
    };
    let words = bytes
        .chunks_exact(8)
        .enumerate()
        .map(|(i, w)| {
            let word = u64::from_le_bytes(w.try_into().expect("chunks of 8 bytes"));
            if i % per_row == per_row - 1 {
                word & tail
            } else {
                word
            }
        })
        .collect();
    Ok(BitMatrix::from_row_words(rows, bits, words).expect("rows × words per row"))
}
