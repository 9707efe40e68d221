//! Share conversions between the Boolean and the ring arena (see
//! [`super::program`] for how a circuit's A2B, LTZ and B2A gates become
//! [`Conversion`](super::program::Conversion) steps): a step as a protocol
//! sees it ([`SplitJob`]) and the layouts of its terms.
//!
//! A protocol's part is [`super::Sharing::split`]: for each source value v
//! it names two terms with v = t0 + t1 (t0 ⊕ t1 for bits), each known in
//! the clear to some parties, and shares them in the target domain; the
//! engine moves each term between layouts (`SplitJob::relayout`:
//! bitsliced words ↔ one ring element per instance) and then runs the
//! recombining program on the terms (the step is the evaluator's, in
//! `evaluate.rs`). How each protocol splits is in its module
//! documentation; that t0 + t1 really is v is what the conformance suite
//! checks.

use super::arith::{Arith, Ring};
use super::channel::Channel;
use super::program::ConversionKind;
use huddle_circuit::Domain;
use huddle_core::bits::transpose_64x64;

/// One conversion step as a protocol sees it.
pub(crate) struct SplitJob<'a> {
    pub kind: ConversionKind,
    /// The source slots in the source arena: `kind.sources_per_gate()` per
    /// gate (conversion), gate after gate.
    pub sources: &'a [u32],
    /// The slots of t0 and of t1 in the target arena (k bits each for
    /// ring → bits, one ring element per source of a gate for bits → ring).
    /// Gate g takes words `g·w..(g+1)·w` of each slot, w the target
    /// domain's words per slot of one gate.
    pub terms: [&'a [u32]; 2],
    /// Instances in the slice.
    pub instances: usize,
}

impl SplitJob<'_> {
    /// Source words per conversion (one slot of the source arena).
    pub(crate) fn source_words(&self) -> usize {
        words(self.kind.source(), self.instances)
    }

    /// Words per slot of the target arena: every gate's instances side by
    /// side, [`side_instances`] of them.
    pub(crate) fn slot_words(&self) -> usize {
        words(
            self.kind.target(),
            side_instances(self.gates(), self.instances),
        )
    }

    /// Gates (conversions) in the step.
    pub(crate) fn gates(&self) -> usize {
        self.sources.len() / self.kind.sources_per_gate()
    }

    /// Words of one term in the target arena, all slots of it: what
    /// [`term`](Self::term) returns.
    pub(crate) fn term_words(&self) -> usize {
        self.terms[0].len() * self.slot_words()
    }

    /// Term `t` (0 or 1) in the target layout of its slots, slot after
    /// slot (as [`Shares::set_slots`](super::Shares::set_slots) takes them), computed source by
    /// source: `combine(slot, out)` writes the term's words of source slot
    /// `slot` in the source layout ([`source_words`](Self::source_words) of
    /// them, e.g. a sum of two components). Term 1 comes negated where the
    /// kind asks for it ([`ConversionKind::negates_term1`]), so a protocol
    /// shares whatever this returns. Only one source's words are held in
    /// the source layout at a time; the result is a buffer of `ch`'s
    /// (recycle it).
    pub(crate) fn term(
        &self,
        ch: &mut Channel,
        t: usize,
        mut combine: impl FnMut(u32, &mut [u64]),
    ) -> Vec<u64> {
        let mut out = ch.buffer(self.term_words());
        if self.kind.target() == Domain::Bit && !self.instances.is_multiple_of(64) {
            // Packed bits are ORed in.
            out.fill(0);
        }
        let mut values = vec![0u64; self.source_words()];
        let negate = t == 1 && self.kind.negates_term1();
        for (s, &slot) in self.sources.iter().enumerate() {
            combine(slot, &mut values);
            if negate {
                for v in values.iter_mut() {
                    *v = Ring::neg(*v);
                }
            }
            self.place(s, &values, &mut out);
        }
        out
    }

    /// [`term`](Self::term) of values given in the source layout, all
    /// conversions' one after another.
    #[cfg(test)]
    fn relayout(&self, values: &[u64]) -> Vec<u64> {
        let ws = self.source_words();
        debug_assert_eq!(values.len(), self.sources.len() * ws);
        let mut out = vec![0u64; self.term_words()];
        for g in 0..self.sources.len() {
            self.place(g, &values[g * ws..][..ws], &mut out);
        }
        out
    }

    /// Source s's words `values` (source layout) into its places in `out`
    /// (target layout, every word of them written).
    fn place(&self, s: usize, values: &[u64], out: &mut [u64]) {
        let n = self.instances;
        let per = self.kind.sources_per_gate();
        let (g, j) = (s / per, s % per);
        let slot = self.slot_words();
        match self.kind.target() {
            Domain::Bit => {
                // Ring elements to bitsliced words: 64 elements at a time,
                // transposed so that word j holds bit j of each, placed at
                // bit g·n + 64q of term slot j (gates packed densely, so a
                // batch of one instance still fills whole words).
                let k = self.terms[0].len();
                let mut block = [0u64; 64];
                for (q, chunk) in values[..n].chunks(64).enumerate() {
                    block[..chunk.len()].copy_from_slice(chunk);
                    block[chunk.len()..].fill(0);
                    transpose_64x64(&mut block);
                    for (j, &word) in block[..k].iter().enumerate() {
                        let at = g * n + 64 * q;
                        put_bits(&mut out[j * slot..][..slot], at, word, chunk.len());
                    }
                }
            }
            Domain::Ring => {
                for (i, e) in out[j * slot + g * n..][..n].iter_mut().enumerate() {
                    *e = (values[i / 64] >> (i % 64)) & 1;
                }
            }
        }
    }
}

