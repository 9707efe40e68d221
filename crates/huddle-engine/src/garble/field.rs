//! Shamir sharing over GF(2^128) with party p at the point ι(p + 1) of
//! the subfield GF(2^16), the reconstruction (Lagrange-at-zero) constants
//! for all n points, sharings that stay inside the subfield and travel as
//! its 16-bit coordinates, and the double-key PRF F² from fixed-key AES.

use huddle_core::{Gf128, Prg};
use std::sync::OnceLock;

/// The evaluation point of party `p` (p < 65535): an element of the
/// subfield, so that sharings of subfield secrets with subfield
/// coefficients have subfield shares.
pub(crate) fn point(p: usize) -> Gf128 {
    let v = u16::try_from(p + 1).expect("at most 65535 parties share over GF(2^16)");
    Subfield::get().embed(v)
}

/// GF(2^16) inside GF(2^128): the elements x with x^(2^16) = x. A permutation
/// bit, a product of two, and a Shamir sharing of either whose coefficients
/// and points lie in the subfield all stay in it, so each share can travel
/// as 16 coordinates instead of 128 bits, while every product with a
/// 128-bit offset R is still taken in GF(2^128).
pub(crate) struct Subfield {
    /// ι(b) for every byte b of a coordinate vector, low byte then high byte.
    embed_low: [u128; 256],
    embed_high: [u128; 256],
    /// The bit positions (ascending) that hold the 16 coordinates: a basis
    /// in reduced echelon form has exactly one vector with each of them set.
    pivots: [u8; 16],
    /// The pivots as masks of the low and high 64 bits (for PEXT).
    mask_low: u64,
    mask_high: u64,
}

