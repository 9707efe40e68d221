//! The linear-preprocessing functionalities of BGW2_opt^mal (Ben-Efraim and
//! Omri, Section 4, after Damgård and Ishai), over GF(2^128) with party p at
//! [`point`]`(p)` and degree t:
//! - RandSS_bin(t): shares of a random bit;
//! - RandSS_bin^{P_i}(t): the same, and P_i learns the bit;
//! - RandSS^{P_i}(t): shares of a random element that P_i learns;
//! - RandSS_0(t): a random sharing of zero.
//!
//! (AZS, additive zero sharing, is the pairwise-PRG sharing of the
//! semi-honest protocol: the paper shows an attack on it is only an additive
//! attack on the garbled circuit, which the evaluator catches.)
//!
//! Two realizations, each party's material consistent with every other's:
//! - [`Prss`], pseudo-random secret sharing (Cramer, Damgård and Ishai): a
//!   one-time setup gives every set of n − t parties (and of n − t + 1) a
//!   common AES key; a secret is Σ_T ψ_T over the t-sets T, each ψ_T drawn
//!   from the key of the parties outside T and spread by the degree-t
//!   polynomial f_T with f_T(0) = 1 that vanishes on T. No communication
//!   after the setup, but C(n, t) keys: feasible for small n only.
//! - [`TrustedDealer`]: a trusted party that is not one of the n parties
//!   deals Shamir sharings from its own secret key, for party counts where
//!   PRSS is too expensive: inside `huddle local`'s process (each party's
//!   [`DealerLine`] hands it only its own shares), or ahead of a run across
//!   hosts (`huddle deal`: a [`Recording`] per party, replayed by [`Dealt`]).
//!
//! RandSS_0(t) by PRSS is x·G(x) with G of degree t − 1 from the keys of
//! sets of n − t + 1 parties, which any t parties together hold: they learn
//! the zero polynomial (its value at 0 is public anyway). The protocol only
//! uses those shares masked by the additive zero sharing; the dealer
//! realizes the ideal functionality.

pub use super::options::{binomial, prss_feasible, LinearChoice, PRSS_MAX_SETS};
use crate::error::RunError;
use crate::transport::Transport;
use aes::cipher::{BlockEncrypt, KeyInit};
use huddle_core::{Gf128, Prg};
use huddle_net::PartyId;
use sha2::{Digest, Sha256};
use std::sync::Arc;

use super::field::point;

/// Refuses PRSS where it is infeasible, naming the way out.
pub fn check_choice(choice: LinearChoice, n: usize, t: usize) -> Result<(), RunError> {
    if choice == LinearChoice::Prss && !prss_feasible(n, t) {
        return Err(RunError::Input(format!(
            "PRSS for {n} parties at t = {t} needs C({n}, {t}) = {} keys (limit {PRSS_MAX_SETS}): use the trusted dealer (--linear dealer, in `huddle local`)",
            binomial(n, t)
        )));
    }
    Ok(())
}

/// The functionalities, called in the same order by every party (the calls
/// are numbered, so the parties' shares fit together).
pub trait LinearSource {
    /// RandSS_bin(t): a share of each of `count` random bits, appended.
    fn bits(&mut self, count: usize, shares: &mut Vec<Gf128>) -> Result<(), RunError>;
    /// RandSS_bin^{P_owner}(t): shares appended; the owner also gets the
    /// bits appended to `secrets`.
    fn owned_bits(
        &mut self,
        owner: PartyId,
        count: usize,
        shares: &mut Vec<Gf128>,
        secrets: &mut Vec<bool>,
    ) -> Result<(), RunError>;
    /// RandSS^{P_owner}(t): this party's share, and the element at the owner.
    fn owned_element(&mut self, owner: PartyId) -> Result<(Gf128, Option<Gf128>), RunError>;
    /// RandSS_0(t): a share of each of `count` zeros, appended.
    fn zeros(&mut self, count: usize, shares: &mut Vec<Gf128>) -> Result<(), RunError>;
}

