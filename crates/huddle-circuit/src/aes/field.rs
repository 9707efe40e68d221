//! The arithmetic the S-box is built from: GF(2^8) with the AES polynomial,
//! the S-box by its definition (the reference the circuits are checked
//! against), GF(2^4) products, the tower representations of GF(2^8) over
//! GF(2^4) ([`Tower`]) and the Karatsuba forms of a GF(2^4) product.

use super::gf2::solve;

/// Multiplication in GF(2^8) with the AES polynomial x^8 + x^4 + x^3 + x + 1.
pub fn gf256_mul(mut a: u8, mut b: u8) -> u8 {
    let mut r = 0;
    while b != 0 {
        if b & 1 == 1 {
            r ^= a;
        }
        let high = a & 0x80 != 0;
        a <<= 1;
        if high {
            a ^= 0x1b;
        }
        b >>= 1;
    }
    r
}

/// The AES S-box by its definition (inverse, then the affine map); the
/// reference the synthesized circuits are checked against.
pub fn sbox_value(x: u8) -> u8 {
    // x^254 = x^-1 (and 0 for 0).
    let mut inv = 1u8;
    for _ in 0..254 {
        inv = gf256_mul(inv, x);
    }
    affine_linear(inv) ^ 0x63
}

pub(super) fn affine_linear(b: u8) -> u8 {
    b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4)
}

pub(super) fn gf16_mul(modulus: u8, mut a: u8, b: u8) -> u8 {
    let mut r = 0;
    for i in 0..4 {
        if b >> i & 1 == 1 {
            r ^= a;
        }
        a <<= 1;
        if a & 0x10 != 0 {
            a ^= modulus;
        }
    }
    r
}

/// GF(2^8) as GF(2^4)[y]/(y^2 + y + ν), GF(2^4) = GF(2)[z]/(modulus) in
/// polynomial basis; element bits 0-3 are l, bits 4-7 are h. `beta` is the
/// image of the AES generator x.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tower {
    pub(super) modulus: u8,
    pub(super) nu: u8,
    pub(super) beta: u8,
    /// The depth-2 S-box works with c·e instead of e (c = scale), which
    /// changes how sparse its forms are; the other depths use 1.
    pub(super) scale: u8,
}

impl Tower {
    pub(super) fn mul16(&self, a: u8, b: u8) -> u8 {
        gf16_mul(self.modulus, a, b)
    }

    fn mul(&self, a: u8, b: u8) -> u8 {
        let (h1, l1, h2, l2) = (a >> 4, a & 15, b >> 4, b & 15);
        let hh = self.mul16(h1, h2);
        let h = hh ^ self.mul16(h1, l2) ^ self.mul16(l1, h2);
        let l = self.mul16(hh, self.nu) ^ self.mul16(l1, l2);
        h << 4 | l
    }

    /// The field isomorphism from AES's representation (GF(2)-linear).
    pub(super) fn map(&self, x: u8) -> u8 {
        let mut image = 0;
        let mut power = 1u8;
        for i in 0..8 {
            if x >> i & 1 == 1 {
                image ^= power;
            }
            power = self.mul(power, self.beta);
        }
        image
    }

    /// Every representation: three GF(2^4) moduli, every ν making
    /// y^2 + y + ν irreducible, every root of the AES polynomial.
    pub(super) fn all() -> Vec<Tower> {
        let mut towers = Vec::new();
        for modulus in [0x13u8, 0x19, 0x1f] {
            for nu in 1..16u8 {
                if (0..16u8).any(|t| gf16_mul(modulus, t, t) ^ t == nu) {
                    continue;
                }
                for beta in 2..=255u8 {
                    let t = Tower {
                        modulus,
                        nu,
                        beta,
                        scale: 1,
                    };
                    let pow = |k: u32| (0..k).fold(1u8, |acc, _| t.mul(acc, beta));
                    if pow(8) ^ pow(4) ^ pow(3) ^ pow(1) ^ 1 == 0 {
                        towers.push(t);
                    }
                }
            }
        }
        towers
    }
}

/// The Karatsuba forms of a 4-bit operand: bits 0, 1, 0+1, 2, 3, 2+3,
/// 0+2, 1+3 and all four. Product (m·a)(m·b) over these spans every
/// coefficient of the polynomial product, hence every GF(2^4) product bit.
pub(super) const FORMS: [u8; 9] = [0x1, 0x2, 0x3, 0x4, 0x8, 0xc, 0x5, 0xa, 0xf];

/// For each product bit k, the set (bit i) of Karatsuba products summing to it.
pub(super) fn product_selection(modulus: u8) -> [u32; 4] {
    let rank_one: Vec<u32> = FORMS
        .iter()
        .map(|&m| {
            let mut v = 0;
            for i in 0..4 {
                for j in 0..4 {
                    if m >> i & m >> j & 1 == 1 {
                        v |= 1 << (4 * i + j);
                    }
                }
            }
            v
        })
        .collect();
    std::array::from_fn(|k| {
        let mut target = 0u32;
        for i in 0..4 {
            for j in 0..4 {
                if gf16_mul(modulus, 1 << i, 1 << j) >> k & 1 == 1 {
                    target |= 1 << (4 * i + j);
                }
            }
        }
        solve(&rank_one, target).expect("Karatsuba products span GF(2^4) multiplication")
    })
}
