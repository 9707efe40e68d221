//! How share words travel. A Boolean word goes whole (64 instances); a ring
//! element held alone in a word goes as its k/8 low bytes; packed ring words
//! ([`super::arith::Packed`]) go as their bytes, except that the last word
//! of each slot sends only the lanes that hold instances. So a message
//! costs k/8 bytes per element and instance however the words are laid out,
//! and the padding lanes (whose contents differ from party to party) are
//! neither sent nor hashed.

/// The wire form of one domain's words in one slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Encoding {
    /// Bytes of one element.
    bytes: usize,
    /// Elements per word: 64/k for packed ring words, else 1 (a Boolean
    /// word travels whole, as one 8-byte element).
    lanes: usize,
    /// Instances per slot (packed words only).
    instances: usize,
}

impl Encoding {
    /// Keys, digests and verdicts: whole 64-bit words.
    pub(crate) const RAW: Encoding = Encoding {
        bytes: 8,
        lanes: 1,
        instances: 0,
    };

    /// Elements of `bytes` bytes, `lanes` to a word (1: one per word), the
    /// slots holding `instances` instances.
    pub(crate) fn new(bytes: usize, lanes: usize, instances: usize) -> Encoding {
        debug_assert!(lanes == 1 || bytes * lanes == 8);
        Encoding {
            bytes,
            lanes,
            instances: if lanes == 1 { 0 } else { instances },
        }
    }

    /// Unpacked elements of `bytes` bytes each.
    #[cfg(test)]
    pub(crate) fn elements_of(bytes: usize) -> Encoding {
        Encoding::new(bytes, 1, 0)
    }

    /// Words per slot of packed words.
    fn slot_words(&self) -> usize {
        self.instances.div_ceil(self.lanes).max(1)
    }

    /// Whether every word travels whole or as its low `bytes` (no slot ends
    /// in padding lanes).
    fn uniform(&self) -> bool {
        self.lanes == 1 || self.instances.is_multiple_of(self.lanes)
    }

    /// Bytes of a word's first `lanes` elements.
    fn word_len(&self, k: usize) -> usize {
        if self.lanes == 1 {
            return self.bytes;
        }
        let w = self.slot_words();
        if k % w == w - 1 {
            (self.instances - (w - 1) * self.lanes) * self.bytes
        } else {
            8
        }
    }

    /// Bytes of `words` words on the wire.
    pub(crate) fn wire_len(&self, words: usize) -> usize {
        if self.uniform() {
            let per = if self.lanes == 1 { self.bytes } else { 8 };
            return words * per;
        }
        let w = self.slot_words();
        (words / w) * self.instances * self.bytes
            + (0..words % w).map(|k| self.word_len(k)).sum::<usize>()
    }

    /// Appends `words` as they travel.
    pub(crate) fn encode(&self, words: &[u64], out: &mut Vec<u8>) {
        #[cfg(target_endian = "little")]
        if self.whole_words() {
            out.extend_from_slice(as_bytes(words));
            return;
        }
        self.encode_with(0..words.len(), |k| words[k], out);
    }

    /// Whether every word travels as its 8 bytes (Boolean and 64-bit
    /// words, and packed words whose slots end on a full word).
    pub(crate) fn whole_words(&self) -> bool {
        self.uniform() && (self.lanes > 1 || self.bytes == 8)
    }

    /// Appends the words `f(k)` for k in `range` (positions in a message
    /// that starts at 0) as they travel.
    #[inline(always)]
    pub(crate) fn encode_with(
        &self,
        range: std::ops::Range<usize>,
        f: impl Fn(usize) -> u64,
        out: &mut Vec<u8>,
    ) {
        match (self.uniform(), self.lanes, self.bytes) {
            (true, 1, 4) => put(out, range, |k| (f(k) as u32).to_le_bytes()),
            (true, 1, 2) => put(out, range, |k| (f(k) as u16).to_le_bytes()),
            (true, 1, 1) => put(out, range, |k| [f(k) as u8]),
            (true, ..) => put(out, range, |k| f(k).to_le_bytes()),
            (false, ..) => {
                for k in range {
                    out.extend_from_slice(&f(k).to_le_bytes()[..self.word_len(k)]);
                }
            }
        }
    }

