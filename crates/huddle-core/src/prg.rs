//! AES-128 in counter mode as a pseudorandom generator.
//!
//! Output block i is AES_seed(i) with the counter i encoded as a 128-bit
//! little-endian integer. [`WideAes`] picks VAES, else the `aes` crate's
//! AES-NI, at run time, so one binary is fast everywhere. Output is produced in large
//! batches so that the cipher pipelines blocks and callers stay off the
//! per-block path.

use crate::wide_aes::WideAes;
use aes::Block;

/// Blocks encrypted per refill of the internal buffer (4 KiB): enough for the
/// cipher to pipeline, small enough to stay in L1.
const BUFFER_BLOCKS: usize = 256;

/// A seed: one AES-128 key.
pub type Seed = [u8; 16];

/// Deterministic AES-CTR stream from a 16-byte seed.
///
/// Every read (bytes, words, XOR into values) continues the one byte stream
/// where the last stopped, so the stream does not depend on how a caller
/// slices its requests.
#[derive(Clone)]
pub struct Prg {
    cipher: WideAes,
    next_counter: u128,
    buffer: Vec<Block>,
    /// Bytes of `buffer` already handed out.
    used: usize,
}

impl Prg {
    /// The generator whose stream is AES-128 under `seed` of the counters
    /// 0, 1, 2, …: equal seeds give equal streams, on every machine.
    pub fn from_seed(seed: Seed) -> Self {
        Prg {
            cipher: WideAes::new(seed),
            next_counter: 0,
            buffer: vec![Block::default(); BUFFER_BLOCKS],
            used: BUFFER_BLOCKS * 16,
        }
    }

    /// A generator seeded from the operating system's entropy source.
    pub fn from_entropy() -> Result<Self, getrandom::Error> {
        let mut seed = [0u8; 16];
        getrandom::fill(&mut seed)?;
        Ok(Prg::from_seed(seed))
    }

    /// Fills `out` with the next bytes of the stream.
    pub fn fill_bytes(&mut self, mut out: &mut [u8]) {
        while !out.is_empty() {
            if self.used == BUFFER_BLOCKS * 16 {
                self.refill();
            }
            // Whole blocks by fixed-size copies (no call per block).
            if self.used.is_multiple_of(16) && out.len() >= 16 {
                let first = self.used / 16;
                let blocks = (out.len() / 16).min(BUFFER_BLOCKS - first);
                for (o, b) in out
                    .chunks_exact_mut(16)
                    .zip(&self.buffer[first..first + blocks])
                {
                    o.copy_from_slice(b);
                }
                self.used += 16 * blocks;
                out = &mut out[16 * blocks..];
                continue;
            }
            let (block, offset) = (self.used / 16, self.used % 16);
            let available = &self.buffer[block][offset..];
            let take = out.len().min(available.len());
            out[..take].copy_from_slice(&available[..take]);
            self.used += take;
            out = &mut out[take..];
        }
    }

    /// The next 8 bytes of the stream as a little-endian word.
    pub fn next_u64(&mut self) -> u64 {
        let mut b = [0u8; 8];
        self.fill_bytes(&mut b);
        u64::from_le_bytes(b)
    }

    /// Fills `out` with little-endian words of the stream (the same bytes as
    /// [`fill_bytes`](Self::fill_bytes)): what the buffer holds, then whole blocks encrypted
    /// straight into `out` (no copy), then the buffer again for a last half block.
    pub fn fill_u64(&mut self, mut out: &mut [u64]) {
        out = self.words_from_buffer(out);
        if cfg!(target_endian = "little") && self.used == BUFFER_BLOCKS * 16 {
            let blocks = out.len() / 2;
            self.encrypt_counters_into(self.next_counter, &mut out[..2 * blocks]);
            self.next_counter = self.next_counter.wrapping_add(blocks as u128);
            out = &mut out[2 * blocks..];
        }
        self.words_from_buffer(out);
    }