impl Subfield {
    pub(crate) fn get() -> &'static Subfield {
        static FIELD: OnceLock<Subfield> = OnceLock::new();
        FIELD.get_or_init(Subfield::new)
    }

    fn new() -> Subfield {
        // z = g^((2^128 - 1)/(2^16 - 1)) lies in the subfield; it generates
        // it (degree 16) unless it already lies in GF(2^8), i.e. z^(2^8) = z.
        let exponent = u128::MAX / u128::from(u16::MAX);
        let z = (2u64..)
            .map(|g| Gf128::from_u64(g).pow(exponent))
            .find(|&z| z.pow(1 << 8) != z)
            .expect("some small element generates the subfield");
        // 1, z, ..., z^15, brought to reduced echelon form (pivot: top bit).
        let mut basis: Vec<u128> = Vec::with_capacity(16);
        let mut power = Gf128::ONE;
        for _ in 0..16 {
            let mut v = power.0;
            for &b in &basis {
                if v >> (127 - b.leading_zeros()) & 1 == 1 {
                    v ^= b;
                }
            }
            assert_ne!(v, 0, "the powers of a generator are independent");
            let top = 127 - v.leading_zeros();
            for b in basis.iter_mut() {
                if *b >> top & 1 == 1 {
                    *b ^= v;
                }
            }
            basis.push(v);
            power *= z;
        }
        basis.sort_by_key(|b| 127 - b.leading_zeros());
        let mut pivots = [0u8; 16];
        for (k, b) in basis.iter().enumerate() {
            pivots[k] = (127 - b.leading_zeros()) as u8;
        }
        let span = |byte: usize, shift: usize| -> u128 {
            (0..8)
                .filter(|i| byte >> i & 1 == 1)
                .fold(0, |acc, i| acc ^ basis[shift + i])
        };
        let mut embed_low = [0u128; 256];
        let mut embed_high = [0u128; 256];
        for b in 0..256 {
            embed_low[b] = span(b, 0);
            embed_high[b] = span(b, 8);
        }
        let (mut mask_low, mut mask_high) = (0u64, 0u64);
        for &p in &pivots {
            if p < 64 {
                mask_low |= 1 << p;
            } else {
                mask_high |= 1 << (p - 64);
            }
        }
        Subfield {
            embed_low,
            embed_high,
            pivots,
            mask_low,
            mask_high,
        }
    }

    /// The subfield element with these coordinates.
    #[inline]
    pub(crate) fn embed(&self, v: u16) -> Gf128 {
        Gf128(self.embed_low[usize::from(v as u8)] ^ self.embed_high[usize::from(v >> 8)])
    }

    /// The coordinates of a subfield element (of anything else: those of
    /// some subfield element, never an error; callers only pass subfield
    /// elements, which the tests check).
    #[cfg(test)]
    #[inline]
    pub(crate) fn coordinates(&self, x: Gf128) -> u16 {
        #[cfg(target_arch = "x86_64")]
        if bmi2() {
            // SAFETY: `bmi2` checked the CPU feature.
            return unsafe { self.coordinates_pext(x) };
        }
        self.coordinates_portable(x)
    }

    fn coordinates_portable(&self, x: Gf128) -> u16 {
        self.pivots
            .iter()
            .enumerate()
            .fold(0, |acc, (k, &p)| acc | ((x.0 >> p) as u16 & 1) << k)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi2")]
    #[inline]
    unsafe fn coordinates_pext(&self, x: Gf128) -> u16 {
        use std::arch::x86_64::_pext_u64;
        let low = _pext_u64(x.0 as u64, self.mask_low);
        let high = _pext_u64((x.0 >> 64) as u64, self.mask_high);
        (low | high << self.mask_low.count_ones()) as u16
    }

    /// Appends subfield elements to `out` as 2 little-endian bytes each.
    pub(crate) fn append_bytes(&self, values: &[Gf128], out: &mut Vec<u8>) {
        out.reserve(2 * values.len());
        #[cfg(target_arch = "x86_64")]
        if bmi2() {
            // SAFETY: `bmi2` checked the CPU feature.
            return unsafe { self.append_bytes_pext(values, out) };
        }
        for &v in values {
            out.extend_from_slice(&self.coordinates_portable(v).to_le_bytes());
        }
    }

    /// [`Subfield::append_bytes`] with PEXT inlined into the loop.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi2")]
    unsafe fn append_bytes_pext(&self, values: &[Gf128], out: &mut Vec<u8>) {
        for &v in values {
            // SAFETY: the caller checked BMI2.
            let c = unsafe { self.coordinates_pext(v) };
            out.extend_from_slice(&c.to_le_bytes());
        }
    }

    /// The elements of [`Subfield::append_bytes`] (a trailing odd byte is ignored;
    /// the transport checked the length).
    pub(crate) fn elements_of_bytes(&self, bytes: &[u8]) -> Vec<Gf128> {
        bytes
            .chunks_exact(2)
            .map(|b| self.embed(u16::from_le_bytes([b[0], b[1]])))
            .collect()
    }

    /// Uniformly random subfield elements.
    pub(crate) fn random(&self, prg: &mut Prg, count: usize) -> Vec<Gf128> {
        let mut words = vec![0u64; count.div_ceil(4)];
        prg.fill_u64(&mut words);
        (0..count)
            .map(|i| self.embed((words[i / 4] >> (16 * (i % 4))) as u16))
            .collect()
    }
}

#[cfg(target_arch = "x86_64")]
fn bmi2() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| std::arch::is_x86_feature_detected!("bmi2"))
}

/// Shares of `secret` for parties 0..n under a random polynomial of degree
/// `degree`: share p is f(point(p)).
#[cfg(test)]
pub(crate) fn share(secret: Gf128, degree: usize, n: usize, prg: &mut Prg) -> Vec<Gf128> {
    let mut out = Vec::with_capacity(n);
    share_each(secret, degree, n, prg, |_, s| out.push(s));
    out
}

/// Like [`share`], handing share p to `sink(p, share)`; it allocates only
/// for degrees above 64 (more than 65 parties at degree n - 1).
pub(crate) fn share_each(
    secret: Gf128,
    degree: usize,
    n: usize,
    prg: &mut Prg,
    mut sink: impl FnMut(usize, Gf128),
) {
    let mut on_stack = [Gf128::ZERO; 64];
    let mut on_heap = Vec::new();
    let coefficients: &mut [Gf128] = match on_stack.get_mut(..degree) {
        Some(c) => c,
        None => {
            on_heap.resize(degree, Gf128::ZERO);
            &mut on_heap
        }
    };
    let mut bytes = [0u8; 16];
    for a in coefficients.iter_mut() {
        prg.fill_bytes(&mut bytes);
        *a = Gf128::from_bytes(bytes);
    }
    let Some((&top, lower)) = coefficients.split_last() else {
        // Degree 0: every share is the secret.
        for p in 0..n {
            sink(p, secret);
        }
        return;
    };
    for p in 0..n {
        // Horner: ((a_t x + a_{t-1}) x + ...) x + secret.
        let x = point(p);
        let mut acc = top;
        for &a in lower.iter().rev() {
            acc = acc * x + a;
        }
        sink(p, acc * x + secret);
    }
}

