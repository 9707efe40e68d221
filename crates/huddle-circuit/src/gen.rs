//! Circuit generators: adders, multipliers, comparators and AND trees for
//! any width and AND fan-in budget l, built with [`Builder`]. Values are
//! unsigned integers, least significant bit on the lowest wire (the
//! convention of `shared/circuits`). The depth-optimized adders and
//! comparators share the carry network of `carry.rs`; [`generate`]
//! builds any generated circuit by name, AES and SHA-256 included.

use crate::builder::Builder;
use crate::carry::{add_rows, full_adder_carry, prefix_carries, wires, xor_bits, Bit};
use crate::model::{Circuit, WireId};

/// Ripple-carry adder: n + 1 output bits, n ANDs, depth n.
pub fn adder_ripple(n: u32) -> Circuit {
    let mut b = Builder::boolean(2);
    let (x, y) = (b.input("a", n), b.input("b", n));
    let mut carry: Bit = None;
    let mut sum = Vec::new();
    for i in 0..n as usize {
        let ab = b.xor(x[i], y[i]);
        sum.push(xor_bits(&mut b, &[Some(ab), carry]));
        carry = Some(full_adder_carry(&mut b, Some(x[i]), Some(y[i]), carry));
    }
    sum.push(carry);
    let out = wires(&mut b, sum);
    b.output("sum", out);
    b.finish()
}

/// Sklansky parallel-prefix adder with ANDs of at most `fan_in` inputs:
/// n + 1 output bits.
pub fn adder_sklansky(n: u32, fan_in: usize) -> Circuit {
    let mut b = Builder::boolean(fan_in);
    let (x, y) = (b.input("a", n), b.input("b", n));
    let x: Vec<Bit> = x.into_iter().map(Some).collect();
    let y: Vec<Bit> = y.into_iter().map(Some).collect();
    let sum = add_rows(&mut b, &x, &y);
    let out = wires(&mut b, sum);
    b.output("sum", out);
    b.finish()
}

/// Fischlin's comparator a > b with the same prefix network: bit i
/// "generates" when a_i > b_i and "propagates" when a_i = b_i.
fn compare(n: u32, fan_in: usize, greater: bool) -> Circuit {
    let mut b = Builder::boolean(fan_in);
    let (x, y) = (b.input("a", n), b.input("b", n));
    let (x, y) = if greater { (x, y) } else { (y, x) };
    let gt = greater_than(&mut b, &x, &y);
    b.output(if greater { "gt" } else { "lt" }, vec![gt]);
    b.finish()
}

/// The bit x > y for unsigned x and y of equal width (least significant
/// bit first): Fischlin's comparator on the carry network.
pub(crate) fn greater_than(b: &mut Builder, x: &[WireId], y: &[WireId]) -> WireId {
    let generate: Vec<Option<[WireId; 2]>> = x
        .iter()
        .zip(y)
        .map(|(&a, &c)| Some([a, b.not(c)]))
        .collect();
    let propagate: Vec<Bit> = x
        .iter()
        .zip(y)
        .map(|(&a, &c)| {
            let d = b.xor(a, c);
            Some(b.not(d))
        })
        .collect();
    let carries = prefix_carries(b, &generate, &propagate);
    wires(b, vec![carries.last().copied().flatten()])[0]
}

/// 1 if a > b (unsigned n-bit), else 0.
pub fn cmp_gt(n: u32, fan_in: usize) -> Circuit {
    compare(n, fan_in, true)
}

/// 1 if a < b (unsigned n-bit), else 0.
pub fn cmp_lt(n: u32, fan_in: usize) -> Circuit {
    compare(n, fan_in, false)
}

/// 1 if a = b: an AND tree over the bitwise equalities.
pub fn cmp_eq(n: u32, fan_in: usize) -> Circuit {
    let mut b = Builder::boolean(fan_in);
    let (x, y) = (b.input("a", n), b.input("b", n));
    let eq: Vec<WireId> = x
        .iter()
        .zip(&y)
        .map(|(&a, &c)| {
            let d = b.xor(a, c);
            b.not(d)
        })
        .collect();
    let all = b.and_all(&eq);
    b.output("eq", vec![all]);
    b.finish()
}

