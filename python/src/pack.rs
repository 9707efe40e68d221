//! The bulk work of [`crate::values`]: integers and 0/1 bits of a numpy
//! buffer into [`BitMatrix`] rows, and rows back into the buffers of output
//! arrays, a whole array per call and no Python object touched (the
//! callers run these with the GIL released). The layout is values.rs's.

use huddle_circuit::BitMatrix;

/// The elements of a numpy integer buffer (bools are read as uint8).
pub(crate) trait Int: Copy + Send + Sync {
    /// The type's range, widened.
    const RANGE: (i128, i128);
    /// The value, widened for the range checks.
    fn wide(self) -> i128;
    /// The buffer as bytes, where an element is one byte of its value (the
    /// fast path of bits given as uint8 or bool).
    fn bytes(values: &[Self]) -> Option<&[u8]> {
        let _ = values;
        None
    }
}

macro_rules! int {
    ($($t:ty),*) => {$(
        impl Int for $t {
            const RANGE: (i128, i128) = (<$t>::MIN as i128, <$t>::MAX as i128);
            fn wide(self) -> i128 {
                i128::from(self)
            }
        }
    )*};
}
int!(u16, u32, u64, i8, i16, i32, i64);

impl Int for u8 {
    const RANGE: (i128, i128) = (0, 255);
    fn wide(self) -> i128 {
        i128::from(self)
    }
    fn bytes(values: &[u8]) -> Option<&[u8]> {
        Some(values)
    }
}

/// Why a buffer's value was refused: the value, widened.
#[derive(Debug)]
pub(crate) enum Refused {
    /// A bit that is not 0 or 1.
    NotABit(i128),
    /// An integer outside -2^(bits-1) .. 2^bits.
    TooWide(i128),
}

