//! Pseudo-random secret sharing ([`Prss`]): the one-time key setup, whose
//! keys every pair of parties cross-checks ([`PrssSetup`]), and the
//! functionalities as sums of terms, one per set of t parties, from the keys
//! the party holds (see the module text of `linear`).

use super::counter::stream;
use super::{check_choice, LinearChoice, LinearSource};
use crate::error::{FailedCheck, RunError};
use crate::garble::field::point;
use crate::transport::Transport;
use aes::cipher::KeyInit;
use huddle_core::{Gf128, Prg};
use huddle_net::PartyId;
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The subsets of {0..n} with `size` members, as bit masks in increasing order.
pub(super) fn subsets(n: usize, size: usize) -> Vec<u64> {
    if size > n {
        return Vec::new();
    }
    if size == 0 {
        return vec![0];
    }
    let mut out = Vec::new();
    let mut m: u64 = (1u64 << size) - 1;
    let limit = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    loop {
        out.push(m);
        // Gosper's hack: the next mask with the same number of ones.
        let c = m & m.wrapping_neg();
        let r = m.wrapping_add(c);
        if r == 0 || r > limit {
            break;
        }
        m = (((r ^ m) >> 2) / c) | r;
        if m > limit {
            break;
        }
    }
    out
}

/// f_T(x) = Π_{p ∈ T} (x − x_p)/(0 − x_p): degree |T|, f_T(0) = 1, zero on T.
pub(super) fn vanishing_at(set: u64, x: Gf128) -> Gf128 {
    let mut acc = Gf128::ONE;
    for p in 0..64 {
        if set >> p & 1 == 1 {
            let xp = point(p);
            acc *= (x + xp) * xp.inverse().expect("points are nonzero");
        }
    }
    acc
}

/// One PRSS term: the key of the parties outside `set`, and the coefficient
/// this party applies to its values (f(x_me), zero when it is inside `set`).
struct Term {
    cipher: Arc<aes::Aes128>,
    coefficient: Gf128,
}

/// Pseudo-random secret sharing from keys agreed once (see the module text).
pub(crate) struct Prss {
    me: PartyId,
    /// t-sets T without me: K_T and f_T(x_me).
    plain: Vec<Term>,
    /// (t−1)-sets U without me: K_U and x_me·g_U(x_me) (g_U of degree t − 1).
    zero: Vec<Term>,
    /// Per owner o, every t-set T: the key of T's outside with o added
    /// (K_T if o ∉ T, else K_{T∖o}), and f_T(x_me); built on first use.
    owned: Vec<Option<Vec<Term>>>,
    keys: std::collections::HashMap<u64, Arc<aes::Aes128>>,
    n: usize,
    t: usize,
    call: u64,
}

impl Prss {
    /// The one-time setup: for every t-set and (t−1)-set S, each party
    /// outside S sends a random contribution to the others outside S; the
    /// key is a hash of all of them. Then every pair compares a digest of
    /// the keys it shares, so a party that sent different contributions to
    /// different parties is caught (abort) before any key is used. This is
    /// the first half (sending the contributions), so that other setup
    /// messages can share its round; [`PrssSetup::finish`] is the second.
    pub(crate) fn begin_setup<T: Transport>(
        net: &mut T,
        t: usize,
        prg: &mut Prg,
    ) -> Result<PrssSetup, RunError> {
        let (me, n) = (net.party(), net.parties());
        check_choice(LinearChoice::Prss, n, t)?;
        let sets = held_sets(n, t, me);
        let contributions: Vec<[u8; 16]> = sets.iter().map(|_| prg.next_seed()).collect();
        for p in (0..n).filter(|&p| p != me) {
            let msg: Vec<u8> = sets
                .iter()
                .zip(&contributions)
                .filter(|(&s, _)| outside(s, p))
                .flat_map(|(_, c)| c.iter().copied())
                .collect();
            net.send(p, msg)?;
        }
        Ok(PrssSetup {
            sets,
            contributions,
            t,
        })
    }