/// AND of all n input bits with gates of at most `fan_in` inputs.
pub fn and_tree(n: u32, fan_in: usize) -> Circuit {
    let mut b = Builder::boolean(fan_in);
    let x = b.input("a", n);
    let all = b.and_all(&x);
    b.output("and", vec![all]);
    b.finish()
}

/// The partial products a_j b_i in columns i + j of a 2n-bit product.
fn partial_products(b: &mut Builder, x: &[WireId], y: &[WireId]) -> Vec<Vec<WireId>> {
    let n = x.len();
    let mut cols = vec![Vec::new(); 2 * n];
    for (i, &yi) in y.iter().enumerate() {
        for (j, &xj) in x.iter().enumerate() {
            let pp = b.and(xj, yi);
            cols[i + j].push(pp);
        }
    }
    cols
}

/// Schoolbook multiplier: the rows a * b_i added one after another with
/// ripple-carry adders; 2n output bits.
pub fn mult_schoolbook(n: u32) -> Circuit {
    let mut b = Builder::boolean(2);
    let (x, y) = (b.input("a", n), b.input("b", n));
    let n = n as usize;
    let mut acc: Vec<Bit> = vec![None; 2 * n];
    for (i, &yi) in y.iter().enumerate() {
        let mut carry: Bit = None;
        for col in i..2 * n {
            let pp: Bit = if col - i < n {
                Some(b.and(x[col - i], yi))
            } else {
                None
            };
            if pp.is_none() && carry.is_none() {
                break;
            }
            let sum = xor_bits(&mut b, &[acc[col], pp, carry]);
            let present = [acc[col], pp, carry].iter().flatten().count();
            carry = if present >= 2 {
                Some(full_adder_carry(&mut b, acc[col], pp, carry))
            } else {
                None
            };
            acc[col] = sum;
        }
    }
    let out = wires(&mut b, acc);
    b.output("product", out);
    b.finish()
}

/// Wallace tree: column compression with full adders until every column
/// has at most two bits, then one prefix adder of the builder's fan-in.
fn mult_tree(n: u32, fan_in: usize) -> Circuit {
    let mut b = Builder::boolean(fan_in);
    let (x, y) = (b.input("a", n), b.input("b", n));
    let width = 2 * n as usize;
    let cols = partial_products(&mut b, &x, &y);
    let out = sum_columns(&mut b, cols, width);
    b.output("product", out);
    b.finish()
}

/// The sum of the bits of every column, column c weighing 2^c, as `width`
/// bits (carries out of the top column are dropped): Dadda-style
/// compression with full adders until every column has at most two bits,
/// then one prefix adder of the builder's fan-in.
pub(crate) fn sum_columns(
    b: &mut Builder,
    mut cols: Vec<Vec<WireId>>,
    width: usize,
) -> Vec<WireId> {
    // Dadda-style targets: each stage brings every column down to the next
    // smaller target, counting the bits this stage sends into the column,
    // so carries never ripple through a stage.
    let tallest = cols.iter().map(Vec::len).max().unwrap_or(0);
    let mut targets = vec![2usize];
    while *targets.last().expect("non-empty") < tallest {
        let t = *targets.last().expect("non-empty");
        targets.push((t * 3 / 2).max(t + 1));
    }
    targets.pop();
    targets.reverse();
    let mut stage = 0;
    while cols.iter().any(|c| c.len() > 2) {
        let target = targets.get(stage).copied().unwrap_or(2);
        stage += 1;
        let mut next: Vec<Vec<WireId>> = vec![Vec::new(); width + 2];
        for (c, col) in cols.iter().enumerate() {
            let mut rest = &col[..];
            loop {
                let h = rest.len() + next[c].len();
                if h <= target || rest.len() < 2 {
                    break;
                }
                // A k-bit adder leaves one bit here: it removes k - 1.
                let k = rest.len().min(3).min(h - target + 1);
                let (group, tail) = rest.split_at(k);
                rest = tail;
                next[c].push(b.xor_all(group));
                let carry = match group {
                    [p, q] => b.and(*p, *q),
                    _ => full_adder_carry(b, Some(group[0]), Some(group[1]), Some(group[2])),
                };
                next[c + 1].push(carry);
            }
            next[c].extend_from_slice(rest);
        }
        next.truncate(width);
        cols = next;
    }
    let row = |k: usize| -> Vec<Bit> { cols.iter().map(|c| c.get(k).copied()).collect() };
    let (r0, r1) = (row(0), row(1));
    let mut sum = add_rows(b, &r0, &r1);
    sum.truncate(width);
    wires(b, sum)
}

