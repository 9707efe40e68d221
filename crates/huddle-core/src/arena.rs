//! Slot arenas: many equal-length runs ("slots") of words in one vector, and
//! element-wise operations that write one slot from others. Every operation
//! borrows safely by splitting the arena around the output slot, so loops
//! stay plain slices the compiler vectorizes. Callers guarantee that an
//! operation never reads its own output slot (checked in debug builds).

/// Splits `arena` (slots of `len` words) around output slot `o`: the slots
/// before it, the output slot, and the slots after it.
#[inline(always)]
pub fn split_out(arena: &mut [u64], len: usize, o: u32) -> (&[u64], &mut [u64], &[u64]) {
    let (before, rest) = arena.split_at_mut(o as usize * len);
    let (out, after) = rest.split_at_mut(len);
    (before, out, after)
}

/// Slot `s` (never the output slot `o`) from the halves `split_out` returned.
#[inline(always)]
pub fn src<'a>(before: &'a [u64], after: &'a [u64], len: usize, o: u32, s: u32) -> &'a [u64] {
    debug_assert_ne!(s, o, "an instruction reads its own output slot");
    if s < o {
        &before[s as usize * len..][..len]
    } else {
        &after[(s - o - 1) as usize * len..][..len]
    }
}

#[inline(always)]
pub fn unary(arena: &mut [u64], len: usize, a: u32, o: u32, f: impl Fn(u64) -> u64) {
    let (before, out, after) = split_out(arena, len, o);
    let a = src(before, after, len, o, a);
    for (z, x) in out.iter_mut().zip(a) {
        *z = f(*x);
    }
}

#[inline(always)]
pub fn binary(arena: &mut [u64], len: usize, a: u32, b: u32, o: u32, f: impl Fn(u64, u64) -> u64) {
    let (before, out, after) = split_out(arena, len, o);
    let (a, b) = (src(before, after, len, o, a), src(before, after, len, o, b));
    for ((z, x), y) in out.iter_mut().zip(a).zip(b) {
        *z = f(*x, *y);
    }
}

#[inline(always)]
pub fn fold(arena: &mut [u64], len: usize, operands: &[u32], o: u32, f: impl Fn(u64, u64) -> u64) {
    let (before, out, after) = split_out(arena, len, o);
    out.copy_from_slice(src(before, after, len, o, operands[0]));
    for &s in &operands[1..] {
        for (z, x) in out.iter_mut().zip(src(before, after, len, o, s)) {
            *z = f(*z, *x);
        }
    }
}

#[inline(always)]
pub fn fill(arena: &mut [u64], len: usize, o: u32, value: u64) {
    arena[o as usize * len..][..len].fill(value);
}