    /// Fills `out` from `bytes` (exactly [`wire_len`](Self::wire_len)`(out.len())`
    /// of them); padding lanes become zero.
    pub(crate) fn decode(&self, bytes: &[u8], out: &mut [u64]) {
        debug_assert_eq!(bytes.len(), self.wire_len(out.len()));
        #[cfg(target_endian = "little")]
        if self.whole_words() {
            as_bytes_mut(out).copy_from_slice(bytes);
            return;
        }
        let per = match (self.uniform(), self.lanes) {
            (true, 1) => self.bytes,
            (true, _) => 8,
            (false, _) => {
                let mut at = 0;
                for (k, w) in out.iter_mut().enumerate() {
                    let len = self.word_len(k);
                    let mut b = [0u8; 8];
                    b[..len].copy_from_slice(&bytes[at..at + len]);
                    *w = u64::from_le_bytes(b);
                    at += len;
                }
                return;
            }
        };
        match per {
            8 => widen::<8>(bytes, out),
            4 => widen::<4>(bytes, out),
            2 => widen::<2>(bytes, out),
            _ => widen::<1>(bytes, out),
        }
    }

    /// Elements that travel in `words` words.
    pub(crate) fn elements(&self, words: usize) -> usize {
        self.wire_len(words) / self.bytes
    }

    /// Where element `e` (counted as they travel) sits: its word and the
    /// mask of its bits in that word.
    pub(crate) fn element(&self, e: usize) -> (usize, u64) {
        let mask = if self.bytes >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * self.bytes)) - 1
        };
        if self.lanes == 1 {
            return (e, mask);
        }
        let (slot, i) = (e / self.instances, e % self.instances);
        let lane = i % self.lanes;
        (
            slot * self.slot_words() + i / self.lanes,
            mask << (8 * self.bytes * lane),
        )
    }
}

/// Each `B`-byte little-endian element of `bytes` into a word of `out`.
fn widen<const B: usize>(bytes: &[u8], out: &mut [u64]) {
    for (w, c) in out.iter_mut().zip(bytes.chunks_exact(B)) {
        let mut b = [0u8; 8];
        b[..B].copy_from_slice(c);
        *w = u64::from_le_bytes(b);
    }
}

/// The words of one received message: read where they arrived when the
/// message's bytes are the words themselves (8 bytes each, little-endian,
/// in an 8-byte-aligned buffer, as the allocators give), else decoded into
/// a word buffer. Rounds of megabytes skip a copy of every message.
pub(crate) struct Words(Store);

enum Store {
    Message(Vec<u8>),
    Decoded(Vec<u64>),
}

impl Words {
    /// The message's bytes as words where they can be read in place.
    pub(crate) fn in_place(bytes: Vec<u8>) -> Result<Words, Vec<u8>> {
        let aligned = bytes.as_ptr().align_offset(std::mem::align_of::<u64>()) == 0;
        if cfg!(target_endian = "little") && aligned && bytes.len().is_multiple_of(8) {
            Ok(Words(Store::Message(bytes)))
        } else {
            Err(bytes)
        }
    }

    /// Where the words' memory goes back to: a word buffer or a message buffer.
    pub(crate) fn into_buffer(self) -> Result<Vec<u64>, Vec<u8>> {
        match self.0 {
            Store::Decoded(v) => Ok(v),
            Store::Message(b) => Err(b),
        }
    }

    /// The words as a vector of their own (a copy where they are read in
    /// place; the message buffer then goes back to the transport's pool).
    pub(crate) fn into_vec(self) -> Vec<u64> {
        match self.0 {
            Store::Decoded(v) => v,
            Store::Message(bytes) => {
                // SAFETY: `in_place` admitted the message.
                let v = unsafe { message_words(&bytes) }.to_vec();
                huddle_net::recycle_buffer(bytes);
                v
            }
        }
    }
}

/// A message's bytes as its words.
///
/// # Safety
/// `bytes` must be 8-byte aligned ([`Words::in_place`] admits only such
/// messages); every byte pattern is a valid u64, and on a little-endian
/// machine the bytes are the words.
unsafe fn message_words(bytes: &[u8]) -> &[u64] {
    // SAFETY: aligned (the caller's promise), length rounded down to words.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<u64>(), bytes.len() / 8) }
}

/// [`message_words`], mutable.
///
/// # Safety
/// As for [`message_words`].
unsafe fn message_words_mut(bytes: &mut [u8]) -> &mut [u64] {
    // SAFETY: as in `message_words`.
    unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<u64>(), bytes.len() / 8) }
}

impl From<Vec<u64>> for Words {
    fn from(v: Vec<u64>) -> Words {
        Words(Store::Decoded(v))
    }
}

