//! Application circuits users run as they are (`huddle circuit gen`):
//! a vector-matrix product, a fixed-point two-layer perceptron and a
//! sealed-bid auction. Each is an ordinary mixed or arithmetic circuit
//! built with [`Builder`]; `tests/apps.rs` checks them against plain Rust.

use crate::builder::{Builder, Comparison};
use crate::model::{Circuit, InputOwners, Op, WireId};
use huddle_core::RingWidth;

/// y = x·M for x in Z_2^k^n (party 0's input `x`) and an n×n matrix M
/// (party 1's input `m`, row-major: `M[i][j]` is wire i·n + j): y_j is one
/// DOT gate of length n, so a protocol with native dot products pays n
/// multiplications' communication for the whole product.
pub fn vector_matrix(n: u32, ring: RingWidth) -> Circuit {
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", n);
    let m = b.ring_input("m", n * n);
    let y: Vec<WireId> = (0..n as usize)
        .map(|j| {
            let column: Vec<WireId> = (0..n as usize).map(|i| m[i * n as usize + j]).collect();
            b.dot(&x, &column)
        })
        .collect();
    b.ring_output("y", y);
    with_owners(b.finish(), vec![0, 1])
}

/// The shape of a two-layer perceptron: `inputs` → `hidden` (ReLU) → `outputs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Perceptron {
    /// Input features.
    pub inputs: u32,
    /// Neurons in the hidden layer.
    pub hidden: u32,
    /// Output neurons.
    pub outputs: u32,
    /// Fractional bits of every fixed-point value.
    pub frac: u8,
}

/// Fixed-point inference y = W2·relu(W1·x + b1) + b2: party 0 owns the
/// sample `x`; party 1 owns the model, as the values `w1` (hidden×inputs,
/// row-major), `b1`, `w2` (outputs×hidden) and `b2`. Every product is a
/// DOTTR (dot product with truncation by `frac` bits); ReLU is
/// a·(1 − LTZ(a)).
pub fn perceptron(shape: Perceptron, ring: RingWidth) -> Circuit {
    let Perceptron {
        inputs,
        hidden,
        outputs,
        frac,
    } = shape;
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", inputs);
    let w1 = b.ring_input("w1", hidden * inputs);
    let b1 = b.ring_input("b1", hidden);
    let w2 = b.ring_input("w2", outputs * hidden);
    let b2 = b.ring_input("b2", outputs);
    let layer = |b: &mut Builder, v: &[WireId], w: &[WireId], bias: &[WireId], relu: bool| {
        let width = v.len();
        bias.iter()
            .enumerate()
            .map(|(r, &c)| {
                let dot = b.fixed_dot(v, &w[r * width..(r + 1) * width], frac);
                let sum = b.ring_op(Op::Add, &[dot, c]);
                if relu {
                    b.relu(sum)
                } else {
                    sum
                }
            })
            .collect::<Vec<_>>()
    };
    let h = layer(&mut b, &x, &w1, &b1, true);
    let y = layer(&mut b, &h, &w2, &b2, false);
    b.ring_output("y", y);
    with_owners(b.finish(), vec![0, 1, 1, 1, 1])
}

/// A sealed-bid auction among `bidders` parties' bids (input value i, one
/// ring element read as a signed number, owned by party i mod the run's
/// parties): the highest bid and its bidder's index (the first of equal
/// highest bids), both as ring elements. A tournament: each round compares
/// pairs (LTZ of the difference) and keeps the larger bid and its index, so
/// the depth grows with log2(bidders).
pub fn auction(bidders: u32, ring: RingWidth) -> Circuit {
    let mut b = Builder::arithmetic(ring, 2);
    let bids: Vec<WireId> = (0..bidders)
        .map(|i| b.ring_input(&format!("bid{i}"), 1)[0])
        .collect();
    let mut field: Vec<(WireId, WireId)> = bids
        .into_iter()
        .zip(0u64..)
        .map(|(bid, i)| (bid, b.ring_op(Op::ConstRing(i), &[])))
        .collect();
    while field.len() > 1 {
        field = field
            .chunks(2)
            .map(|pair| match *pair {
                [(a, ia), (c, ic)] => {
                    // The later bid wins only if strictly higher: a < c.
                    let later = b.lt(a, c);
                    let later = b.bit_to_ring(later);
                    let pick = |b: &mut Builder, x: WireId, y: WireId| {
                        let d = b.ring_op(Op::Sub, &[y, x]);
                        let d = b.ring_op(Op::Mul, &[later, d]);
                        b.ring_op(Op::Add, &[x, d])
                    };
                    (pick(&mut b, a, c), pick(&mut b, ia, ic))
                }
                [one] => one,
                _ => unreachable!("chunks of two"),
            })
            .collect();
    }
    let (best, winner) = field[0];
    b.ring_output("highest", vec![best]);
    b.ring_output("winner", vec![winner]);
    b.finish()
}

