//! The SHA-256 compression function (FIPS 180-4, Section 6.2.2) as a
//! circuit: (512-bit block, 256-bit chaining state) -> new state, in the
//! input order of `shared/circuits/sha256.txt` (block byte 0 and H0
//! leftmost in hex), so the same vectors apply.
//!
//! Depth comes from the additions. Each sum of several words is reduced by
//! full adders (carry = majority, one AND), always combining the three
//! operands that are ready first, so constants, message words and the
//! state word h fold in while Ch and Maj are still being computed; the two
//! words left go through one prefix adder of the circuit's fan-in budget.

use crate::builder::Builder;
use crate::carry::{add_rows, full_adder_carry, wires, xor_bits, Bit};
use crate::model::Circuit;

type Word = [Bit; 32];

/// The round constants: the first 32 fractional bits of the cube roots of
/// the first 64 primes, computed exactly (largest r with r^3 <= p * 2^96).
pub fn round_constants() -> [u32; 64] {
    let primes = primes(64);
    std::array::from_fn(|t| {
        let target = u128::from(primes[t]) << 96;
        let r = integer_root(target, 3);
        r as u32
    })
}

/// The initial hash value: the first 32 fractional bits of the square
/// roots of the first 8 primes.
pub fn initial_state() -> [u32; 8] {
    let primes = primes(8);
    std::array::from_fn(|i| integer_root(u128::from(primes[i]) << 64, 2) as u32)
}

fn primes(n: usize) -> Vec<u64> {
    let mut found = Vec::with_capacity(n);
    let mut k = 2u64;
    while found.len() < n {
        if found.iter().all(|&p| !k.is_multiple_of(p)) {
            found.push(k);
        }
        k += 1;
    }
    found
}

/// The largest r with r^power <= target (power 2 or 3; target < 2^110).
fn integer_root(target: u128, power: u32) -> u128 {
    let (mut lo, mut hi) = (0u128, 1u128 << 40);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if mid.pow(power) <= target {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// A word with an estimate of its AND-depth, used to order the additions.
#[derive(Clone, Copy)]
struct Timed {
    word: Word,
    depth: u32,
}

struct Sha<'a> {
    b: &'a mut Builder,
    /// AND layers of the final prefix adder (32 bits, the budget's fan-in).
    adder_depth: u32,
}

impl Sha<'_> {
    fn xor3(&mut self, x: &Word, y: &Word, z: &Word) -> Word {
        std::array::from_fn(|i| xor_bits(self.b, &[x[i], y[i], z[i]]))
    }

    fn and(&mut self, x: Bit, y: Bit) -> Bit {
        Some(self.b.and(x?, y?))
    }

    /// Ch(e, f, g) = g ^ (e & (f ^ g)): one AND per bit.
    fn choose(&mut self, e: &Timed, f: &Timed, g: &Timed) -> Timed {
        let word = std::array::from_fn(|i| {
            let fg = xor_bits(self.b, &[f.word[i], g.word[i]]);
            let t = self.and(e.word[i], fg);
            xor_bits(self.b, &[t, g.word[i]])
        });
        Timed {
            word,
            depth: e.depth.max(f.depth).max(g.depth) + 1,
        }
    }

    /// Maj(a, b, c) = b ^ ((a ^ b) & (b ^ c)): one AND per bit.
    fn majority(&mut self, a: &Timed, b: &Timed, c: &Timed) -> Timed {
        let word = std::array::from_fn(|i| {
            let ab = xor_bits(self.b, &[a.word[i], b.word[i]]);
            let bc = xor_bits(self.b, &[b.word[i], c.word[i]]);
            let t = self.and(ab, bc);
            xor_bits(self.b, &[t, b.word[i]])
        });
        Timed {
            word,
            depth: a.depth.max(b.depth).max(c.depth) + 1,
        }
    }

    /// The sum mod 2^32 of all `operands`.
    fn add(&mut self, mut operands: Vec<Timed>) -> Timed {
        while operands.len() > 2 {
            // The three that are ready first (stable, so ties keep their order).
            operands.sort_by_key(|t| t.depth);
            let rest = operands.split_off(3);
            let [x, y, z] = [operands[0], operands[1], operands[2]];
            let sum = self.xor3(&x.word, &y.word, &z.word);
            let mut carry: Word = [None; 32];
            for i in 0..31 {
                let (p, q, r) = (x.word[i], y.word[i], z.word[i]);
                if [p, q, r].iter().flatten().count() >= 2 {
                    carry[i + 1] = Some(full_adder_carry(self.b, p, q, r));
                }
            }
            let depth = x.depth.max(y.depth).max(z.depth) + 1;
            operands = rest;
            operands.push(Timed { word: sum, depth });
            operands.push(Timed { word: carry, depth });
        }
        match operands[..] {
            [x] => x,
            [x, y] => {
                let sum = add_rows(self.b, &x.word, &y.word);
                Timed {
                    word: std::array::from_fn(|i| sum[i]),
                    depth: x.depth.max(y.depth) + self.adder_depth,
                }
            }
            _ => unreachable!("sums have operands"),
        }
    }

    fn constant(&mut self, value: u32) -> Timed {
        let one = self.b.constant(true);
        Timed {
            word: std::array::from_fn(|i| (value >> i & 1 == 1).then_some(one)),
            depth: 0,
        }
    }
}