impl std::ops::Deref for Words {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        match &self.0 {
            Store::Decoded(v) => v,
            // SAFETY: `in_place` admitted the message.
            Store::Message(b) => unsafe { message_words(b) },
        }
    }
}

impl std::ops::DerefMut for Words {
    fn deref_mut(&mut self) -> &mut [u64] {
        match &mut self.0 {
            Store::Decoded(v) => v,
            // SAFETY: `in_place` admitted the message.
            Store::Message(b) => unsafe { message_words_mut(b) },
        }
    }
}

/// Words as their little-endian bytes, without a copy.
#[cfg(target_endian = "little")]
pub(crate) fn as_bytes(words: &[u64]) -> &[u8] {
    // SAFETY: u8 has no alignment or validity requirements, the length
    // covers exactly the words' memory, and on a little-endian machine a
    // word's memory is its little-endian bytes.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), words.len() * 8) }
}

#[cfg(target_endian = "little")]
fn as_bytes_mut(words: &mut [u64]) -> &mut [u8] {
    // SAFETY: as in `as_bytes`; every byte pattern is a valid u64.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), words.len() * 8) }
}

/// Appends `f(k)` for every k of `range`, `B` bytes each, as fixed-size
/// stores (an iterator of bytes would push them one at a time).
#[inline(always)]
fn put<const B: usize>(
    out: &mut Vec<u8>,
    range: std::ops::Range<usize>,
    f: impl Fn(usize) -> [u8; B],
) {
    let start = out.len();
    out.resize(start + range.len() * B, 0);
    for (dst, k) in out[start..].chunks_exact_mut(B).zip(range) {
        dst.copy_from_slice(&f(k));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn received_words_are_read_where_they_arrived_or_decoded() {
        let words: Vec<u64> = (0..9u64)
            .map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        let mut bytes = Vec::with_capacity(72);
        Encoding::RAW.encode(&words, &mut bytes);
        let at = bytes.as_ptr();
        let mut w = Words::in_place(bytes).expect("an allocation of u8s is 8-byte aligned here");
        assert_eq!(&w[..], &words[..]);
        assert_eq!(w.as_ptr().cast::<u8>(), at, "read in place, not copied");
        w[3] ^= 1;
        let mut changed = words.clone();
        changed[3] ^= 1;
        assert_eq!(w.into_vec(), changed);
        // A message that is not whole words stays bytes (the caller decodes).
        assert!(Words::in_place(vec![0u8; 12]).is_err());
        let back = Words::from(words.clone());
        assert_eq!(back.into_buffer(), Ok(words));
    }

    #[test]
    fn packed_slots_send_only_their_instances() {
        // 32-bit lanes, 3 instances per slot: 2 words per slot, 12 bytes.
        let e = Encoding::new(4, 2, 3);
        assert_eq!(e.wire_len(4), 24);
        let words = [
            0x1111_1111_2222_2222,
            0xdead_beef_3333_3333,
            0x4444_4444_5555_5555,
            0xffff_ffff_6666_6666,
        ];
        let mut out = Vec::new();
        e.encode(&words, &mut out);
        assert_eq!(out.len(), 24);
        let mut back = [0u64; 4];
        e.decode(&out, &mut back);
        assert_eq!(back, [words[0], 0x3333_3333, words[2], 0x6666_6666]);
        assert_eq!(e.elements(4), 6);
        assert_eq!(e.element(2), (1, 0xffff_ffff));
        assert_eq!(e.element(4), (2, 0xffff_ffff_0000_0000));
    }

    #[test]
    fn whole_slots_and_unpacked_elements_round_trip() {
        for e in [
            Encoding::new(2, 4, 8),
            Encoding::elements_of(4),
            Encoding::elements_of(1),
            Encoding::RAW,
            Encoding::new(1, 8, 13),
        ] {
            let words: Vec<u64> = (0..6u64)
                .map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect();
            let mut out = Vec::new();
            e.encode(&words, &mut out);
            assert_eq!(out.len(), e.wire_len(words.len()), "{e:?}");
            let mut back = vec![0u64; words.len()];
            e.decode(&out, &mut back);
            for (k, (&a, &b)) in words.iter().zip(&back).enumerate() {
                let kept = (0..e.elements(words.len()))
                    .map(|x| e.element(x))
                    .filter(|&(w, _)| w == k)
                    .fold(0, |m, (_, bits)| m | bits);
                assert_eq!(a & kept, b, "{e:?} word {k}");
                assert_eq!(b & !kept, 0, "{e:?} word {k}");
            }
        }
    }
}