/// Ohata–Nuida's Equality (`less` false) or full-range unsigned
/// comparison a_i < b_i (`less` true) of `pairs` pairs: party 0 owns the
/// ring values `a`, party 1 the values `b`; the output is one bit per pair.
/// Equality is one EQZ of the difference, comparison three LTZ side by side
/// and an AND ([`Builder::compare_lt`]).
pub fn pairwise(pairs: u32, ring: RingWidth, less: bool) -> Circuit {
    let mut b = Builder::arithmetic(ring, 2);
    let (a, c) = (b.ring_input("a", pairs), b.ring_input("b", pairs));
    let bits: Vec<WireId> = a
        .iter()
        .zip(&c)
        .map(|(&x, &y)| {
            if less {
                b.compare_lt(x, y, Comparison::Unsigned)
            } else {
                b.eq(x, y)
            }
        })
        .collect();
    b.output(if less { "lt" } else { "eq" }, bits);
    with_owners(b.finish(), vec![0, 1])
}

/// The largest (`max`) or smallest of `n` unsigned ring values, or its
/// index (`arg`, the first if several): value i is an input of its own,
/// owned by party i mod 2. Ohata–Nuida's 3-Max/Min/Argmax/Argmin for
/// n = 3 (comparisons of all pairs side by side, then one selecting round),
/// a tournament of such groups beyond ([`Builder::extreme`]).
/// With `pairwise`, the classic construction instead
/// ([`Builder::extreme_pairwise`], the paper's baseline).
pub fn extreme(n: u32, ring: RingWidth, max: bool, arg: bool, pairwise: bool) -> Circuit {
    let mut b = Builder::arithmetic(ring, 2);
    let values: Vec<WireId> = (0..n)
        .map(|i| b.ring_input(&format!("x{i}"), 1)[0])
        .collect();
    let (value, index) = if pairwise {
        b.extreme_pairwise(&values, max, Comparison::Unsigned)
    } else {
        b.extreme(&values, max, Comparison::Unsigned)
    };
    let name = match (max, arg) {
        (true, false) => "max",
        (false, false) => "min",
        (true, true) => "argmax",
        (false, true) => "argmin",
    };
    b.ring_output(name, vec![if arg { index } else { value }]);
    with_owners(b.finish(), (0..n as usize).map(|i| i % 2).collect())
}

/// The DNA letters and their ring codes in [`edit_distance`] circuits.
pub const DNA: [char; 4] = ['A', 'C', 'G', 'T'];

/// The ring codes of a DNA string (A, C, G, T; either case), or the first
/// other character and its position.
pub fn dna_codes(s: &str) -> Result<Vec<u64>, String> {
    s.chars()
        .enumerate()
        .map(|(i, ch)| {
            DNA.iter()
                .position(|&d| d == ch.to_ascii_uppercase())
                .map(|c| c as u64)
                .ok_or_else(|| format!("character {} is `{ch}`, not one of A, C, G, T", i + 1))
        })
        .collect()
}

/// The exact edit distance (Levenshtein: insertions, deletions and
/// substitutions of one letter each cost 1) of party 0's string `a` of
/// `la` letters and party 1's string `b` of `lb` letters, one ring element
/// per letter ([`dna_codes`]), as Ohata–Nuida's Section 5.3 computes it:
/// every e_ij = [a_i ≠ b_j] at once (EQZ, then B2A), then the dynamic
/// program x_ij = min(x_(i−1)j + 1, x_i(j−1) + 1, x_(i−1)(j−1) + e_ij)
/// cell by cell, each anti-diagonal's cells side by side (the schedule
/// finds that order itself). The values stay below 2^(k−1) (la, lb <
/// 2^(k−1)), so each 3-Min compares by the sign of a difference
/// ([`Comparison::Bounded`]).
pub fn edit_distance(la: u32, lb: u32, ring: RingWidth) -> Circuit {
    let mut b = Builder::arithmetic(ring, 2);
    let (s, t) = (b.ring_input("a", la), b.ring_input("b", lb));
    let (la, lb) = (la as usize, lb as usize);
    let constant =
        |b: &mut Builder, v: usize| b.ring_op(Op::ConstRing(v as u64 & ring.mask()), &[]);
    // row[j] = x_(i−1)j while row i is computed.
    let mut row: Vec<WireId> = (0..=lb).map(|j| constant(&mut b, j)).collect();
    for i in 1..=la {
        let mut next = vec![constant(&mut b, i)];
        for j in 1..=lb {
            let same = b.eq(s[i - 1], t[j - 1]);
            let differ = b.not(same);
            let e = b.bits_to_ring(&[differ]);
            let up = b.ring_op(Op::AddConst(1), &[row[j]]);
            let left = b.ring_op(Op::AddConst(1), &[next[j - 1]]);
            let diagonal = b.ring_op(Op::Add, &[row[j - 1], e]);
            let (best, _) = b.extreme(&[up, left, diagonal], false, Comparison::Bounded);
            next.push(best);
        }
        row = next;
    }
    b.ring_output("distance", vec![row[lb]]);
    with_owners(b.finish(), vec![0, 1])
}

