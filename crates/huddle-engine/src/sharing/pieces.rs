//! A multiplication layer computed in cache-sized pieces.
//!
//! A layer of a large batch is megabytes per array, and a protocol touches
//! several arrays per word (operands, drawn masks, messages, outputs). Made
//! one array at a time, every pass goes through main memory; made piece by
//! piece, a piece's masks and partial results stay in the L2 cache and only
//! the messages and the shares themselves travel to memory. The messages and
//! the order of every draw and every hashed view stay exactly as if whole
//! arrays had been made: a piece reads its masks from the key's stream at the
//! place the whole draw would have put them ([`LayerDraws`]).
//!
//! The schedule never lets a layer's outputs share a slot with its operands
//! (see `program`), so a piece may write provisional outputs before the
//! layer's messages arrive and finish them afterwards.

use super::program::{Layer, Program};
use super::Shares;
use huddle_core::Prg;
use std::ops::Range;

/// Words per piece: a handful of arrays this long fit in L2 with room to spare.
pub(crate) const PIECE_WORDS: usize = 2048;

/// The word ranges of a layer of `n` words, piece by piece.
pub(crate) fn pieces(n: usize) -> impl Iterator<Item = Range<usize>> {
    (0..n)
        .step_by(PIECE_WORDS)
        .map(move |start| start..n.min(start + PIECE_WORDS))
}

/// The gates of a multiplication layer: operand slots a, b and output slot
/// per gate. Word k of the layer is word k % w of gate k / w.
pub(crate) struct LayerGates {
    pub gates: Vec<(u32, u32, u32)>,
    /// Per gate, a dot product's pairs after the first (see `Operands`).
    pub more: Vec<Vec<(u32, u32)>>,
    /// Per gate, the bits a fused truncation shifts by (0: none).
    pub trunc: Vec<u8>,
    /// Whether any gate truncates.
    pub truncates: bool,
    /// The ring's mask (`Arith::shift_masked`).
    pub mask: u64,
    pub w: usize,
}

/// The operand slots of every gate of a layer: (a, b, out), where a dot
/// product's (a, b) is its first pair and `more` holds the others.
pub(crate) struct Operands {
    pub gates: Vec<(u32, u32, u32)>,
    /// Per gate, the pairs after the first (empty, unallocated, for a
    /// 2-input product).
    pub more: Vec<Vec<(u32, u32)>>,
}

pub(crate) fn operands(program: &Program, layer: &Layer) -> Operands {
    let mut ops = Operands {
        gates: Vec::with_capacity(layer.gates.len()),
        more: Vec::with_capacity(layer.gates.len()),
    };
    for g in &layer.gates {
        let mut pairs = program.pairs(g);
        let (a, b) = pairs.next().expect("a product has operands");
        ops.gates.push((a, b, g.out));
        ops.more.push(pairs.collect());
    }
    ops
}

/// A dot product's bilinear terms for `len` words, summed over its pairs:
/// `add(a, b, acc)` adds the terms of the pair (a, b) into `acc`, which
/// starts zeroed (in `buffer`, reused from gate to gate).
#[inline(always)]
pub(crate) fn dot_terms<'b, T: Copy + Default>(
    first: (u32, u32),
    more: &[(u32, u32)],
    buffer: &'b mut Vec<T>,
    len: usize,
    mut add: impl FnMut(u32, u32, &mut [T]),
) -> &'b [T] {
    buffer.clear();
    buffer.resize(len, T::default());
    add(first.0, first.1, buffer);
    for &(a, b) in more {
        add(a, b, buffer);
    }
    buffer
}

/// A run of words of one gate inside a piece: the gate, the words of its
/// slot, and where they start in the piece.
pub(crate) struct Segment<'a> {
    pub a: u32,
    pub b: u32,
    /// A dot product's other pairs (empty for a 2-input product).
    pub more: &'a [(u32, u32)],
    pub out: u32,
    pub words: Range<usize>,
    pub at: usize,
}

impl LayerGates {
    pub(crate) fn new(program: &Program, layer: &Layer, w: usize) -> Self {
        let ops = operands(program, layer);
        let trunc: Vec<u8> = layer.gates.iter().map(|g| g.trunc).collect();
        LayerGates {
            gates: ops.gates,
            more: ops.more,
            truncates: trunc.iter().any(|&t| t > 0),
            trunc,
            mask: program.ring.map_or(u64::MAX, |r| r.mask()),
            w,
        }
    }