/// Shares of every secret at once (vectorized Horner, one random
/// polynomial per secret): element i of vector p is f_i(point(p)).
pub(crate) fn share_batch(
    secrets: &[Gf128],
    degree: usize,
    n: usize,
    prg: &mut Prg,
) -> Vec<Vec<Gf128>> {
    let m = secrets.len();
    // Coefficients a_1..a_degree, one vector each.
    let coefficients: Vec<Vec<Gf128>> = (0..degree)
        .map(|_| {
            let mut raw = vec![0u128; m];
            prg.xor_into(&mut raw);
            raw.into_iter().map(Gf128).collect()
        })
        .collect();
    evaluate_at_points(secrets, &coefficients, n)
}

/// [`share_batch`] where the first `small` secrets lie in the subfield and
/// get subfield coefficients, so that their shares are subfield elements;
/// any after them get coefficients from all of GF(2^128).
pub(crate) fn share_batch_small(
    secrets: &[Gf128],
    small: usize,
    degree: usize,
    n: usize,
    prg: &mut Prg,
) -> Vec<Vec<Gf128>> {
    let field = Subfield::get();
    let coefficients: Vec<Vec<Gf128>> = (0..degree)
        .map(|_| {
            let mut c = field.random(prg, small);
            c.extend((small..secrets.len()).map(|_| random(prg)));
            c
        })
        .collect();
    evaluate_at_points(secrets, &coefficients, n)
}

/// f_i(point(p)) for every party p, where f_i has constant term secrets[i]
/// and coefficients[k][i] for x^(k+1).
fn evaluate_at_points(secrets: &[Gf128], coefficients: &[Vec<Gf128>], n: usize) -> Vec<Vec<Gf128>> {
    (0..n)
        .map(|p| {
            let x = point(p);
            let mut out = secrets.to_vec();
            if let Some((top, lower)) = coefficients.split_last() {
                // acc = (..(a_t x + a_{t-1}) x + ..) + a_1, then out += acc·x.
                let mut acc = top.clone();
                for a in lower.iter().rev() {
                    let mut next = a.clone();
                    Gf128::scale_add(&mut next, &acc, x);
                    acc = next;
                }
                Gf128::scale_add(&mut out, &acc, x);
            }
            out
        })
        .collect()
}

/// Constants c_p with f(0) = Σ c_p f(point(p)) for every polynomial of degree
/// below n (the "share conversion" of Section 3.1 multiplies by them).
pub(crate) fn reconstruction(n: usize) -> Vec<Gf128> {
    (0..n)
        .map(|i| {
            let (mut num, mut den) = (Gf128::ONE, Gf128::ONE);
            for m in (0..n).filter(|&m| m != i) {
                num *= point(m);
                den *= point(m) + point(i);
            }
            num * den.inverse().expect("distinct points")
        })
        .collect()
}

pub(crate) fn random(prg: &mut Prg) -> Gf128 {
    let mut b = [0u8; 16];
    prg.fill_bytes(&mut b);
    Gf128::from_bytes(b)
}

/// F²_{k1,k2}(tweak) = π(K) ⊕ K with K = 2·k1 ⊕ 4·k2 ⊕ tweak and π AES-128
/// under a fixed public key: the correlation-robust construction of
/// Bellare et al. for garbling with fixed-key AES. Evaluates a batch.
pub(crate) struct DoubleKeyPrf {
    cipher: huddle_core::wide_aes::WideAes,
}

impl Default for DoubleKeyPrf {
    fn default() -> Self {
        Self::new()
    }
}

impl DoubleKeyPrf {
    pub(crate) fn new() -> Self {
        // Any fixed, public key will do; this one is the bytes of "huddle BMR F2 key".
        DoubleKeyPrf {
            cipher: huddle_core::wide_aes::WideAes::new(*b"huddle-bmr-f2key"),
        }
    }