/// The edit distance of two strings by the textbook dynamic program (the
/// plaintext reference of [`edit_distance`]).
pub fn edit_distance_plain(a: &[u64], b: &[u64]) -> u64 {
    let mut row: Vec<u64> = (0..=b.len() as u64).collect();
    for (i, &x) in a.iter().enumerate() {
        let mut next = vec![i as u64 + 1];
        for (j, &y) in b.iter().enumerate() {
            let v = (row[j + 1] + 1)
                .min(next[j] + 1)
                .min(row[j] + u64::from(x != y));
            next.push(v);
        }
        row = next;
    }
    row[b.len()]
}

fn with_owners(mut c: Circuit, owners: Vec<usize>) -> Circuit {
    c.set_owners(InputOwners::Explicit(owners))
        .expect("owners name the circuit's inputs");
    c
}

/// The application kinds of `huddle circuit gen`.
pub const KINDS: [&str; 11] = [
    "vecmat",
    "perceptron",
    "auction",
    "eq",
    "lt",
    "max",
    "min",
    "argmax",
    "argmin",
    "max-pairwise",
    "edit-distance",
];

/// Generates application `kind` over Z_2^`ring_bits`: `size` is n for
/// `vecmat`, the bidders for `auction`, the pairs for `eq` and `lt`, the
/// values for `max`, `min`, `argmax`, `argmin`, `max-pairwise`, the
/// string lengths L or LA,LB for `edit-distance`, and inputs,hidden,outputs
/// for `perceptron` (fixed point with `frac` fractional bits).
pub fn generate(kind: &str, ring_bits: u32, size: &[u32], frac: u8) -> Result<Circuit, String> {
    let ring = RingWidth::from_bits(ring_bits).ok_or_else(|| {
        format!("--bits must be a ring width (8, 16, 32 or 64) for {kind}, not {ring_bits}")
    })?;
    let one = |what: &str, max: u32| match size {
        [n] if (1..=max).contains(n) => Ok(*n),
        _ => Err(format!("{kind} takes --size N ({what}, 1 to {max})")),
    };
    match kind {
        "vecmat" => Ok(vector_matrix(one("the vector's length", 4096)?, ring)),
        "auction" => Ok(auction(one("bidders", 65536)?, ring)),
        "eq" | "lt" => Ok(pairwise(one("pairs", 1 << 20)?, ring, kind == "lt")),
        "edit-distance" => {
            // Distances up to max(la, lb) compared by the sign of a difference.
            let most = (1u32 << (ring_bits.min(31) - 2)).min(4096);
            let (la, lb) = match size {
                [l] => (*l, *l),
                [la, lb] => (*la, *lb),
                _ => return Err("edit-distance takes --size L or LA,LB (string lengths)".into()),
            };
            if !(1..=most).contains(&la) || !(1..=most).contains(&lb) {
                return Err(format!(
                    "edit-distance over Z_2^{ring_bits} takes strings of 1 to {most} letters"
                ));
            }
            Ok(edit_distance(la, lb, ring))
        }
        "max" | "min" | "argmax" | "argmin" | "max-pairwise" => {
            let n = one("values", 65536)?;
            if n < 2 {
                return Err(format!("{kind} takes --size of at least 2 values"));
            }
            let (max, arg) = (kind.contains("max"), kind.starts_with("arg"));
            Ok(extreme(n, ring, max, arg, kind.ends_with("pairwise")))
        }
        "perceptron" => {
            let [inputs, hidden, outputs] = size else {
                return Err(
                    "perceptron takes --size INPUTS,HIDDEN,OUTPUTS (e.g. 784,128,10)".into(),
                );
            };
            if [inputs, hidden, outputs]
                .iter()
                .any(|&&n| !(1..=65536).contains(&n))
            {
                return Err("perceptron layer sizes must be 1 to 65536".into());
            }
            if frac == 0 || u32::from(frac) >= ring_bits {
                return Err(format!("--frac must be 1 to {}, not {frac}", ring_bits - 1));
            }
            Ok(perceptron(
                Perceptron {
                    inputs: *inputs,
                    hidden: *hidden,
                    outputs: *outputs,
                    frac,
                },
                ring,
            ))
        }
        other => Err(format!("unknown application kind `{other}`")),
    }
}
