//! How the protocol's values travel: 16-byte little-endian words (GF(2^128)
//! elements, keys, garbled rows) and packed bits (masked inputs, outputs).
//! One place for every round, so that both ends of a link read what the
//! other wrote.

use huddle_core::Gf128;

pub(super) fn to_bytes(values: &[Gf128]) -> Vec<u8> {
    // A Gf128 is its u128.
    words_to_bytes(values.len(), values.iter().map(|v| v.0))
}

pub(super) fn u128s_to_bytes(values: &[u128]) -> Vec<u8> {
    words_to_bytes(values.len(), values.iter().copied())
}

/// A message of `count` 16-byte little-endian words, filled without a
/// capacity check per word.
fn words_to_bytes(count: usize, words: impl Iterator<Item = u128>) -> Vec<u8> {
    let mut out = huddle_net::message_buffer(16 * count);
    let start = out.len();
    out.resize(start + 16 * count, 0);
    for (bytes, v) in out[start..].chunks_exact_mut(16).zip(words) {
        bytes.copy_from_slice(&v.to_le_bytes());
    }
    out
}

/// The 16-byte little-endian values of a message.
pub(super) fn le_u128s(bytes: &[u8]) -> impl Iterator<Item = u128> + '_ {
    bytes.chunks_exact(16).map(|c| {
        let mut b = [0u8; 16];
        b.copy_from_slice(c);
        u128::from_le_bytes(b)
    })
}

/// XORs a message's 16-byte little-endian values into `values`.
pub(super) fn xor_le_u128s(values: &mut [u128], bytes: &[u8]) {
    for (z, v) in values.iter_mut().zip(le_u128s(bytes)) {
        *z ^= v;
    }
}

pub(super) fn from_bytes(bytes: &[u8]) -> Vec<Gf128> {
    bytes
        .chunks_exact(16)
        .map(|c| {
            let mut b = [0u8; 16];
            b.copy_from_slice(c);
            Gf128::from_bytes(b)
        })
        .collect()
}

pub(super) fn pack_bits(bits: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    for (i, &b) in bits.iter().enumerate() {
        out[i / 8] |= u8::from(b) << (i % 8);
    }
    out
}

pub(super) fn unpack_bits(bytes: &[u8], count: usize) -> Vec<bool> {
    (0..count)
        .map(|i| bytes[i / 8] >> (i % 8) & 1 == 1)
        .collect()
}
