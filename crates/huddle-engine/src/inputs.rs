//! What a party brings to a run, and the checks of it before anything is
//! sent.
//!
//! A party's own input values: rows it was given, or random rows drawn
//! where they are needed. A batch evaluated slice by slice (`--share-memory`)
//! then holds only the slice's random rows, so the party's memory is bounded
//! however large the batch of random instances. Every protocol checks them
//! against the circuit first (`check_own_inputs`, `check_own_values`),
//! and the party the outputs go to (`--reveal-to`) against the run's parties
//! (`check_reveal_to`; [`learns`] says who gets them).

use crate::error::RunError;
use huddle_circuit::{BitMatrix, Circuit};
use huddle_core::prg::{Prg, Seed};
use huddle_net::PartyId;
use std::ops::Range;

/// One input value of this party, for every instance of the batch.
pub enum OwnValue {
    /// One row per instance.
    Rows(BitMatrix),
    /// Random rows, instance 0's possibly given.
    Random(RandomRows),
}

/// Random rows of `bits` bits, drawn bitsliced: bit c of instance i is bit
/// i % 64 of word i / 64 of column c's stretch of the stream of `seed`, at a
/// fixed place. So any range of instances is drawn on its own, in any order,
/// and alike however the batch is sliced; and a Boolean value's share words
/// (one word per wire and 64 instances) are drawn as they are, with no
/// transposition.
#[derive(Clone)]
pub struct RandomRows {
    bits: usize,
    prg: Box<Prg>,
    /// Instance 0's row, when given.
    first: Option<Vec<u64>>,
}

/// Words of the stream per column: more than any batch has instances / 64,
/// so no column's stretch runs into the next one's (the stream's counter
/// has 128 bits).
const COLUMN_WORDS: u128 = 1 << 64;

impl RandomRows {
    /// Rows of `bits` bits from `seed`; `first` (words of a row) replaces
    /// instance 0's.
    pub fn new(bits: usize, seed: Seed, first: Option<Vec<u64>>) -> RandomRows {
        RandomRows {
            bits,
            prg: Box::new(Prg::from_seed(seed)),
            first,
        }
    }

    /// Bits per row.
    pub fn bits(&self) -> usize {
        self.bits
    }

    /// Column after column (one per bit of a row), the words of the
    /// instances `range`, whose start is a multiple of 64: bit k of a
    /// column's word j is instance `range.start + 64 j + k`, bits past the
    /// range zero.
    pub fn columns(&self, range: Range<usize>) -> Vec<u64> {
        assert!(
            range.start.is_multiple_of(64),
            "columns are drawn from a whole word on"
        );
        let w = range.len().div_ceil(64);
        let mut out = vec![0u64; self.bits * w];
        if w == 0 {
            return out;
        }
        let word = (range.start / 64) as u128;
        let tail = range.len() % 64;
        for (c, column) in out.chunks_exact_mut(w).enumerate() {
            self.prg
                .words_at((c as u128 * COLUMN_WORDS + word) * 8, column);
            if tail > 0 {
                column[w - 1] &= (1u64 << tail) - 1;
            }
        }
        if let (Some(first), 0) = (&self.first, range.start) {
            for (c, column) in out.chunks_exact_mut(w).enumerate() {
                let bit = (first[c / 64] >> (c % 64)) & 1;
                column[0] = (column[0] & !1) | bit;
            }
        }
        out
    }

    /// The rows of the instances `range`.
    pub fn rows(&self, range: Range<usize>) -> BitMatrix {
        let start = range.start / 64 * 64;
        let end = range.end.div_ceil(64) * 64;
        let columns = BitMatrix::from_row_words(self.bits, end - start, self.columns(start..end))
            .expect("a column per bit, whole words each");
        let all = columns.transpose();
        let mut m = BitMatrix::zeros(range.len(), self.bits);
        for (k, i) in range.enumerate() {
            m.row_mut(k).copy_from_slice(all.row(i - start));
        }
        m
    }
}

impl OwnValue {
    /// Bits per instance.
    pub fn bits(&self) -> usize {
        match self {
            OwnValue::Rows(m) => m.cols(),
            OwnValue::Random(r) => r.bits(),
        }
    }

    /// Instances it holds (`None`: as many as asked for).
    pub fn rows(&self) -> Option<usize> {
        match self {
            OwnValue::Rows(m) => Some(m.rows()),
            OwnValue::Random(_) => None,
        }
    }

    /// Every one of `instances` instances as one matrix.
    pub fn into_matrix(self, instances: usize) -> BitMatrix {
        match self {
            OwnValue::Rows(m) => m,
            OwnValue::Random(r) => r.rows(0..instances),
        }
    }
}

/// Checks that `own_inputs` are exactly the input values party `me` owns, in
/// order, each with `instances` rows of the right width.
pub(crate) fn check_own_inputs(
    me: PartyId,
    parties: usize,
    circuit: &Circuit,
    instances: usize,
    own_inputs: &[(usize, BitMatrix)],
) -> Result<(), RunError> {
    let shapes = own_inputs
        .iter()
        .map(|(i, m)| (*i, m.cols(), Some(m.rows())));
    check_shapes(me, parties, circuit, instances, shapes.collect())
}

