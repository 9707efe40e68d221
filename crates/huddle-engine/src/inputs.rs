//! A party's own input values: rows it was given, or random rows drawn
//! where they are needed. A batch evaluated slice by slice (`--share-memory`)
//! then holds only the slice's random rows, so the party's memory is bounded
//! however large the batch of random instances.

use huddle_circuit::BitMatrix;
use huddle_core::prg::{Prg, Seed};
use std::ops::Range;

/// One input value of this party, for every instance of the batch.
pub enum OwnValue {
    /// One row per instance.
    Rows(BitMatrix),
    /// Random rows, instance 0's possibly given.
    Random(RandomRows),
}

/// Random rows of `bits` bits: instance i's row is the stream of `seed` at
/// a fixed place, so any range of instances is drawn on its own, in any
/// order, and alike however the batch is sliced.
#[derive(Clone)]
pub struct RandomRows {
    bits: usize,
    prg: Box<Prg>,
    /// Instance 0's row, when given.
    first: Option<Vec<u64>>,
}

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

    /// The rows of the instances `range`.
    pub fn rows(&self, range: Range<usize>) -> BitMatrix {
        let mut m = BitMatrix::zeros(range.len(), self.bits);
        let row_words = self.bits.div_ceil(64);
        let position = (range.start * row_words * 8) as u128;
        let rows = m.rows();
        self.prg.words_at(position, m.row_range_mut(0, rows));
        if !self.bits.is_multiple_of(64) {
            let top = (1u64 << (self.bits % 64)) - 1;
            for r in 0..m.rows() {
                if let Some(last) = m.row_mut(r).last_mut() {
                    *last &= top;
                }
            }
        }
        if let (Some(first), 0) = (&self.first, range.start) {
            if !range.is_empty() {
                m.row_mut(0).copy_from_slice(first);
            }
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
}