    pub(super) fn from_keys(
        me: PartyId,
        n: usize,
        t: usize,
        keys: std::collections::HashMap<u64, Arc<aes::Aes128>>,
    ) -> Prss {
        let x = point(me);
        let term = |s: u64, coefficient: Gf128| Term {
            cipher: Arc::clone(&keys[&s]),
            coefficient,
        };
        let plain = subsets(n, t)
            .into_iter()
            .filter(|&s| s >> me & 1 == 0)
            .map(|s| term(s, vanishing_at(s, x)))
            .collect();
        let zero = if t == 0 {
            Vec::new()
        } else {
            subsets(n, t - 1)
                .into_iter()
                .filter(|&s| s >> me & 1 == 0)
                .map(|s| term(s, x * vanishing_at(s, x)))
                .collect()
        };
        Prss {
            me,
            plain,
            zero,
            owned: (0..n).map(|_| None).collect(),
            keys,
            n,
            t,
            call: 0,
        }
    }

    fn owned_terms(&mut self, owner: PartyId) -> &[Term] {
        if self.owned[owner].is_none() {
            let x = point(self.me);
            let me = self.me;
            let terms: Vec<Term> = subsets(self.n, self.t)
                .into_iter()
                // Parties inside T hold no key for it, except the owner.
                .filter(|&s| s >> me & 1 == 0 || me == owner)
                .map(|s| {
                    let key = s & !(1u64 << owner);
                    Term {
                        cipher: Arc::clone(&self.keys[&key]),
                        coefficient: vanishing_at(s, x),
                    }
                })
                .collect();
            self.owned[owner] = Some(terms);
        }
        self.owned[owner].as_deref().unwrap_or_default()
    }

    fn next_call(&mut self) -> u64 {
        self.call += 1;
        self.call
    }
}

/// The sets whose key party `me` of `n` holds at threshold `t` (it is
/// outside them): every t-set and (t−1)-set without it.
pub(crate) fn held_sets(n: usize, t: usize, me: PartyId) -> Vec<u64> {
    subsets(n, t)
        .into_iter()
        .chain(if t > 0 { subsets(n, t - 1) } else { Vec::new() })
        .filter(|&s| outside(s, me))
        .collect()
}

/// Whether party `p` is outside the set `s` (and so holds its key).
pub(crate) fn outside(s: u64, p: PartyId) -> bool {
    s >> p & 1 == 0
}

/// The PRSS setup after its first round (see [`Prss::begin_setup`]).
pub(crate) struct PrssSetup {
    /// The sets whose key this party holds (it is outside them).
    sets: Vec<u64>,
    /// This party's contribution to each.
    contributions: Vec<[u8; 16]>,
    t: usize,
}

impl PrssSetup {
    /// Receives the others' contributions, derives the keys, and compares
    /// a digest of the shared keys with every other party.
    pub(crate) fn finish<T: Transport>(self, net: &mut T) -> Result<Prss, RunError> {
        let (me, n) = (net.party(), net.parties());
        let PrssSetup {
            sets,
            contributions,
            t,
        } = self;
        // received[p]: party p's contributions to the sets we share, in order.
        let mut received: Vec<Vec<u8>> = vec![Vec::new(); n];
        for p in (0..n).filter(|&p| p != me) {
            let shared = sets.iter().filter(|&&s| outside(s, p)).count();
            received[p] = net.recv(p, 16 * shared)?;
        }
        let mut cursor = vec![0usize; n];
        let mut keys = std::collections::HashMap::new();
        let mut key_bytes: Vec<[u8; 16]> = Vec::with_capacity(sets.len());
        for (&s, own) in sets.iter().zip(&contributions) {
            let mut h = Sha256::new();
            h.update(b"huddle prss key");
            h.update(s.to_le_bytes());
            for p in (0..n).filter(|&p| outside(s, p)) {
                if p == me {
                    h.update(own);
                } else {
                    h.update(&received[p][cursor[p]..cursor[p] + 16]);
                    cursor[p] += 16;
                }
            }
            let mut k = [0u8; 16];
            k.copy_from_slice(&h.finalize()[..16]);
            key_bytes.push(k);
            keys.insert(s, Arc::new(aes::Aes128::new(&k.into())));
        }
        let digest_with = |p: usize| -> Vec<u8> {
            let mut h = Sha256::new();
            for (&s, k) in sets.iter().zip(&key_bytes) {
                if outside(s, p) {
                    h.update(s.to_le_bytes());
                    h.update(k);
                }
            }
            h.finalize().to_vec()
        };
        for p in (0..n).filter(|&p| p != me) {
            net.send(p, digest_with(p))?;
        }
        for p in (0..n).filter(|&p| p != me) {
            if net.recv(p, 32)? != digest_with(p) {
                return Err(RunError::abort(FailedCheck::PrssKeys { peer: p }, Some(p)));
            }
        }
        Ok(Prss::from_keys(me, n, t, keys))
    }
}