    #[inline]
    pub(crate) fn input(k1: Gf128, k2: Gf128, tweak: u128) -> u128 {
        k1.double().0 ^ k2.double().double().0 ^ tweak
    }

    /// Replaces every input K (from [`Self::input`]) by π(K) ⊕ K.
    pub(crate) fn apply(&self, values: &mut [u128]) {
        self.cipher.permute_xor(values);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// ι is an injective ring homomorphism onto elements with
        /// x^(2^16) = x, and coordinates invert it (both paths alike).
        #[test]
        fn the_subfield_is_closed_and_its_coordinates_invert_the_embedding(a: u16, b: u16, junk: u128) {
            let f = Subfield::get();
            let (x, y) = (f.embed(a), f.embed(b));
            prop_assert_eq!(x.pow(1 << 16), x);
            prop_assert_eq!(f.coordinates(x), a);
            prop_assert_eq!(f.coordinates_portable(x), a);
            prop_assert_eq!(f.embed(a ^ b), x + y);
            let product = x * y;
            prop_assert_eq!(f.embed(f.coordinates(product)), product);
            prop_assert_eq!(a == b, x == y);
            // Outside the subfield the two paths still agree.
            prop_assert_eq!(f.coordinates(Gf128(junk)), f.coordinates_portable(Gf128(junk)));
            let mut bytes = vec![7];
            f.append_bytes(&[x, y], &mut bytes);
            prop_assert_eq!(f.elements_of_bytes(&bytes[1..]), vec![x, y]);
        }
    }

    #[test]
    fn the_subfield_has_exactly_two_to_the_sixteen_elements() {
        let f = Subfield::get();
        // Not inside GF(2^8): some element moves under x -> x^(2^8).
        assert!((0..=u16::MAX).any(|a| f.embed(a).pow(1 << 8) != f.embed(a)));
        // The points are distinct, non-zero and in the subfield.
        let points: std::collections::HashSet<u128> = (0..1000).map(|p| point(p).0).collect();
        assert_eq!(points.len(), 1000);
        assert!(!points.contains(&0));
        assert!((0..1000).all(|p| point(p).pow(1 << 16) == point(p)));
        // Random draws cover the coordinates (no constant bit).
        let mut prg = Prg::from_seed([9; 16]);
        let draws = f.random(&mut prg, 4096);
        let (mut ones, mut zeros) = (0u16, 0u16);
        for d in &draws {
            let c = f.coordinates(*d);
            ones |= c;
            zeros |= !c;
        }
        assert_eq!((ones, zeros), (u16::MAX, u16::MAX));
    }

    /// At t = 1 a party's share s + a·x_p, over every subfield coefficient
    /// a, takes every subfield value exactly once whatever the secret: its
    /// share alone says nothing about a permutation bit.
    #[test]
    fn one_subfield_share_is_independent_of_the_secret() {
        let f = Subfield::get();
        for p in [0, 1, 2, 255] {
            for secret in [Gf128::ZERO, Gf128::ONE] {
                let mut seen = vec![false; 1 << 16];
                for a in 0..=u16::MAX {
                    let share = secret + f.embed(a) * point(p);
                    let c = usize::from(f.coordinates(share));
                    assert_eq!(f.embed(c as u16), share, "in the subfield");
                    assert!(!seen[c], "party {p}: a share value twice");
                    seen[c] = true;
                }
            }
        }
    }

