//! Circuits on Boolean-domain elements: w wires, least significant bit
//! first, arithmetic modulo 2^w. Gates with a constant operand are
//! simplified away (x AND 1 = x, x XOR 0 = x, ...), so public literals
//! cost what their bits require. Adders and comparators use the carry
//! network of `carry.rs` (AND-depth logarithmic in w at the builder's
//! fan-in), products a Dadda tree truncated to w bits.

use crate::builder::Builder;
use crate::carry::{add_rows, wires, Bit};
use crate::gen::{greater_than, sum_columns};
use crate::model::WireId;

/// The constant bit of `w`, if it is one.
fn known(b: &Builder, w: WireId) -> Option<bool> {
    b.known(w).map(|v| v == 1)
}

/// a AND b, free when either is a constant.
pub(super) fn and(b: &mut Builder, x: WireId, y: WireId) -> WireId {
    match (known(b, x), known(b, y)) {
        (Some(false), _) | (_, Some(true)) => x,
        (_, Some(false)) | (Some(true), _) => y,
        _ => b.and(x, y),
    }
}

/// a XOR b, a wire or its negation when either is a constant.
pub(super) fn xor(b: &mut Builder, x: WireId, y: WireId) -> WireId {
    match (known(b, x), known(b, y)) {
        (_, Some(false)) => x,
        (Some(false), _) => y,
        (_, Some(true)) => b.not(x),
        (Some(true), _) => b.not(y),
        _ => b.xor(x, y),
    }
}

/// a OR b = NOT(NOT a AND NOT b).
pub(super) fn or(b: &mut Builder, x: WireId, y: WireId) -> WireId {
    let (nx, ny) = (b.not(x), b.not(y));
    let both = and(b, nx, ny);
    b.not(both)
}

/// The bits as the carry network takes them: constant zeros as None.
fn rows(b: &Builder, x: &[WireId]) -> Vec<Bit> {
    x.iter()
        .map(|&w| (known(b, w) != Some(false)).then_some(w))
        .collect()
}

/// x + y mod 2^w.
pub(super) fn add(b: &mut Builder, x: &[WireId], y: &[WireId]) -> Vec<WireId> {
    let (rx, ry) = (rows(b, x), rows(b, y));
    let mut sum = add_rows(b, &rx, &ry);
    sum.truncate(x.len());
    wires(b, sum)
}

/// x − y mod 2^w: x + NOT y + 1, the 1 as a generating position below bit 0.
pub(super) fn sub(b: &mut Builder, x: &[WireId], y: &[WireId]) -> Vec<WireId> {
    let one = b.constant(true);
    let mut rx = vec![Some(one)];
    rx.extend(rows(b, x));
    let mut ry = vec![Some(one)];
    for &w in y {
        let n = b.not(w);
        ry.push((known(b, n) != Some(false)).then_some(n));
    }
    let sum = add_rows(b, &rx, &ry);
    wires(b, sum[1..=x.len()].to_vec())
}

/// −x mod 2^w.
pub(super) fn neg(b: &mut Builder, x: &[WireId]) -> Vec<WireId> {
    let zero = vec![b.constant(false); x.len()];
    sub(b, &zero, x)
}

/// x·y mod 2^w: the partial products of the low w columns, summed by a
/// Dadda tree.
pub(super) fn mul(b: &mut Builder, x: &[WireId], y: &[WireId]) -> Vec<WireId> {
    let w = x.len();
    let mut cols: Vec<Vec<WireId>> = vec![Vec::new(); w];
    for (i, &yi) in y.iter().enumerate() {
        for (j, &xj) in x.iter().enumerate().take(w - i) {
            let pp = and(b, xj, yi);
            if known(b, pp) != Some(false) {
                cols[i + j].push(pp);
            }
        }
    }
    sum_columns(b, cols, w)
}

/// The bit x < y, both unsigned.
pub(super) fn lt_unsigned(b: &mut Builder, x: &[WireId], y: &[WireId]) -> WireId {
    greater_than(b, y, x)
}

/// The bit x < y, both two's complement: unsigned after flipping the signs.
pub(super) fn lt_signed(b: &mut Builder, x: &[WireId], y: &[WireId]) -> WireId {
    let flip = |b: &mut Builder, v: &[WireId]| {
        let mut v = v.to_vec();
        let top = v.len() - 1;
        v[top] = b.not(v[top]);
        v
    };
    let (fx, fy) = (flip(b, x), flip(b, y));
    lt_unsigned(b, &fx, &fy)
}

/// The bit x = y: an AND tree over the bitwise equalities.
pub(super) fn eq(b: &mut Builder, x: &[WireId], y: &[WireId]) -> WireId {
    let same: Vec<WireId> = x
        .iter()
        .zip(y)
        .map(|(&p, &q)| {
            let d = xor(b, p, q);
            b.not(d)
        })
        .collect();
    let same: Vec<WireId> = same
        .into_iter()
        .filter(|&w| known(b, w) != Some(true))
        .collect();
    if same.iter().any(|&w| known(b, w) == Some(false)) {
        return b.constant(false);
    }
    b.and_all(&same)
}

/// c ? x : y, bitwise: y XOR (c AND (x XOR y)).
pub(super) fn select(b: &mut Builder, c: WireId, x: &[WireId], y: &[WireId]) -> Vec<WireId> {
    x.iter()
        .zip(y)
        .map(|(&p, &q)| {
            let d = xor(b, p, q);
            let pick = and(b, c, d);
            xor(b, q, pick)
        })
        .collect()
}

/// x << s mod 2^w (0 if s ≥ w).
pub(super) fn shl(b: &mut Builder, x: &[WireId], s: u32) -> Vec<WireId> {
    let w = x.len();
    let s = (s as usize).min(w);
    let zero = b.constant(false);
    let mut out = vec![zero; s];
    out.extend_from_slice(&x[..w - s]);
    out
}

/// x >> s: logical for unsigned x (0 if s ≥ w), arithmetic for signed
/// (the sign fills; all sign bits if s ≥ w).
pub(super) fn shr(b: &mut Builder, x: &[WireId], s: u32, signed: bool) -> Vec<WireId> {
    let w = x.len();
    let s = (s as usize).min(w);
    let fill = if signed { x[w - 1] } else { b.constant(false) };
    let mut out = x[s..].to_vec();
    out.resize(w, fill);
    out
}

/// x as `width` bits: truncated, or extended with zeros (unsigned) or the
/// sign (signed).
pub(super) fn resize(b: &mut Builder, x: &[WireId], width: usize, signed: bool) -> Vec<WireId> {
    let fill = if signed {
        x[x.len() - 1]
    } else {
        b.constant(false)
    };
    let mut out = x[..x.len().min(width)].to_vec();
    out.resize(width, fill);
    out
}