    /// Word i of `piece`'s truncation (0: none) into `out[i]`.
    #[inline(always)]
    pub(crate) fn truncation(&self, piece: Range<usize>, out: &mut [u8; PIECE_WORDS]) {
        let w = self.w.max(1);
        for (i, k) in piece.enumerate() {
            out[i] = self.trunc[k / w];
        }
    }

    /// Words in the layer.
    pub(crate) fn words(&self) -> usize {
        self.gates.len() * self.w
    }

    /// The segments of the piece `piece` (a range of the layer's words).
    #[inline(always)]
    pub(crate) fn segments(&self, piece: Range<usize>) -> impl Iterator<Item = Segment<'_>> + '_ {
        let w = self.w.max(1);
        let first = piece.start / w;
        let last = piece.end.div_ceil(w);
        (first..last.min(self.gates.len())).map(move |g| {
            let (a, b, out) = self.gates[g];
            let (from, to) = (piece.start.max(g * w), piece.end.min((g + 1) * w));
            Segment {
                a,
                b,
                more: &self.more[g],
                out,
                words: from - g * w..to - g * w,
                at: from - piece.start,
            }
        })
    }

    /// Replaces two components of the output shares in `piece`: word i of
    /// the piece becomes `f(i, old0, old1)`.
    #[inline(always)]
    pub(crate) fn update_outputs(
        &self,
        s: &mut Shares,
        piece: Range<usize>,
        mut f: impl FnMut(usize, u64, u64) -> (u64, u64),
    ) {
        for seg in self.segments(piece) {
            let at = seg.out as usize * s.w;
            let [c0, c1, _] = &mut s.c;
            let (c0, c1) = (
                &mut c0[at + seg.words.start..at + seg.words.end],
                &mut c1[at + seg.words.start..at + seg.words.end],
            );
            for (i, (x, y)) in c0.iter_mut().zip(c1.iter_mut()).enumerate() {
                (*x, *y) = f(seg.at + i, *x, *y);
            }
        }
    }

    /// Replaces one component of the output shares in `piece`, leaving the
    /// other alone: word i of component `to` becomes `f(i, old)`, `old` the
    /// word of component `from` (`to` itself for a read-modify-write). A
    /// layer finishing one component would otherwise read and write back
    /// the other too: a trip to memory per word at large batches.
    #[inline(always)]
    pub(crate) fn map_output(
        &self,
        s: &mut Shares,
        piece: Range<usize>,
        from: usize,
        to: usize,
        mut f: impl FnMut(usize, u64) -> u64,
    ) {
        let w = s.w;
        for seg in self.segments(piece) {
            let at = seg.out as usize * w;
            let words = at + seg.words.start..at + seg.words.end;
            if from == to {
                for (i, x) in s.c[to][words].iter_mut().enumerate() {
                    *x = f(seg.at + i, *x);
                }
                continue;
            }
            let (src, dst) = if from < to {
                let (lo, hi) = s.c.split_at_mut(to);
                (&lo[from][words.clone()], &mut hi[0][words])
            } else {
                let (lo, hi) = s.c.split_at_mut(from);
                (&hi[0][words.clone()], &mut lo[to][words])
            };
            for (i, (x, &old)) in dst.iter_mut().zip(src).enumerate() {
                *x = f(seg.at + i, old);
            }
        }
    }
}

/// One layer's draws from one key, read piece by piece: part p (from 0) of
/// `n` words is what the (p+1)-th whole draw of `n` words would have given.
pub(crate) struct LayerDraws {
    start: u128,
    n: usize,
    parts: usize,
}

impl LayerDraws {
    /// The next `parts` draws of `n` words from `prg`.
    pub(crate) fn new(prg: &Prg, n: usize, parts: usize) -> Self {
        LayerDraws {
            start: prg.position(),
            n,
            parts,
        }
    }

    /// The next `parts` draws of `n` words from `prg`, which moves past them
    /// (to be read later).
    pub(crate) fn reserve(prg: &mut Prg, n: usize, parts: usize) -> Self {
        let draws = LayerDraws::new(prg, n, parts);
        prg.seek(draws.start + 8 * (parts * n) as u128);
        draws
    }

    /// Words `piece` of part `part` into `out` (as long as the piece).
    #[inline(always)]
    pub(crate) fn read(&self, prg: &Prg, part: usize, piece: Range<usize>, out: &mut [u64]) {
        debug_assert!(part < self.parts && piece.end <= self.n);
        let word = (part * self.n + piece.start) as u128;
        prg.words_at(self.start + 8 * word, &mut out[..piece.len()]);
    }

