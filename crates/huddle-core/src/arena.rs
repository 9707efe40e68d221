//! Slot arenas: many equal-length runs ("slots") of words in one vector, and
//! element-wise operations that write one slot from others. Every operation
//! borrows safely by splitting the arena around the output slot, so loops
//! stay plain slices the compiler vectorizes. Callers guarantee that an
//! operation never reads its own output slot (checked in debug builds).
//!
//! Slots are numbered from 0 (`u32`, as circuits number wires), each `len`
//! words long. The operations work on the words `span` of every slot (a
//! window of each slot, `0..len` for whole slots): a run of operations
//! applied window by window keeps its slots in cache however long the slots
//! are.

use std::ops::Range;

/// Splits `arena` (slots of `len` words) around output slot `o`: the slots
/// before it, the output slot, and the slots after it.
#[inline(always)]
pub fn split_out(arena: &mut [u64], len: usize, o: u32) -> (&[u64], &mut [u64], &[u64]) {
    let (before, rest) = arena.split_at_mut(o as usize * len);
    let (out, after) = rest.split_at_mut(len);
    (before, out, after)
}

/// Slot `s` (never the output slot `o`) from the halves [`split_out`] returned.
#[inline(always)]
pub fn src<'a>(before: &'a [u64], after: &'a [u64], len: usize, o: u32, s: u32) -> &'a [u64] {
    debug_assert_ne!(s, o, "an instruction reads its own output slot");
    if s < o {
        &before[s as usize * len..][..len]
    } else {
        &after[(s - o - 1) as usize * len..][..len]
    }
}

/// Slot `o` = `f`(slot `a`), word by word, within `span`.
#[inline(always)]
pub fn unary(
    arena: &mut [u64],
    len: usize,
    span: Range<usize>,
    a: u32,
    o: u32,
    f: impl Fn(u64) -> u64,
) {
    let (before, out, after) = split_out(arena, len, o);
    let a = &src(before, after, len, o, a)[span.clone()];
    for (z, x) in out[span].iter_mut().zip(a) {
        *z = f(*x);
    }
}

/// Slot `o` = `f`(slot `a`, slot `b`), word by word, within `span`.
#[inline(always)]
pub fn binary(
    arena: &mut [u64],
    len: usize,
    span: Range<usize>,
    a: u32,
    b: u32,
    o: u32,
    f: impl Fn(u64, u64) -> u64,
) {
    let (before, out, after) = split_out(arena, len, o);
    let a = &src(before, after, len, o, a)[span.clone()];
    let b = &src(before, after, len, o, b)[span.clone()];
    for ((z, x), y) in out[span].iter_mut().zip(a).zip(b) {
        *z = f(*x, *y);
    }
}

/// Slot `o` = `f(…f(f(s0, s1), s2)…)`, word by word, within `span`, for the
/// slots s0, s1, … that `operands` names (at least one).
///
/// # Panics
/// If `operands` is empty.
#[inline(always)]
pub fn fold(
    arena: &mut [u64],
    len: usize,
    span: Range<usize>,
    operands: &[u32],
    o: u32,
    f: impl Fn(u64, u64) -> u64,
) {
    let (before, out, after) = split_out(arena, len, o);
    let out = &mut out[span.clone()];
    out.copy_from_slice(&src(before, after, len, o, operands[0])[span.clone()]);
    for &s in &operands[1..] {
        for (z, x) in out
            .iter_mut()
            .zip(&src(before, after, len, o, s)[span.clone()])
        {
            *z = f(*z, *x);
        }
    }
}

/// Sets the words `span` of slot `o` to `value`.
#[inline(always)]
pub fn fill(arena: &mut [u64], len: usize, span: Range<usize>, o: u32, value: u64) {
    arena[o as usize * len..][..len][span].fill(value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// An operation applied window by window (any split of the slot)
        /// writes exactly what it writes to the whole slot, and nothing else.
        #[test]
        fn windows_compose_to_the_whole_slot(
            words in proptest::collection::vec(any::<u64>(), 5 * 13),
            cut in 0usize..=13,
            o in 0u32..5,
            a in 0u32..5,
            b in 0u32..5,
        ) {
            prop_assume!(a != o && b != o);
            let len = 13;
            type Op<'a> = &'a dyn Fn(&mut [u64], Range<usize>);
            let ops: [Op; 4] = [
                &|m, s| binary(m, len, s, a, b, o, |x, y| x ^ y.rotate_left(3)),
                &|m, s| unary(m, len, s, a, o, |x| x.wrapping_mul(5)),
                &|m, s| fold(m, len, s, &[a, b, a], o, u64::wrapping_add),
                &|m, s| fill(m, len, s, o, 42),
            ];
            for op in ops {
                let mut whole = words.clone();
                op(&mut whole, 0..len);
                let mut pieces = words.clone();
                op(&mut pieces, 0..cut);
                // The window only: the rest of the output slot is untouched.
                let rest = o as usize * len + cut..(o as usize + 1) * len;
                prop_assert_eq!(&pieces[rest.clone()], &words[rest]);
                op(&mut pieces, cut..len);
                prop_assert_eq!(&pieces, &whole);
                // Only the output slot changed.
                for s in (0..5).filter(|&s| s != o as usize) {
                    prop_assert_eq!(&whole[s * len..][..len], &words[s * len..][..len]);
                }
            }
        }
    }
}