    #[test]
    fn subfield_sharings_have_subfield_shares_that_reconstruct() {
        let f = Subfield::get();
        let mut prg = Prg::from_seed([4; 16]);
        for (n, degree) in [(3, 1), (5, 2), (7, 3), (256, 127)] {
            // 40 subfield secrets and, after them, one of all of GF(2^128)
            // (as round 1 shares the bits and R).
            let mut secrets = f.random(&mut prg, 40);
            secrets.push(random(&mut prg));
            let shares = share_batch_small(&secrets, 40, degree, n, &mut prg);
            let c = reconstruction(n);
            for (i, &secret) in secrets.iter().enumerate() {
                if i < 40 {
                    assert!(shares.iter().all(|s| s[i].pow(1 << 16) == s[i]));
                }
                let open = (0..n).fold(Gf128::ZERO, |acc, p| acc + c[p] * shares[p][i]);
                assert_eq!(open, secret, "n {n} degree {degree}");
            }
            // The full secret's shares leave the subfield (else R's
            // coefficients would be too few to hide it).
            assert!(shares.iter().any(|s| s[40].pow(1 << 16) != s[40]));
            // Products of two subfield sharings reconstruct to the product
            // (degree 2t < n), as the degree reduction needs.
            if 2 * degree < n {
                let others = f.random(&mut prg, 40);
                let more = share_batch_small(&others, others.len(), degree, n, &mut prg);
                for i in 0..40 {
                    let open =
                        (0..n).fold(Gf128::ZERO, |acc, p| acc + c[p] * shares[p][i] * more[p][i]);
                    assert_eq!(open, secrets[i] * others[i]);
                }
            }
        }
    }

    #[test]
    fn shares_reconstruct_for_every_degree_below_n() {
        let mut prg = Prg::from_seed([1; 16]);
        // 97 parties: degrees 2t and 3t beyond 64 (the old stack-only limit).
        for n in [3, 4, 5, 7, 13, 31, 97] {
            let c = reconstruction(n);
            for degree in 0..n {
                let secret = random(&mut prg);
                let s = share(secret, degree, n, &mut prg);
                let sum = s
                    .iter()
                    .zip(&c)
                    .fold(Gf128::ZERO, |acc, (&x, &k)| acc + x * k);
                assert_eq!(sum, secret, "n {n} degree {degree}");
            }
        }
    }

    #[test]
    fn batch_shares_lie_on_polynomials_of_the_degree() {
        let mut prg = Prg::from_seed([3; 16]);
        for (n, degree) in [(3, 0), (3, 1), (5, 2), (7, 3), (13, 6)] {
            let secrets: Vec<Gf128> = (0..50).map(|_| random(&mut prg)).collect();
            let shares = share_batch(&secrets, degree, n, &mut prg);
            let c = reconstruction(n);
            for (i, &secret) in secrets.iter().enumerate() {
                let open = (0..n).fold(Gf128::ZERO, |acc, p| acc + c[p] * shares[p][i]);
                assert_eq!(open, secret);
                // Degree check: the first degree + 1 shares determine the rest.
                let base: Vec<usize> = (0..=degree).collect();
                for q in degree + 1..n {
                    let mut v = Gf128::ZERO;
                    for &b in &base {
                        let mut l = Gf128::ONE;
                        for &m in base.iter().filter(|&&m| m != b) {
                            l *= (point(q) + point(m))
                                * (point(b) + point(m)).inverse().expect("distinct");
                        }
                        v += shares[b][i] * l;
                    }
                    assert_eq!(v, shares[q][i], "n {n} degree {degree}");
                }
            }
        }
    }

    #[test]
    fn products_of_shares_are_shares_of_the_product() {
        let mut prg = Prg::from_seed([2; 16]);
        let n = 7;
        let c = reconstruction(n);
        let (a, b) = (random(&mut prg), random(&mut prg));
        let (sa, sb) = (share(a, 2, n, &mut prg), share(b, 3, n, &mut prg));
        let product: Gf128 = (0..n).fold(Gf128::ZERO, |acc, p| acc + c[p] * sa[p] * sb[p]);
        assert_eq!(product, a * b);
    }

    #[test]
    fn prf_is_fixed_key_aes_plus_its_input() {
        // Known answer: AES-128 under the fixed key on the all-zero block.
        let prf = DoubleKeyPrf::new();
        let mut v = [0u128];
        prf.apply(&mut v);
        use aes::cipher::{BlockEncrypt, KeyInit};
        let mut block = aes::Block::from([0u8; 16]);
        aes::Aes128::new(&(*b"huddle-bmr-f2key").into()).encrypt_block(&mut block);
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&block);
        assert_eq!(v[0], u128::from_le_bytes(bytes));
        // Doubling keeps the two keys apart: F(k, k') != F(k', k) in general.
        let (k1, k2) = (Gf128(5), Gf128(9));
        assert_ne!(
            DoubleKeyPrf::input(k1, k2, 0),
            DoubleKeyPrf::input(k2, k1, 0)
        );
    }
}