    /// Bytes of the stream handed out so far.
    pub fn position(&self) -> u128 {
        (self.next_counter * 16) - (BUFFER_BLOCKS * 16 - self.used) as u128
    }

    /// Continues the stream at byte `position` (forward or back).
    pub fn seek(&mut self, position: u128) {
        self.next_counter = position / 16;
        self.used = BUFFER_BLOCKS * 16;
        let within = (position % 16) as usize;
        if within != 0 {
            self.refill();
            self.used = within;
        }
    }

    /// The little-endian words of the stream from byte `position` on, as
    /// [`fill_u64`](Self::fill_u64) would give them there, without moving this generator:
    /// lets a caller read a long draw piece by piece, in any order.
    pub fn words_at(&self, position: u128, mut out: &mut [u64]) {
        if out.is_empty() {
            return;
        }
        if !position.is_multiple_of(8) || cfg!(target_endian = "big") {
            let mut other = self.clone();
            other.seek(position);
            other.fill_u64(out);
            return;
        }
        let mut block = position / 16;
        if position % 16 == 8 {
            out[0] = self.block_words(block)[1];
            out = &mut out[1..];
            block += 1;
        }
        let pairs = out.len() / 2;
        self.encrypt_counters_into(block, &mut out[..2 * pairs]);
        if out.len() % 2 == 1 {
            out[2 * pairs] = self.block_words(block + pairs as u128)[0];
        }
    }

    /// The two little-endian words of block `counter` of the stream.
    fn block_words(&self, counter: u128) -> [u64; 2] {
        let mut block = Block::from(counter.to_le_bytes());
        self.cipher.encrypt_block(&mut block);
        let lo: [u8; 8] = block[..8].try_into().expect("8 bytes of a 16-byte block");
        let hi: [u8; 8] = block[8..].try_into().expect("8 bytes of a 16-byte block");
        [u64::from_le_bytes(lo), u64::from_le_bytes(hi)]
    }