fn counter_block(call: u64, index: u64) -> aes::Block {
    aes::Block::from(((call as u128) << 64 | index as u128).to_le_bytes())
}

fn block_value(b: &aes::Block) -> u128 {
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(b);
    u128::from_le_bytes(bytes)
}

/// `count` pseudo-random values AES_k(call ‖ i), i = 0..count.
fn stream(cipher: &aes::Aes128, call: u64, count: usize, out: &mut Vec<u128>) {
    let mut blocks: Vec<aes::Block> = (0..count as u64).map(|i| counter_block(call, i)).collect();
    cipher.encrypt_blocks(&mut blocks);
    out.clear();
    out.extend(blocks.iter().map(block_value));
}

/// The subsets of {0..n} with `size` members, as bit masks in increasing order.
fn subsets(n: usize, size: usize) -> Vec<u64> {
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
fn vanishing_at(set: u64, x: Gf128) -> Gf128 {
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
pub struct Prss {
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
    pub fn begin_setup<T: Transport>(
        net: &mut T,
        t: usize,
        prg: &mut Prg,
    ) -> Result<PrssSetup, RunError> {
        let (me, n) = (net.party(), net.parties());
        check_choice(LinearChoice::Prss, n, t)?;
        let mine = |s: u64| s >> me & 1 == 0;
        let sets: Vec<u64> = subsets(n, t)
            .into_iter()
            .chain(if t > 0 { subsets(n, t - 1) } else { Vec::new() })
            .filter(|&s| mine(s))
            .collect();
        let outside = |s: u64, p: usize| s >> p & 1 == 0;
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

    fn from_keys(
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

/// The PRSS setup after its first round (see [`Prss::begin_setup`]).
pub struct PrssSetup {
    /// The sets whose key this party holds (it is outside them).
    sets: Vec<u64>,
    /// This party's contribution to each.
    contributions: Vec<[u8; 16]>,
    t: usize,
}

impl PrssSetup {
    /// Receives the others' contributions, derives the keys, and compares
    /// a digest of the shared keys with every other party.
    pub fn finish<T: Transport>(self, net: &mut T) -> Result<Prss, RunError> {
        let (me, n) = (net.party(), net.parties());
        let PrssSetup {
            sets,
            contributions,
            t,
        } = self;
        let outside = |s: u64, p: usize| s >> p & 1 == 0;
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
                return Err(RunError::abort(
                    format!("PRSS setup: the keys shared with party {p} disagree (a party sent inconsistent contributions)"),
                    Some(p),
                ));
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

/// A trusted dealer that is not one of the parties: it deals degree-t
/// Shamir sharings derived from its own secret key, and hands each party
/// only that party's shares (and to an owner its secrets). It exists inside
/// one process (`huddle local`); across hosts, malicious garbling uses PRSS.
pub struct TrustedDealer {
    cipher: aes::Aes128,
    t: usize,
}

impl TrustedDealer {
    pub fn new(t: usize, randomness: crate::Randomness) -> Result<Arc<TrustedDealer>, RunError> {
        let mut prg = randomness.draw(0, crate::options::draws::DEALER)?;
        Ok(Arc::new(TrustedDealer {
            cipher: aes::Aes128::new(&prg.next_seed().into()),
            t,
        }))
    }

    /// The dealer's line to party `me`.
    pub fn line(self: &Arc<Self>, me: PartyId) -> DealerLine {
        DealerLine {
            dealer: Arc::clone(self),
            me,
            call: 0,
        }
    }

    /// Party `me`'s shares of `count` secrets of call `call`: the secret
    /// and the t coefficients of each polynomial are AES blocks under the
    /// dealer's key. `kind` picks bits, elements or zeros.
    fn deal(
        &self,
        me: PartyId,
        call: u64,
        count: usize,
        kind: Kind,
        out: &mut Vec<Gf128>,
    ) -> Vec<u128> {
        let per = self.t + 1;
        let mut blocks: Vec<aes::Block> = (0..count as u64)
            .flat_map(|i| (0..per as u64).map(move |k| counter_block(call, i << 8 | k)))
            .collect();
        self.cipher.encrypt_blocks(&mut blocks);
        let x = point(me);
        let mut secrets = Vec::with_capacity(count);
        for poly in blocks.chunks_exact(per) {
            let secret = match kind {
                Kind::Bit => block_value(&poly[0]) & 1,
                Kind::Element => block_value(&poly[0]),
                Kind::Zero => 0,
            };
            let mut acc = Gf128::ZERO;
            for c in poly[1..].iter().rev() {
                acc = (acc + Gf128(block_value(c))) * x;
            }
            out.push(acc + Gf128(secret));
            secrets.push(secret);
        }
        secrets
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Bit,
    Element,
    Zero,
}

/// What a party receives from the [`TrustedDealer`].
pub struct DealerLine {
    dealer: Arc<TrustedDealer>,
    me: PartyId,
    call: u64,
}

impl DealerLine {
    fn next_call(&mut self) -> u64 {
        self.call += 1;
        self.call
    }
}

impl LinearSource for DealerLine {
    fn bits(&mut self, count: usize, shares: &mut Vec<Gf128>) -> Result<(), RunError> {
        let call = self.next_call();
        self.dealer.deal(self.me, call, count, Kind::Bit, shares);
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
        let bits = self.dealer.deal(self.me, call, count, Kind::Bit, shares);
        if self.me == owner {
            secrets.extend(bits.iter().map(|&b| b == 1));
        }
        Ok(())
    }

    fn owned_element(&mut self, owner: PartyId) -> Result<(Gf128, Option<Gf128>), RunError> {
        let call = self.next_call();
        let mut share = Vec::with_capacity(1);
        let secret = self
            .dealer
            .deal(self.me, call, 1, Kind::Element, &mut share);
        Ok((share[0], (self.me == owner).then(|| Gf128(secret[0]))))
    }

    fn zeros(&mut self, count: usize, shares: &mut Vec<Gf128>) -> Result<(), RunError> {
        let call = self.next_call();
        self.dealer.deal(self.me, call, count, Kind::Zero, shares);
        Ok(())
    }
}

/// What one party's functionality calls returned, in order: the trusted
/// dealer's material for a party on another host (`huddle deal` writes it,
/// `huddle party --dealt` replays it through [`Dealt`]).
#[derive(Default)]
pub struct Recording {
    calls: Vec<Recorded>,
}

enum Recorded {
    Bits(Vec<Gf128>),
    OwnedBits(PartyId, Vec<Gf128>, Vec<bool>),
    OwnedElement(PartyId, Gf128, Option<Gf128>),
    Zeros(Vec<Gf128>),
}

/// A source that records what another one returns.
pub struct Recorder<'a> {
    pub inner: &'a mut dyn LinearSource,
    pub recording: &'a mut Recording,
}

impl LinearSource for Recorder<'_> {
    fn bits(&mut self, count: usize, shares: &mut Vec<Gf128>) -> Result<(), RunError> {
        let start = shares.len();
        self.inner.bits(count, shares)?;
        self.recording
            .calls
            .push(Recorded::Bits(shares[start..].to_vec()));
        Ok(())
    }

    fn owned_bits(
        &mut self,
        owner: PartyId,
        count: usize,
        shares: &mut Vec<Gf128>,
        secrets: &mut Vec<bool>,
    ) -> Result<(), RunError> {
        let (start, first) = (shares.len(), secrets.len());
        self.inner.owned_bits(owner, count, shares, secrets)?;
        self.recording.calls.push(Recorded::OwnedBits(
            owner,
            shares[start..].to_vec(),
            secrets[first..].to_vec(),
        ));
        Ok(())
    }

    fn owned_element(&mut self, owner: PartyId) -> Result<(Gf128, Option<Gf128>), RunError> {
        let (share, secret) = self.inner.owned_element(owner)?;
        self.recording
            .calls
            .push(Recorded::OwnedElement(owner, share, secret));
        Ok((share, secret))
    }

    fn zeros(&mut self, count: usize, shares: &mut Vec<Gf128>) -> Result<(), RunError> {
        let start = shares.len();
        self.inner.zeros(count, shares)?;
        self.recording
            .calls
            .push(Recorded::Zeros(shares[start..].to_vec()));
        Ok(())
    }
}

const DEALT_MAGIC: &[u8; 16] = b"huddle dealt v2\n";

/// Where the deal id sits in a dealt file: after the magic, four counts and
/// the circuit hash.
const DEAL_ID_AT: usize = 16 + 32 + 32;

/// The random id of one `huddle deal` (the same in every party's file):
/// parties compare it in their hello, so all of them replay the same deal,
/// and a party refuses an id it has used before (dealt material is one-time:
/// a rerun would reuse every wire mask).
pub fn deal_id(bytes: &[u8]) -> Result<[u8; 16], RunError> {
    if bytes.len() < DEAL_ID_AT + 16 || &bytes[..16] != DEALT_MAGIC {
        return Err(RunError::Input(
            "dealt material: not a file written by `huddle deal` (of this version)".into(),
        ));
    }
    let mut id = [0u8; 16];
    id.copy_from_slice(&bytes[DEAL_ID_AT..DEAL_ID_AT + 16]);
    Ok(id)
}

/// Whom and what a recording was dealt for; a party checks it before use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DealtHeader {
    pub party: PartyId,
    pub parties: usize,
    pub instances: usize,
    /// Key contributors (with or without short superseeds).
    pub contributors: usize,
    pub circuit: [u8; 32],
    /// The deal's random id (see [`deal_id`]); not compared by
    /// [`Dealt::open`]: the parties' hello does that.
    pub deal: [u8; 16],
}

impl Recording {
    /// The file a party receives: header, then every call.
    pub fn encode(&self, header: &DealtHeader) -> Vec<u8> {
        let mut out = DEALT_MAGIC.to_vec();
        for v in [
            header.party,
            header.parties,
            header.instances,
            header.contributors,
        ] {
            out.extend_from_slice(&(v as u64).to_le_bytes());
        }
        out.extend_from_slice(&header.circuit);
        out.extend_from_slice(&header.deal);
        let put_shares = |out: &mut Vec<u8>, v: &[Gf128]| {
            out.extend_from_slice(&(v.len() as u64).to_le_bytes());
            for s in v {
                out.extend_from_slice(&s.to_bytes());
            }
        };
        for call in &self.calls {
            match call {
                Recorded::Bits(v) => {
                    out.push(0);
                    put_shares(&mut out, v);
                }
                Recorded::OwnedBits(owner, v, bits) => {
                    out.push(1);
                    out.extend_from_slice(&(*owner as u64).to_le_bytes());
                    put_shares(&mut out, v);
                    out.extend_from_slice(&(bits.len() as u64).to_le_bytes());
                    out.extend(bits.iter().map(|&b| u8::from(b)));
                }
                Recorded::OwnedElement(owner, share, secret) => {
                    out.push(2);
                    out.extend_from_slice(&(*owner as u64).to_le_bytes());
                    out.extend_from_slice(&share.to_bytes());
                    out.push(u8::from(secret.is_some()));
                    out.extend_from_slice(&secret.unwrap_or_default().to_bytes());
                }
                Recorded::Zeros(v) => {
                    out.push(3);
                    put_shares(&mut out, v);
                }
            }
        }
        out
    }
}

/// A recording being replayed, checked call by call against what the run
/// asks for.
pub struct Dealt {
    bytes: Vec<u8>,
    at: usize,
    call: usize,
}

impl Dealt {
    /// Checks the header against the run (`want`) and returns the replayer.
    pub fn open(bytes: Vec<u8>, want: &DealtHeader) -> Result<Dealt, RunError> {
        let bad = |m: String| RunError::Input(format!("dealt material: {m}"));
        deal_id(&bytes)?;
        let mut d = Dealt {
            bytes,
            at: 16,
            call: 0,
        };
        let (party, parties, instances, contributors) = (d.u64()?, d.u64()?, d.u64()?, d.u64()?);
        let mut circuit = [0u8; 32];
        circuit.copy_from_slice(d.take(32)?);
        d.take(16)?; // the deal id
        let checks = [
            ("party", party, want.party),
            ("parties", parties, want.parties),
            ("instances", instances, want.instances),
            ("key contributors", contributors, want.contributors),
        ];
        for (what, file, run) in checks {
            if file != run as u64 {
                return Err(bad(format!(
                    "dealt for {what} {file}, but this run has {what} {run}"
                )));
            }
        }
        if circuit != want.circuit {
            return Err(bad("dealt for a different circuit".into()));
        }
        Ok(d)
    }

    fn take(&mut self, n: usize) -> Result<&[u8], RunError> {
        let call = self.call;
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| RunError::Input(format!("dealt material ends early (call {call})")))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u64(&mut self) -> Result<u64, RunError> {
        let mut b = [0u8; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(b))
    }

    fn element(&mut self) -> Result<Gf128, RunError> {
        let mut b = [0u8; 16];
        b.copy_from_slice(self.take(16)?);
        Ok(Gf128::from_bytes(b))
    }

    /// The next call's kind, checked against the one the run makes.
    fn expect(&mut self, kind: u8, name: &str) -> Result<(), RunError> {
        self.call += 1;
        let got = self.take(1)?[0];
        if got != kind {
            return Err(RunError::Input(format!(
                "dealt material does not match this run: call {} is {name}, the file has kind {got}",
                self.call
            )));
        }
        Ok(())
    }

    fn shares(&mut self, count: usize, out: &mut Vec<Gf128>) -> Result<(), RunError> {
        let n = self.u64()?;
        if n != count as u64 {
            return Err(RunError::Input(format!(
                "dealt material does not match this run: call {} wants {count} values, the file has {n}",
                self.call
            )));
        }
        for _ in 0..count {
            out.push(self.element()?);
        }
        Ok(())
    }

    fn owner(&mut self, owner: PartyId) -> Result<(), RunError> {
        let got = self.u64()?;
        if got != owner as u64 {
            return Err(RunError::Input(format!(
                "dealt material does not match this run: call {} is owned by party {owner}, the file says {got}",
                self.call
            )));
        }
        Ok(())
    }
}

impl LinearSource for Dealt {
    fn bits(&mut self, count: usize, shares: &mut Vec<Gf128>) -> Result<(), RunError> {
        self.expect(0, "random bits")?;
        self.shares(count, shares)
    }

    fn owned_bits(
        &mut self,
        owner: PartyId,
        count: usize,
        shares: &mut Vec<Gf128>,
        secrets: &mut Vec<bool>,
    ) -> Result<(), RunError> {
        self.expect(1, "owned bits")?;
        self.owner(owner)?;
        self.shares(count, shares)?;
        let n = self.u64()?;
        let n =
            usize::try_from(n).map_err(|_| RunError::Input("dealt material: bad length".into()))?;
        let bits = self.take(n)?;
        secrets.extend(bits.iter().map(|&b| b == 1));
        Ok(())
    }

    fn owned_element(&mut self, owner: PartyId) -> Result<(Gf128, Option<Gf128>), RunError> {
        self.expect(2, "an owned element")?;
        self.owner(owner)?;
        let share = self.element()?;
        let known = self.take(1)?[0] == 1;
        let secret = self.element()?;
        Ok((share, known.then_some(secret)))
    }

    fn zeros(&mut self, count: usize, shares: &mut Vec<Gf128>) -> Result<(), RunError> {
        self.expect(3, "zeros")?;
        self.shares(count, shares)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::garble::field::reconstruction;

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
}