    /// Moves `prg` past all the parts, where whole draws would have left it.
    pub(crate) fn finish(self, prg: &mut Prg) {
        prg.seek(self.start + 8 * (self.parts * self.n) as u128);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_layer_once_in_order() {
        for n in [0, 1, PIECE_WORDS - 1, PIECE_WORDS, 3 * PIECE_WORDS + 5] {
            let all: Vec<usize> = pieces(n).flatten().collect();
            assert_eq!(all, (0..n).collect::<Vec<_>>(), "n = {n}");
            assert!(pieces(n).all(|p| p.len() <= PIECE_WORDS && !p.is_empty()));
        }
    }

    #[test]
    fn segments_map_piece_words_to_gate_words() {
        for w in [1, 3, 700, 5000] {
            let layer = LayerGates {
                gates: (0..7).map(|g| (g, g + 100, g + 200)).collect(),
                more: vec![Vec::new(); 7],
                trunc: vec![0; 7],
                truncates: false,
                mask: u64::MAX,
                w,
            };
            let n = layer.words();
            let mut seen = Vec::new();
            for piece in pieces(n) {
                let mut next = 0;
                for seg in layer.segments(piece.clone()) {
                    assert_eq!(seg.at, next, "segments tile the piece");
                    next += seg.words.len();
                    let g = seg.out as usize - 200;
                    assert_eq!((seg.a, seg.b), (g as u32, g as u32 + 100));
                    seen.extend(seg.words.map(|j| g * w + j));
                }
                assert_eq!(next, piece.len());
            }
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "w = {w}");
        }
    }

    /// One component of each output slot changes, word by word, from the
    /// named source; the other component and the non-output slots do not.
    #[test]
    fn map_output_writes_one_component_of_the_outputs_only() {
        let w = 5;
        let layer = LayerGates {
            gates: vec![(0, 1, 3), (1, 2, 5), (0, 2, 4)],
            more: vec![Vec::new(); 3],
            trunc: vec![0; 3],
            truncates: false,
            mask: u64::MAX,
            w,
        };
        let fresh = || {
            let mut s = Shares::new(6, w, 2);
            for c in 0..2 {
                for slot in 0..6u32 {
                    let words: Vec<u64> = (0..w as u64)
                        .map(|j| 1000 * c as u64 + 100 * u64::from(slot) + j)
                        .collect();
                    s.set(c, slot, &words);
                }
            }
            s
        };
        for (from, to) in [(0, 0), (1, 1), (0, 1), (1, 0)] {
            let before = fresh();
            let mut s = fresh();
            for piece in pieces(layer.words()) {
                layer.map_output(&mut s, piece, from, to, |i, old| old * 7 + i as u64);
            }
            for slot in 0..6u32 {
                let gate = layer.gates.iter().position(|g| g.2 == slot);
                for c in 0..2 {
                    let want: Vec<u64> = match gate {
                        Some(g) if c == to => before
                            .get(from, slot)
                            .iter()
                            .enumerate()
                            .map(|(j, &old)| old * 7 + (g * w + j) as u64)
                            .collect(),
                        _ => before.get(c, slot).to_vec(),
                    };
                    assert_eq!(s.get(c, slot), &want[..], "{from}->{to} slot {slot} c{c}");
                }
            }
        }
    }

    #[test]
    fn piecewise_draws_equal_whole_draws() {
        let mut whole = Prg::from_seed([3; 16]);
        let mut pieced = whole.clone();
        for n in [5, 1, 2 * PIECE_WORDS + 3, 4] {
            let parts: Vec<Vec<u64>> = (0..2)
                .map(|_| {
                    let mut v = vec![0; n];
                    whole.fill_u64(&mut v);
                    v
                })
                .collect();
            let draws = LayerDraws::new(&pieced, n, 2);
            for part in [1, 0] {
                let mut got = vec![0; n];
                for piece in pieces(n) {
                    draws.read(&pieced, part, piece.clone(), &mut got[piece]);
                }
                assert_eq!(got, parts[part], "n = {n}, part {part}");
            }
            draws.finish(&mut pieced);
            assert_eq!(pieced.position(), whole.position());
        }
        assert_eq!(pieced.next_u64(), whole.next_u64());
    }
}