    /// Blocks `first`, `first + 1`, ... of the stream encrypted straight into
    /// `words` (an even number, two per block; little-endian targets only).
    fn encrypt_counters_into(&self, first: u128, words: &mut [u64]) {
        debug_assert!(words.len().is_multiple_of(2) && cfg!(target_endian = "little"));
        // SAFETY: `words` is 8 initialized bytes per word, exclusively
        // borrowed for this call; on a little-endian target the stream's
        // bytes read back as its words.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), words.len() * 8)
        };
        self.cipher.counter_blocks(first, bytes);
    }

    /// Fills `out` from the buffer (refilling it) until `out` is full or, at
    /// a block boundary, the buffer is used up; returns the rest of `out`.
    fn words_from_buffer<'o>(&mut self, mut out: &'o mut [u64]) -> &'o mut [u64] {
        while !out.is_empty() {
            if self.used == BUFFER_BLOCKS * 16 {
                if out.len() >= 2 && cfg!(target_endian = "little") {
                    return out;
                }
                self.refill();
            }
            if !self.used.is_multiple_of(8) {
                out[0] = self.next_u64();
                out = &mut out[1..];
                continue;
            }
            let take = out.len().min((BUFFER_BLOCKS * 16 - self.used) / 8);
            let first = self.used / 8;
            for (k, w) in out[..take].iter_mut().enumerate() {
                let (block, half) = ((first + k) / 2, (first + k) % 2);
                let bytes: [u8; 8] = self.buffer[block][half * 8..half * 8 + 8]
                    .try_into()
                    .expect("8 bytes of a 16-byte block");
                *w = u64::from_le_bytes(bytes);
            }
            self.used += take * 8;
            out = &mut out[take..];
        }
        out
    }

    /// XORs the next 16·`values.len()` bytes of the stream into `values`
    /// (each read as a little-endian u128): the same bytes as [`fill_bytes`](Self::fill_bytes),
    /// without an intermediate buffer.
    pub fn xor_into(&mut self, mut values: &mut [u128]) {
        while !values.is_empty() {
            if self.used == BUFFER_BLOCKS * 16 {
                self.refill();
            }
            if !self.used.is_multiple_of(16) {
                let mut b = [0u8; 16];
                self.fill_bytes(&mut b);
                values[0] ^= u128::from_le_bytes(b);
                values = &mut values[1..];
                continue;
            }
            let first = self.used / 16;
            let take = values.len().min(BUFFER_BLOCKS - first);
            for (v, b) in values[..take]
                .iter_mut()
                .zip(&self.buffer[first..first + take])
            {
                let bytes: [u8; 16] = (*b).into();
                *v ^= u128::from_le_bytes(bytes);
            }
            self.used += 16 * take;
            values = &mut values[take..];
        }
    }

    /// A fresh 16-byte seed drawn from this stream, e.g. to derive a child generator.
    pub fn next_seed(&mut self) -> Seed {
        let mut s = [0u8; 16];
        self.fill_bytes(&mut s);
        s
    }

    fn refill(&mut self) {
        // SAFETY: a `Block` is a transparent `[u8; 16]`; the view of the
        // buffer's bytes ends with this call.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(
                self.buffer.as_mut_ptr().cast::<u8>(),
                self.buffer.len() * 16,
            )
        };
        self.cipher.counter_blocks(self.next_counter, bytes);
        self.next_counter = self.next_counter.wrapping_add(self.buffer.len() as u128);
        self.used = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes::cipher::{generic_array::GenericArray, BlockEncrypt, KeyInit};
    use aes::Aes128;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("test hex"))
            .collect()
    }

    #[test]
    fn words_are_the_byte_stream_at_any_offset() {
        // Lengths through the buffer only, the direct path's chunks with
        // and without a last odd word.
        for (skip, len) in [
            (0usize, 1000),
            (3, 1000),
            (8, 1),
            (16, 5001),
            (4093, 1000),
            (4096, 1024),
        ] {
            let (mut a, mut b) = (Prg::from_seed([9; 16]), Prg::from_seed([9; 16]));
            let mut head = vec![0u8; skip];
            a.fill_bytes(&mut head);
            b.fill_bytes(&mut head);
            let mut words = vec![0u64; len];
            a.fill_u64(&mut words);
            // And the stream goes on where it stopped.
            words.push(a.next_u64());
            let mut bytes = vec![0u8; 8 * (len + 1)];
            b.fill_bytes(&mut bytes);
            let want: Vec<u64> = bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("8")))
                .collect();
            assert_eq!(words, want, "after {skip} bytes");
        }
    }

    #[test]
    fn xor_into_and_fill_bytes_read_the_same_stream() {
        for skip in [0usize, 5, 16, 4090, 4096] {
            let (mut a, mut b) = (Prg::from_seed([3; 16]), Prg::from_seed([3; 16]));
            let mut head = vec![0u8; skip];
            a.fill_bytes(&mut head);
            b.fill_bytes(&mut head);
            let start: Vec<u128> = (0..700u128).map(|i| i * 0x9e37_79b9).collect();
            let mut values = start.clone();
            a.xor_into(&mut values);
            // Odd lengths through the whole-block path and the partial one.
            let mut bytes = vec![0u8; 16 * 700];
            let (x, y) = bytes.split_at_mut(37);
            b.fill_bytes(x);
            b.fill_bytes(y);
            for (i, c) in bytes.chunks_exact(16).enumerate() {
                let k = u128::from_le_bytes(c.try_into().expect("16"));
                assert_eq!(values[i], start[i] ^ k, "after {skip}, value {i}");
            }
        }
    }

    #[test]
    fn aes_known_answer_fips197_c1() {
        // FIPS-197 Appendix C.1: the cipher under the PRG is plain AES-128.
        let key: [u8; 16] = hex("000102030405060708090a0b0c0d0e0f")
            .try_into()
            .expect("16 bytes");
        let cipher = Aes128::new(&GenericArray::from(key));
        let mut block = GenericArray::clone_from_slice(&hex("00112233445566778899aabbccddeeff"));
        cipher.encrypt_block(&mut block);
        assert_eq!(
            block.as_slice(),
            hex("69c4e0d86a7b0430d8cdb78070b4c55a").as_slice()
        );
    }

    #[test]
    fn stream_is_aes_of_little_endian_counters() {
        let seed = [7u8; 16];
        let cipher = Aes128::new(&GenericArray::from(seed));
        let mut prg = Prg::from_seed(seed);
        let mut out = vec![0u8; 16 * 600];
        prg.fill_bytes(&mut out);
        for i in [0u128, 1, 255, 256, 599] {
            let mut b = GenericArray::from(i.to_le_bytes());
            cipher.encrypt_block(&mut b);
            assert_eq!(&out[i as usize * 16..][..16], b.as_slice(), "block {i}");
        }
    }

    #[test]
    fn stream_does_not_depend_on_request_sizes() {
        let mut whole = vec![0u8; 10_000];
        Prg::from_seed([3; 16]).fill_bytes(&mut whole);
        let mut prg = Prg::from_seed([3; 16]);
        let mut pieces = Vec::new();
        let sizes = [1usize, 15, 16, 17, 4096, 5, 3000, 2850];
        assert_eq!(sizes.iter().sum::<usize>(), whole.len());
        for size in [1usize, 15, 16, 17, 4096, 5, 3000, 2850] {
            let mut p = vec![0u8; size];
            prg.fill_bytes(&mut p);
            pieces.extend(p);
        }
        assert_eq!(pieces, whole);
        let mut words = [0u64; 3];
        let mut prg = Prg::from_seed([3; 16]);
        prg.fill_u64(&mut words);
        assert_eq!(words[1].to_le_bytes(), whole[8..16]);
    }

    #[test]
    fn words_at_and_seek_read_the_stream_anywhere() {
        let mut whole = vec![0u64; 1500];
        Prg::from_seed([7; 16]).fill_u64(&mut whole);
        let mut prg = Prg::from_seed([7; 16]);
        let mut first = vec![0u64; 333];
        prg.fill_u64(&mut first);
        assert_eq!(prg.position(), 333 * 8);
        for (start, len) in [
            (0, 1),
            (0, 1000),
            (1, 2),
            (1, 513),
            (333, 600),
            (998, 501),
            (5, 0),
        ] {
            let mut got = vec![0u64; len];
            prg.words_at(8 * start as u128, &mut got);
            assert_eq!(
                got,
                whole[start..start + len],
                "words at {start}, {len} of them"
            );
        }
        // Reading elsewhere did not move it; seeking does.
        let mut next = vec![0u64; 10];
        prg.fill_u64(&mut next);
        assert_eq!(next, whole[333..343]);
        for to in [0usize, 17, 512, 513, 1000] {
            prg.seek(8 * to as u128);
            assert_eq!(prg.position(), 8 * to as u128);
            let mut got = vec![0u64; 300];
            prg.fill_u64(&mut got);
            assert_eq!(got, whole[to..to + 300], "after seeking to word {to}");
        }
        // Byte offsets that are not whole words.
        let mut bytes = vec![0u8; 64];
        Prg::from_seed([7; 16]).fill_bytes(&mut bytes);
        let mut odd = [0u64; 3];
        prg.words_at(3, &mut odd);
        for (k, w) in odd.iter().enumerate() {
            let b: [u8; 8] = bytes[3 + 8 * k..11 + 8 * k].try_into().expect("8 bytes");
            assert_eq!(*w, u64::from_le_bytes(b));
        }
    }

    #[test]
    fn different_seeds_differ() {
        assert_ne!(
            Prg::from_seed([0; 16]).next_u64(),
            Prg::from_seed([1; 16]).next_u64()
        );
        assert!(Prg::from_entropy().is_ok());
    }
}
