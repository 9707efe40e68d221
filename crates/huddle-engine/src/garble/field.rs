//! Shamir sharing over GF(2^128) with party p at the point p + 1, the
//! reconstruction (Lagrange-at-zero) constants for all n points, and the
//! double-key PRF F² from fixed-key AES.

use huddle_core::{Gf128, Prg};

/// The evaluation point of party `p`.
pub fn point(p: usize) -> Gf128 {
    Gf128::from_u64(p as u64 + 1)
}

/// Shares of `secret` for parties 0..n under a random polynomial of degree
/// `degree`: share p is f(p + 1).
pub fn share(secret: Gf128, degree: usize, n: usize, prg: &mut Prg) -> Vec<Gf128> {
    let mut out = Vec::with_capacity(n);
    share_each(secret, degree, n, prg, |_, s| out.push(s));
    out
}

/// Like [`share`], handing share p to `sink(p, share)`; it allocates only
/// for degrees above 64 (more than 65 parties at degree n - 1).
pub fn share_each(
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
/// polynomial per secret): element i of vector p is f_i(p + 1).
pub fn share_batch(secrets: &[Gf128], degree: usize, n: usize, prg: &mut Prg) -> Vec<Vec<Gf128>> {
    let m = secrets.len();
    // Coefficients a_1..a_degree, one vector each.
    let coefficients: Vec<Vec<Gf128>> = (0..degree)
        .map(|_| {
            let mut raw = vec![0u128; m];
            prg.xor_into(&mut raw);
            raw.into_iter().map(Gf128).collect()
        })
        .collect();
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

/// Constants c_p with f(0) = Σ c_p f(p + 1) for every polynomial of degree
/// below n (the "share conversion" of Section 3.1 multiplies by them).
pub fn reconstruction(n: usize) -> Vec<Gf128> {
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

pub fn random(prg: &mut Prg) -> Gf128 {
    let mut b = [0u8; 16];
    prg.fill_bytes(&mut b);
    Gf128::from_bytes(b)
}

/// F²_{k1,k2}(tweak) = π(K) ⊕ K with K = 2·k1 ⊕ 4·k2 ⊕ tweak and π AES-128
/// under a fixed public key: the correlation-robust construction of
/// Bellare et al. for garbling with fixed-key AES. Evaluates a batch.
pub struct DoubleKeyPrf {
    cipher: huddle_core::wide_aes::WideAes,
}

impl Default for DoubleKeyPrf {
    fn default() -> Self {
        Self::new()
    }
}

impl DoubleKeyPrf {
    pub fn new() -> Self {
        // Any fixed, public key will do; this one is the bytes of "huddle BMR F2 key".
        DoubleKeyPrf {
            cipher: huddle_core::wide_aes::WideAes::new(*b"huddle-bmr-f2key"),
        }
    }

    #[inline]
    pub fn input(k1: Gf128, k2: Gf128, tweak: u128) -> u128 {
        k1.double().0 ^ k2.double().double().0 ^ tweak
    }

    /// Replaces every input K (from [`Self::input`]) by π(K) ⊕ K.
    pub fn apply(&self, values: &mut [u128]) {
        self.cipher.permute_xor(values);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