/// Σ_T ψ_T·c_T for `count` random bits ψ_T(i) per term: terms taken eight
/// at a time through a 256-entry table of the sums of their coefficients,
/// so a share costs one lookup per eight keys. The bits' XOR is the secret.
fn combine_bits(
    terms: &[Term],
    call: u64,
    count: usize,
    shares: &mut Vec<Gf128>,
    secrets: Option<&mut Vec<bool>>,
) {
    let start = shares.len();
    shares.resize(start + count, Gf128::ZERO);
    let out = &mut shares[start..];
    let words = count.div_ceil(128);
    let mut secret_words = vec![0u128; words];
    let mut streams: Vec<Vec<u128>> = Vec::with_capacity(8);
    let mut table = [0u128; 256];
    for group in terms.chunks(8) {
        streams.clear();
        for term in group {
            let mut s = Vec::new();
            stream(&term.cipher, call, words, &mut s);
            for (w, v) in secret_words.iter_mut().zip(&s) {
                *w ^= v;
            }
            streams.push(s);
        }
        for (index, entry) in table.iter_mut().enumerate() {
            *entry = group
                .iter()
                .enumerate()
                .filter(|(k, _)| index >> k & 1 == 1)
                .fold(0, |acc, (_, term)| acc ^ term.coefficient.0);
        }
        for (i, share) in out.iter_mut().enumerate() {
            let (w, b) = (i / 128, i % 128);
            let mut index = 0usize;
            for (k, s) in streams.iter().enumerate() {
                index |= ((s[w] >> b) as usize & 1) << k;
            }
            share.0 ^= table[index];
        }
    }
    if let Some(secrets) = secrets {
        secrets.extend((0..count).map(|i| secret_words[i / 128] >> (i % 128) & 1 == 1));
    }
}

/// Σ_T ψ_T·c_T for `count` random elements ψ_T(i), appended to `shares`;
/// returns Σ_T ψ_T(0), the first secret (meaningful where every term is
/// present: at the owner of a single owned element).
fn combine_elements(terms: &[Term], call: u64, count: usize, shares: &mut Vec<Gf128>) -> Gf128 {
    let start = shares.len();
    shares.resize(start + count, Gf128::ZERO);
    let mut secret = Gf128::ZERO;
    let mut values = Vec::new();
    for term in terms {
        stream(&term.cipher, call, count, &mut values);
        if let Some(&first) = values.first() {
            secret += Gf128(first);
        }
        for (share, &v) in shares[start..].iter_mut().zip(&values) {
            *share += Gf128(v) * term.coefficient;
        }
    }
    secret
}

impl LinearSource for Prss {
    fn bits(&mut self, count: usize, shares: &mut Vec<Gf128>) -> Result<(), RunError> {
        let call = self.next_call();
        combine_bits(&self.plain, call, count, shares, None);
        Ok(())
    }

    fn owned_bits(
        &mut self,
        owner: PartyId,
        count: usize,
        shares: &mut Vec<Gf128>,
        secrets: &mut Vec<bool>,
    ) -> Result<(), RunError> {
        let call = self.next_call();
        let me = self.me;
        let terms = self.owned_terms(owner);
        combine_bits(terms, call, count, shares, (me == owner).then_some(secrets));
        Ok(())
    }

    fn owned_element(&mut self, owner: PartyId) -> Result<(Gf128, Option<Gf128>), RunError> {
        let call = self.next_call();
        let me = self.me;
        let terms = self.owned_terms(owner);
        let mut share = Vec::with_capacity(1);
        let secret = combine_elements(terms, call, 1, &mut share);
        Ok((share[0], (me == owner).then_some(secret)))
    }

    fn zeros(&mut self, count: usize, shares: &mut Vec<Gf128>) -> Result<(), RunError> {
        let call = self.next_call();
        combine_elements(&self.zero, call, count, shares);
        Ok(())
    }
}
