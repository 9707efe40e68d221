//! Both realizations against the functionalities' definitions, and PRSS's
//! key sets against the secrecy they are for.

use super::prss::{subsets, vanishing_at};
use super::*;
use crate::garble::field::{point, reconstruction};
use aes::cipher::KeyInit;
use huddle_core::Gf128;
use std::sync::Arc;

/// Every party's source, run side by side (the PRSS keys are agreed
/// directly, as the setup would).
fn prss_parties(n: usize, t: usize) -> Vec<Box<dyn LinearSource>> {
    let mut all = std::collections::HashMap::new();
    let mut sets = subsets(n, t);
    if t > 0 {
        sets.extend(subsets(n, t - 1));
    }
    for (i, s) in sets.into_iter().enumerate() {
        let k = [i as u8 ^ 0x5a; 16];
        all.insert(s, Arc::new(aes::Aes128::new(&k.into())));
    }
    (0..n)
        .map(|me| {
            let keys = all
                .iter()
                .filter(|(&s, _)| s >> me & 1 == 0)
                .map(|(&s, k)| (s, Arc::clone(k)))
                .collect();
            Box::new(Prss::from_keys(me, n, t, keys)) as Box<dyn LinearSource>
        })
        .collect()
}

fn dealer_parties(n: usize, t: usize) -> Vec<Box<dyn LinearSource>> {
    let d = TrustedDealer::new(t, crate::Randomness::Os).expect("entropy");
    (0..n)
        .map(|me| Box::new(d.line(me)) as Box<dyn LinearSource>)
        .collect()
}

/// Interpolates the polynomial through the shares of `parties` (t + 1
/// of them) and evaluates it at the others: the shares must lie on one
/// polynomial of degree t.
fn degree_at_most(shares: &[Gf128], t: usize) -> bool {
    let n = shares.len();
    let base: Vec<usize> = (0..=t).collect();
    (t + 1..n).all(|q| {
        let x = point(q);
        let mut v = Gf128::ZERO;
        for &i in &base {
            let mut l = Gf128::ONE;
            for &m in base.iter().filter(|&&m| m != i) {
                l *= (x + point(m)) * (point(i) + point(m)).inverse().expect("distinct");
            }
            v += shares[i] * l;
        }
        v == shares[q]
    })
}

fn check_functionalities(mut parties: Vec<Box<dyn LinearSource>>, n: usize, t: usize) {
    let c = reconstruction(n);
    let open = |shares: &[Gf128]| -> Gf128 {
        shares
            .iter()
            .zip(&c)
            .fold(Gf128::ZERO, |a, (&s, &k)| a + s * k)
    };
    let count = 300;
    // Bits.
    let per: Vec<Vec<Gf128>> = parties
        .iter_mut()
        .map(|p| {
            let mut v = Vec::new();
            p.bits(count, &mut v).expect("source");
            v
        })
        .collect();
    let mut ones = 0;
    for i in 0..count {
        let col: Vec<Gf128> = per.iter().map(|v| v[i]).collect();
        assert!(degree_at_most(&col, t), "bits n={n} t={t}");
        let s = open(&col);
        assert!(s == Gf128::ZERO || s == Gf128::ONE, "not a bit: {s:?}");
        ones += usize::from(s == Gf128::ONE);
    }
    assert!(
        (90..210).contains(&ones),
        "bits are not balanced: {ones}/{count}"
    );
    // Owned bits and elements, for every owner.
    for owner in 0..n {
        let mut secrets = vec![Vec::new(); n];
        let per: Vec<Vec<Gf128>> = parties
            .iter_mut()
            .zip(secrets.iter_mut())
            .map(|(p, s)| {
                let mut v = Vec::new();
                p.owned_bits(owner, 70, &mut v, s).expect("source");
                v
            })
            .collect();
        for (p, s) in secrets.iter().enumerate() {
            assert_eq!(s.len(), if p == owner { 70 } else { 0 });
        }
        for i in 0..70 {
            let col: Vec<Gf128> = per.iter().map(|v| v[i]).collect();
            assert!(degree_at_most(&col, t));
            assert_eq!(open(&col), Gf128(u128::from(secrets[owner][i])));
        }
        let got: Vec<(Gf128, Option<Gf128>)> = parties
            .iter_mut()
            .map(|p| p.owned_element(owner).expect("source"))
            .collect();
        let col: Vec<Gf128> = got.iter().map(|g| g.0).collect();
        assert!(degree_at_most(&col, t));
        for (p, g) in got.iter().enumerate() {
            assert_eq!(g.1.is_some(), p == owner);
        }
        assert_eq!(Some(open(&col)), got[owner].1);
        assert_ne!(open(&col), Gf128::ZERO);
    }
    // Zeros: degree t, secret 0, not all shares zero (once t > 0).
    let per: Vec<Vec<Gf128>> = parties
        .iter_mut()
        .map(|p| {
            let mut v = Vec::new();
            p.zeros(20, &mut v).expect("source");
            v
        })
        .collect();
    for i in 0..20 {
        let col: Vec<Gf128> = per.iter().map(|v| v[i]).collect();
        assert!(degree_at_most(&col, t));
        assert_eq!(open(&col), Gf128::ZERO);
        assert_eq!(col.iter().all(|s| *s == Gf128::ZERO), t == 0);
    }
}

#[test]
fn prss_and_dealer_realize_every_functionality() {
    for (n, t) in [(3, 0), (4, 1), (5, 1), (7, 2), (9, 2), (10, 3)] {
        check_functionalities(prss_parties(n, t), n, t);
        check_functionalities(dealer_parties(n, t), n, t);
    }
}

/// The PRSS secret is hidden from any t parties: the key of the t-set
/// they form is held by none of them, and their shares do not depend on
/// it (f_T vanishes on T).
#[test]
fn t_parties_miss_exactly_the_key_of_their_own_set() {
    let (n, t) = (7, 2);
    for coalition in subsets(n, t) {
        let held: Vec<u64> = subsets(n, t)
            .into_iter()
            .filter(|&s| (0..n).any(|p| coalition >> p & 1 == 1 && s >> p & 1 == 0))
            .collect();
        assert_eq!(held.len() as u128, binomial(n, t) - 1);
        assert!(!held.contains(&coalition));
        for p in (0..n).filter(|&p| coalition >> p & 1 == 1) {
            assert_eq!(vanishing_at(coalition, point(p)), Gf128::ZERO);
        }
    }
}

#[test]
fn subsets_and_binomials_agree() {
    for n in 1..12 {
        for k in 0..=n {
            let s = subsets(n, k);
            assert_eq!(s.len() as u128, binomial(n, k), "C({n},{k})");
            assert!(s
                .iter()
                .all(|m| m.count_ones() as usize == k && *m < 1 << n));
            assert!(s.windows(2).all(|w| w[0] < w[1]));
        }
    }
    assert!(prss_feasible(13, 4));
    assert!(!prss_feasible(31, 10));
    // Large n: saturates instead of overflowing; k > n is zero.
    assert_eq!(binomial(1000, 333), u128::MAX);
    assert!(binomial(130, 65) > 1 << 120);
    assert_eq!(binomial(5, 7), 0);
    assert_eq!(binomial(200, 199), 200);
    assert!(!prss_feasible(1000, 333));
    assert_eq!(
        LinearChoice::Auto.resolve(31, 10),
        LinearChoice::TrustedDealer
    );
    assert_eq!(LinearChoice::Auto.resolve(7, 2), LinearChoice::Prss);
}