fn rotr(x: &Word, n: usize) -> Word {
    std::array::from_fn(|i| x[(i + n) % 32])
}

fn shr(x: &Word, n: usize) -> Word {
    std::array::from_fn(|i| if i + n < 32 { x[i + n] } else { None })
}

/// The compression function with prefix adders of fan-in `fan_in`.
pub fn sha256(fan_in: usize) -> Circuit {
    let mut b = Builder::boolean(fan_in);
    let block = b.input("block", 512);
    let state = b.input("state", 256);
    // Word i of a value of `n` words sits on wires (n - 1 - i) * 32 .. + 32.
    let words = |w: &[u32], n: usize| -> Vec<Timed> {
        (0..n)
            .map(|i| Timed {
                word: std::array::from_fn(|j| Some(w[(n - 1 - i) * 32 + j])),
                depth: 0,
            })
            .collect()
    };
    let message = words(&block, 16);
    let initial = words(&state, 8);
    let l = b.max_fan_in().max(2) as u32;
    let adder_depth = (1..)
        .find(|&d| u64::from(l - 1) * u64::from(l).pow(d - 1) >= 32)
        .expect("some depth covers 32 bits");
    let mut sha = Sha {
        b: &mut b,
        adder_depth,
    };
    let k = round_constants();
    let mut w = message;
    for t in 16..64 {
        let (x, y) = (w[t - 15], w[t - 2]);
        let s0 = Timed {
            word: sha.xor3(&rotr(&x.word, 7), &rotr(&x.word, 18), &shr(&x.word, 3)),
            depth: x.depth,
        };
        let s1 = Timed {
            word: sha.xor3(&rotr(&y.word, 17), &rotr(&y.word, 19), &shr(&y.word, 10)),
            depth: y.depth,
        };
        let next = sha.add(vec![s1, w[t - 7], s0, w[t - 16]]);
        w.push(next);
    }
    let mut v = initial.clone();
    for t in 0..64 {
        let [a, bb, c, d, e, f, g, h] = [v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]];
        let big_s1 = Timed {
            word: sha.xor3(&rotr(&e.word, 6), &rotr(&e.word, 11), &rotr(&e.word, 25)),
            depth: e.depth,
        };
        let big_s0 = Timed {
            word: sha.xor3(&rotr(&a.word, 2), &rotr(&a.word, 13), &rotr(&a.word, 22)),
            depth: a.depth,
        };
        let ch = sha.choose(&e, &f, &g);
        let maj = sha.majority(&a, &bb, &c);
        let kt = sha.constant(k[t]);
        // h + K_t + W_t is ready early (h was e three rounds ago), so it is
        // added in full; T1 + T2 and d + T1 are then sums of their own, so
        // neither waits for a finished T1. (Keeping it in carry-save form
        // saves an adder but costs a full-adder layer on the critical path.)
        let base = sha.add(vec![h, kt, w[t]]);
        let new_a = sha.add(vec![base, big_s1, ch, big_s0, maj]);
        let new_e = sha.add(vec![base, big_s1, ch, d]);
        v = vec![new_a, a, bb, c, new_e, e, f, g];
    }
    let out: Vec<Timed> = (0..8).map(|i| sha.add(vec![initial[i], v[i]])).collect();
    // Output H0 leftmost: H7's least significant bit on the first wire.
    let bits: Vec<Bit> = out.iter().rev().flat_map(|t| t.word).collect();
    let out = wires(&mut b, bits);
    b.output("state", out);
    b.finish()
}