/// Instances of a conversion step's target arena (and recombining
/// program): each of `gates` gates' `instances`, side by side.
pub(crate) fn side_instances(gates: usize, instances: usize) -> usize {
    gates * instances
}

/// ORs the low `len` bits of `word` into the bit string `dst` at bit `at`
/// (assigns a whole aligned word).
fn put_bits(dst: &mut [u64], at: usize, word: u64, len: usize) {
    let (w, off) = (at / 64, at % 64);
    if off == 0 && len == 64 {
        dst[w] = word;
        return;
    }
    dst[w] |= word << off;
    if off + len > 64 {
        dst[w + 1] |= word >> (64 - off);
    }
}

/// Bits `from..from + len` of the bit string `src` into `dst` from bit 0
/// (bits beyond `len` in its last word cleared).
pub(super) fn get_bits(src: &[u64], from: usize, len: usize, dst: &mut [u64]) {
    let (w, off) = (from / 64, from % 64);
    for (q, d) in dst.iter_mut().enumerate() {
        let lo = src[w + q] >> off;
        let hi = match off {
            0 => 0,
            _ => src.get(w + q + 1).map_or(0, |&x| x << (64 - off)),
        };
        let left = len - 64 * q;
        *d = if left < 64 {
            (lo | hi) & ((1u64 << left) - 1)
        } else {
            lo | hi
        };
    }
}

/// Words per slot of `domain` for `instances` instances.
pub(crate) fn words(domain: Domain, instances: usize) -> usize {
    match domain {
        Domain::Bit => instances.div_ceil(64),
        Domain::Ring => instances,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job<'a>(
        kind: ConversionKind,
        sources: &'a [u32],
        terms: [&'a [u32]; 2],
        n: usize,
    ) -> SplitJob<'a> {
        SplitJob {
            kind,
            sources,
            terms,
            instances: n,
        }
    }

    #[test]
    fn relayout_moves_bits_between_layouts() {
        let bits: Vec<u32> = (0..16).collect();
        for n in [1, 63, 64, 65, 200] {
            let sources = [7, 9, 11];
            let values: Vec<u64> = (0..3 * n as u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i << 7))
                .collect();
            // Ring → bits: word q of bit slot j of conversion g holds bit j
            // of instances 64q.. of conversion g.
            let j = job(ConversionKind::Decompose, &sources, [&bits, &bits], n);
            let wt = n.div_ceil(64);
            // The three conversions' instances side by side, densely.
            let slot = (3 * n).div_ceil(64);
            let out = j.relayout(&values);
            assert_eq!(out.len(), 16 * slot);
            assert_eq!(out.len(), j.term_words());
            for g in 0..3 {
                for i in 0..n {
                    for b in 0..16 {
                        let at = g * n + i;
                        let word = out[b * slot + at / 64];
                        assert_eq!((word >> (at % 64)) & 1, (values[g * n + i] >> b) & 1);
                    }
                }
            }
            // Padding beyond the last instance is 0.
            if (3 * n) % 64 != 0 {
                assert_eq!(out[slot - 1] >> ((3 * n) % 64), 0);
            }
            // And back: get_bits recovers each conversion's words.
            for g in 0..3 {
                let mut back = vec![0u64; wt];
                get_bits(&out[..slot], g * n, n, &mut back);
                for i in 0..n {
                    assert_eq!((back[i / 64] >> (i % 64)) & 1, values[g * n + i] & 1);
                }
                if n % 64 != 0 {
                    assert_eq!(back[wt - 1] >> (n % 64), 0);
                }
            }
            // Bits → ring: element i of conversion g is bit i of its words.
            let one = [0u32];
            let inject = ConversionKind::Inject {
                bits: 1,
                factor: false,
            };
            let j = job(inject, &sources, [&one, &one], n);
            let words: Vec<u64> = values[..3 * wt].to_vec();
            let out = j.relayout(&words);
            assert_eq!(out.len(), 3 * n);
            for g in 0..3 {
                for i in 0..n {
                    assert_eq!(out[g * n + i], (words[g * wt + i / 64] >> (i % 64)) & 1);
                }
            }
            // Three bits per gate (two gates): bit j of gate g goes to term
            // slot j at gate g's place.
            let sources = [1, 2, 3, 4, 5, 6];
            let three = [0u32, 1, 2];
            let inject = ConversionKind::Inject {
                bits: 3,
                factor: true,
            };
            let j = job(inject, &sources, [&three, &three], n);
            assert_eq!(j.gates(), 2);
            let words: Vec<u64> = (0..6 * wt as u64)
                .map(|i| i.wrapping_mul(0xD1B5_4A32_D192_ED03) ^ (i << 3))
                .collect();
            let out = j.relayout(&words);
            assert_eq!(out.len(), 6 * n);
            for s in 0..6 {
                let (g, bit) = (s / 3, s % 3);
                for i in 0..n {
                    let want = (words[s * wt + i / 64] >> (i % 64)) & 1;
                    assert_eq!(out[(bit * 2 + g) * n + i], want);
                }
            }
        }
    }
}
