//! Dense bit matrices and their transpose.
//!
//! Protocols and the plaintext evaluator work "bitsliced": bit j of every
//! instance of a wire is packed into the same machine word. Users, files and
//! tests think "per instance": one value of `width` bits per instance. A
//! transpose converts between the two; it is done in 64x64 blocks so that it
//! costs a few instructions per bit-word rather than one per bit.

/// A `rows` x `cols` matrix of bits, row-major, every row padded to a whole
/// number of 64-bit words. Bit `c` of a row lives in word `c / 64` at bit
/// position `c % 64` (least significant first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitMatrix {
    rows: usize,
    cols: usize,
    words_per_row: usize,
    data: Vec<u64>,
}

impl BitMatrix {
    /// An all-zero matrix.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        let words_per_row = cols.div_ceil(64);
        BitMatrix {
            rows,
            cols,
            words_per_row,
            data: vec![0; rows * words_per_row],
        }
    }

    /// A matrix over `data`, row after row (`cols.div_ceil(64)` words per
    /// row, padding bits zero); `None` if the length does not fit.
    pub fn from_row_words(rows: usize, cols: usize, data: Vec<u64>) -> Option<Self> {
        let words_per_row = cols.div_ceil(64);
        (data.len() == rows.checked_mul(words_per_row)?).then_some(BitMatrix {
            rows,
            cols,
            words_per_row,
            data,
        })
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The number of columns (bits per row, without padding).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The 64-bit words each row occupies: `cols` rounded up to a whole word.
    pub fn words_per_row(&self) -> usize {
        self.words_per_row
    }

    /// The words of row `r` (padding bits beyond `cols` are zero).
    pub fn row(&self, r: usize) -> &[u64] {
        &self.data[r * self.words_per_row..(r + 1) * self.words_per_row]
    }

    /// Mutable words of row `r`. Callers must keep padding bits zero.
    pub fn row_mut(&mut self, r: usize) -> &mut [u64] {
        &mut self.data[r * self.words_per_row..(r + 1) * self.words_per_row]
    }

    /// The bit at row `r`, column `c`.
    ///
    /// # Panics
    /// If `(r, c)` lies outside the matrix.
    pub fn get(&self, r: usize, c: usize) -> bool {
        assert!(
            r < self.rows && c < self.cols,
            "bit ({r}, {c}) outside {}x{}",
            self.rows,
            self.cols
        );
        (self.data[r * self.words_per_row + c / 64] >> (c % 64)) & 1 == 1
    }

    /// Sets the bit at row `r`, column `c` to `bit`.
    ///
    /// # Panics
    /// If `(r, c)` lies outside the matrix.
    pub fn set(&mut self, r: usize, c: usize, bit: bool) {
        assert!(
            r < self.rows && c < self.cols,
            "bit ({r}, {c}) outside {}x{}",
            self.rows,
            self.cols
        );
        let w = &mut self.data[r * self.words_per_row + c / 64];
        let m = 1u64 << (c % 64);
        if bit {
            *w |= m
        } else {
            *w &= !m
        }
    }

    /// The words of rows `start..end`, contiguous.
    pub fn row_range(&self, start: usize, end: usize) -> &[u64] {
        &self.data[start * self.words_per_row..end * self.words_per_row]
    }

    /// Mutable words of rows `start..end`. Callers must keep padding bits zero.
    pub fn row_range_mut(&mut self, start: usize, end: usize) -> &mut [u64] {
        &mut self.data[start * self.words_per_row..end * self.words_per_row]
    }

    /// All words, row after row.
    pub fn as_words(&self) -> &[u64] {
        &self.data
    }

    /// All words, row after row, without a copy.
    pub fn into_words(self) -> Vec<u64> {
        self.data
    }

    /// The transpose: a `cols` x `rows` matrix.
    pub fn transpose(&self) -> BitMatrix {
        let mut out = BitMatrix::zeros(self.cols, self.rows);
        let mut block = [0u64; 64];
        for rb in 0..self.rows.div_ceil(64) {
            for cb in 0..self.words_per_row {
                // Gather a 64x64 block: block[i] = word cb of row 64*rb + i.
                let live_rows = (self.rows - rb * 64).min(64);
                for (i, slot) in block.iter_mut().enumerate() {
                    *slot = if i < live_rows {
                        self.data[(rb * 64 + i) * self.words_per_row + cb]
                    } else {
                        0
                    };
                }
                transpose_64x64(&mut block);
                let live_cols = (self.cols - cb * 64).min(64);
                for (j, word) in block.iter().enumerate().take(live_cols) {
                    out.data[(cb * 64 + j) * out.words_per_row + rb] = *word;
                }
            }
        }
        out
    }
}

/// Transposes a 64x64 bit block in place: afterwards bit i of word j is the
/// former bit j of word i. Recursive block swaps, 6 passes of 32 word pairs.
pub fn transpose_64x64(a: &mut [u64; 64]) {
    let mut width = 32;
    let mut mask: u64 = 0x0000_0000_FFFF_FFFF;
    while width != 0 {
        let mut k = 0;
        while k < 64 {
            // Pair rows k and k + width inside every block of 2*width rows.
            for i in k..k + width {
                let lo = a[i];
                let hi = a[i + width];
                let t = ((lo >> width) ^ hi) & mask;
                a[i] = lo ^ (t << width);
                a[i + width] = hi ^ t;
            }
            k += 2 * width;
        }
        width >>= 1;
        mask ^= mask << width;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive_transpose(m: &BitMatrix) -> BitMatrix {
        let mut t = BitMatrix::zeros(m.cols(), m.rows());
        for r in 0..m.rows() {
            for c in 0..m.cols() {
                t.set(c, r, m.get(r, c));
            }
        }
        t
    }

    #[test]
    fn block_transpose_moves_single_bits() {
        for (i, j) in [(0, 0), (0, 63), (63, 0), (5, 17), (40, 2)] {
            let mut a = [0u64; 64];
            a[i] = 1 << j;
            transpose_64x64(&mut a);
            let mut expect = [0u64; 64];
            expect[j] = 1 << i;
            assert_eq!(a, expect, "bit ({i},{j})");
        }
    }

    proptest! {
        #[test]
        fn transpose_matches_naive(rows in 0usize..200, cols in 0usize..200, seed: u64) {
            let mut m = BitMatrix::zeros(rows, cols);
            let mut s = seed | 1;
            for r in 0..rows {
                for c in 0..cols {
                    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
                    m.set(r, c, s & 1 == 1);
                }
            }
            let t = m.transpose();
            prop_assert_eq!(&t, &naive_transpose(&m));
            prop_assert_eq!(t.transpose(), m);
        }
    }
}