/// [`check_own_inputs`] for values that may be drawn where needed.
pub(crate) fn check_own_values(
    me: PartyId,
    parties: usize,
    circuit: &Circuit,
    instances: usize,
    own_inputs: &[(usize, OwnValue)],
) -> Result<(), RunError> {
    let shapes = own_inputs.iter().map(|(i, v)| (*i, v.bits(), v.rows()));
    check_shapes(me, parties, circuit, instances, shapes.collect())
}

/// Per value given: its index, bits and instances (`None`: any number).
fn check_shapes(
    me: PartyId,
    parties: usize,
    circuit: &Circuit,
    instances: usize,
    shapes: Vec<(usize, usize, Option<usize>)>,
) -> Result<(), RunError> {
    let owned: Vec<usize> = (0..circuit.inputs().len())
        .filter(|&i| circuit.owner(i, parties) == me)
        .collect();
    let given: Vec<usize> = shapes.iter().map(|(i, ..)| *i).collect();
    if given != owned {
        return Err(RunError::Input(format!(
            "party {me} owns input values {owned:?} but was given {given:?}"
        )));
    }
    for (i, bits, rows) in shapes {
        let rows = rows.unwrap_or(instances);
        if rows != instances || bits != circuit.input_bits(i) {
            return Err(RunError::Input(format!(
                "input value {i} must be {instances} instances of {} bits, got {rows} of {bits}",
                circuit.input_bits(i),
            )));
        }
    }
    Ok(())
}

/// Refuses outputs for a party that is not in the run.
pub(crate) fn check_reveal_to(to: Option<usize>, parties: usize) -> Result<(), RunError> {
    match to.filter(|&t| t >= parties) {
        Some(t) => Err(RunError::Input(format!(
            "outputs cannot go to party {t}: the run has parties 0..{}",
            parties - 1
        ))),
        None => Ok(()),
    }
}

/// Whether party `p` learns the outputs when they go to `to`.
pub(crate) fn learns(p: PartyId, to: Option<PartyId>) -> bool {
    to.is_none_or(|t| t == p)
}

/// The most instances one run evaluates at once.
pub const MAX_BATCH: usize = 1 << 26;

/// Refuses a batch of no instances or more than [`MAX_BATCH`].
pub(crate) fn check_batch(batch: usize) -> Result<(), RunError> {
    if batch == 0 || batch > MAX_BATCH {
        return Err(RunError::Input(format!(
            "a run evaluates 1 to {MAX_BATCH} instances, not {batch}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_rows_are_alike_however_the_batch_is_cut() {
        let first = vec![0x1234, 0x5];
        let r = RandomRows::new(70, [9; 16], Some(first.clone()));
        let all = r.rows(0..1000);
        assert_eq!(all.row(0), &first[..]);
        for cut in [(0..1), (1..64), (64..200), (999..1000), (0..1000)] {
            let part = r.rows(cut.clone());
            for (k, i) in cut.enumerate() {
                assert_eq!(part.row(k), all.row(i), "instance {i}");
            }
        }
        // Rows are masked to 70 bits and differ from one another.
        assert!((1..1000).all(|i| all.row(i)[1] >> 6 == 0));
        assert_ne!(all.row(1), all.row(2));
        let other = RandomRows::new(70, [10; 16], None).rows(0..2);
        assert_ne!(other.row(1), all.row(1));
    }

    #[test]
    fn columns_are_the_rows_bitsliced_from_any_whole_word_on() {
        let first = vec![0xdead_beef, 0x2a];
        let r = RandomRows::new(70, [3; 16], Some(first.clone()));
        for range in [0..1000, 64..200, 128..129, 0..64, 960..1000] {
            let rows = r.rows(range.clone());
            let w = range.len().div_ceil(64);
            let columns = r.columns(range.clone());
            assert_eq!(columns.len(), 70 * w);
            for c in 0..70 {
                for k in 0..w * 64 {
                    let bit = (columns[c * w + k / 64] >> (k % 64)) & 1 == 1;
                    // Bits past the range are zero.
                    let want = k < range.len() && rows.get(k, c);
                    assert_eq!(bit, want, "range {range:?} column {c} instance {k}");
                }
            }
        }
        // A large batch's column does not run into the next column's stream.
        let far = 64 << 20;
        let r = RandomRows::new(2, [5; 16], None);
        assert_ne!(r.columns(far..far + 64)[0], r.columns(0..64)[1]);
        let r = RandomRows::new(70, [3; 16], Some(first.clone()));
        // Instance 0 is the given row, in the columns too.
        let columns = r.columns(0..64);
        for c in 0..70 {
            assert_eq!(columns[c] & 1, (first[c / 64] >> (c % 64)) & 1);
        }
    }
}