/// Eight bytes of 0/1 (little-endian in `w`) as the eight bits of a byte:
/// the multiplier moves byte i's low bit to bit 56 + i, and no two
/// partial products meet (so nothing carries into the top byte).
fn gather8(w: u64) -> u64 {
    w.wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The low bit of each of eight bytes.
const ONES: u64 = 0x0101_0101_0101_0101;

/// A `rows` × `cols` matrix of the 0/1 `values`, row-major.
pub(crate) fn bits<T: Int>(values: &[T], rows: usize, cols: usize) -> Result<BitMatrix, Refused> {
    let mut m = BitMatrix::zeros(rows, cols);
    if cols == 0 {
        return Ok(m);
    }
    for (r, given) in values.chunks_exact(cols).take(rows).enumerate() {
        let row = m.row_mut(r);
        match T::bytes(given) {
            Some(bytes) => bits_of_bytes(bytes, row)?,
            None => {
                for (c, v) in given.iter().enumerate() {
                    match v.wide() {
                        0 => {}
                        1 => row[c / 64] |= 1 << (c % 64),
                        other => return Err(Refused::NotABit(other)),
                    }
                }
            }
        }
    }
    Ok(m)
}

/// One row of 0/1 bytes into `row`'s words, eight bytes per step; the
/// check of the bytes is one OR per step, its error found afterwards.
fn bits_of_bytes(bytes: &[u8], row: &mut [u64]) -> Result<(), Refused> {
    let mut stray = 0;
    let mut sixty_fours = bytes.chunks_exact(64);
    for (word, sixty_four) in row.iter_mut().zip(sixty_fours.by_ref()) {
        let mut packed = 0;
        for (i, eight) in sixty_four.chunks_exact(8).enumerate() {
            let mut le = [0u8; 8];
            le.copy_from_slice(eight);
            let w = u64::from_le_bytes(le);
            stray |= w & !ONES;
            packed |= gather8(w) << (8 * i);
        }
        *word = packed;
    }
    let done = bytes.len() - sixty_fours.remainder().len();
    for (j, &b) in sixty_fours.remainder().iter().enumerate() {
        let c = done + j;
        stray |= u64::from(b & !1);
        row[c / 64] |= u64::from(b & 1) << (c % 64);
    }
    if stray != 0 {
        let bad = bytes.iter().find(|&&b| b > 1).copied().unwrap_or(0);
        return Err(Refused::NotABit(i128::from(bad)));
    }
    Ok(())
}

/// The integers `values` as words below 2^`bits` (`bits` <= 64): each
/// must lie in -2^(bits-1) .. 2^bits (signed or unsigned, as the caller
/// means it); negative ones become two's complement.
pub(crate) fn words<T: Int>(values: &[T], bits: usize) -> Result<Vec<u64>, Refused> {
    let (low, high) = (-(1i128 << (bits - 1)), 1i128 << bits);
    let mask = u64::MAX >> (64 - bits);
    if T::RANGE.0 >= low && T::RANGE.1 < high {
        // Every value of the type fits: no check (a copy for 64 bits).
        return Ok(values.iter().map(|v| v.wide() as u64 & mask).collect());
    }
    values
        .iter()
        .map(|v| match v.wide() {
            w if w < low || w >= high => Err(Refused::TooWide(w)),
            w => Ok(w as u64 & mask),
        })
        .collect()
}

/// The integers `values` as values of `bits` > 64 bits, `bits.div_ceil(64)`
/// words each, sign-extended (every machine integer fits).
pub(crate) fn wide_words<T: Int>(values: &[T], bits: usize) -> Vec<u64> {
    let per = bits.div_ceil(64);
    let top = u64::MAX >> (per * 64 - bits);
    let mut out = Vec::with_capacity(values.len() * per);
    for v in values {
        let w = v.wide();
        let fill = if w < 0 { u64::MAX } else { 0 };
        out.push(w as u64);
        out.extend(std::iter::repeat_n(fill, per - 2));
        out.push(fill & top);
    }
    out
}

/// Elements of `k` bits (each `k.div_ceil(64)` words, row-major) as rows
/// of `elems` elements; None if `words` holds another count.
pub(crate) fn rows(words: Vec<u64>, rows: usize, elems: usize, k: usize) -> Option<BitMatrix> {
    let cols = elems * k;
    let per = k.div_ceil(64);
    if words.len() != rows.checked_mul(elems * per)? {
        return None;
    }
    // Whole words per element, or one element per row: the words are the
    // rows already (their high bits zero, as the range checks left them).
    if k.is_multiple_of(64) || elems == 1 {
        return BitMatrix::from_row_words(rows, cols, words);
    }
    let mut m = BitMatrix::zeros(rows, cols);
    for (r, values) in words.chunks_exact(elems * per).enumerate() {
        let row = m.row_mut(r);
        for (e, value) in values.chunks_exact(per).enumerate() {
            for (i, &w) in value.iter().enumerate() {
                put(row, e * k + i * 64, w, (k - i * 64).min(64));
            }
        }
    }
    Some(m)
}

/// Writes the `len` (<= 64) low bits of `v` into `row` from bit `at`.
fn put(row: &mut [u64], at: usize, v: u64, len: usize) {
    let (word, shift) = (at / 64, at % 64);
    row[word] |= v << shift;
    if shift != 0 && shift + len > 64 {
        row[word + 1] |= v >> (64 - shift);
    }
}

/// The `len` (<= 64) bits of `row` from bit `at`.
pub(crate) fn get(row: &[u64], at: usize, len: usize) -> u64 {
    let (word, shift) = (at / 64, at % 64);
    let mut v = row[word] >> shift;
    if shift != 0 && shift + len > 64 {
        v |= row[word + 1] << (64 - shift);
    }
    if len < 64 {
        v & ((1 << len) - 1)
    } else {
        v
    }
}

/// Each byte value spread to eight bytes of 0/1, bit i into byte i.
const SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            table[b] |= ((b as u64 >> i) & 1) << (8 * i);
            i += 1;
        }
        b += 1;
    }
    table
};

/// Every row's `cols` bits as bytes of 0/1 into `out` (rows × cols,
/// row-major; every byte written).
pub(crate) fn bytes_of_bits(m: &BitMatrix, out: &mut [u8]) {
    let cols = m.cols();
    if cols == 0 {
        return;
    }
    for (r, to) in out.chunks_exact_mut(cols).enumerate().take(m.rows()) {
        let row = m.row(r);
        let mut eights = to.chunks_exact_mut(8);
        for (i, eight) in eights.by_ref().enumerate() {
            let byte = (row[i / 8] >> (8 * (i % 8))) & 0xff;
            eight.copy_from_slice(&SPREAD[byte as usize].to_le_bytes());
        }
        let done = cols - eights.into_remainder().len();
        for c in done..cols {
            to[c] = ((row[c / 64] >> (c % 64)) & 1) as u8;
        }
    }
}

/// The elements of `k` <= 64 bits of every row (`elems` a row),
/// row-major.
pub(crate) fn elements(m: &BitMatrix, elems: usize, k: usize) -> Vec<u64> {
    if (k == 64 || elems == 1) && m.words_per_row() == elems {
        // Words are elements already (padding bits are zero).
        return m.as_words().to_vec();
    }
    let mut out = Vec::with_capacity(m.rows() * elems);
    for r in 0..m.rows() {
        let row = m.row(r);
        out.extend((0..elems).map(|e| get(row, e * k, k)));
    }
    out
}