/// Wallace-tree multiplier (full adders) with a final prefix adder of fan-in `fan_in`.
pub fn mult_wallace(n: u32, fan_in: usize) -> Circuit {
    mult_tree(n, fan_in)
}

/// Counter-based multiplier: the 2-input Wallace tree rewritten by
/// [`crate::optimize`] with ANDs of up to `fan_in` inputs. Multiplying out
/// the majority carries fuses consecutive full-adder stages into depth-1
/// multi-fan-in counters and the final adder into a multi-fan-in prefix
/// adder; the rewrite picks the fusions, which beats fixed 7:3 counters in
/// depth and size (see docs/circuits.md).
pub fn mult_counter(n: u32, fan_in: usize) -> Circuit {
    let wallace = mult_tree(n, 2);
    if fan_in <= 2 {
        return wallace;
    }
    crate::optimize::optimize(&wallace, fan_in, None)
        .expect("a Boolean circuit and a fan-in checked by the caller")
}

/// The generator names of `huddle circuit gen`.
pub const KINDS: &[&str] = &[
    "adder-ripple",
    "adder-sklansky",
    "mult-schoolbook",
    "mult-wallace",
    "mult-counter",
    "cmp-lt",
    "cmp-gt",
    "cmp-eq",
    "and-tree",
    "aes128",
    "aes192",
    "aes256",
    "aes128-expanded",
    "aes192-expanded",
    "aes256-expanded",
    "sha256",
];

/// Generates circuit `kind` for `bits`-bit values with AND fan-in `fan_in`.
/// AES and SHA-256 have fixed widths and ignore `bits`; for AES the fan-in
/// picks the S-box (2: depth 4, 3: depth 3, 4 or more: depth 2).
pub fn generate(kind: &str, bits: u32, fan_in: usize) -> Result<Circuit, String> {
    if !(1..=4096).contains(&bits) {
        return Err(format!("--bits must be 1 to 4096, not {bits}"));
    }
    if !(2..=crate::model::MAX_FAN_IN).contains(&fan_in) {
        return Err(format!(
            "--fanin must be 2 to {}, not {fan_in}",
            crate::model::MAX_FAN_IN
        ));
    }
    Ok(match kind {
        "adder-ripple" => adder_ripple(bits),
        "adder-sklansky" => adder_sklansky(bits, fan_in),
        "mult-schoolbook" => mult_schoolbook(bits),
        "mult-wallace" => mult_wallace(bits, fan_in),
        "mult-counter" => mult_counter(bits, fan_in),
        "cmp-lt" => cmp_lt(bits, fan_in),
        "cmp-gt" => cmp_gt(bits, fan_in),
        "cmp-eq" => cmp_eq(bits, fan_in),
        "and-tree" => and_tree(bits, fan_in),
        "aes128" | "aes192" | "aes256" | "aes128-expanded" | "aes192-expanded"
        | "aes256-expanded" => {
            let key_bits: u32 = kind[3..6].parse().map_err(|_| kind.to_string())?;
            let depth = crate::aes::SboxDepth::for_fan_in(fan_in);
            crate::aes::aes(key_bits, kind.ends_with("-expanded"), depth)?
        }
        "sha256" => crate::sha256::sha256(fan_in),
        other => {
            return Err(format!(
            "unknown circuit kind `{other}` (this build generates: {}, and the applications {})",
            KINDS.join(", "),
            crate::apps::KINDS.join(", ")
        ))
        }
    })
}
