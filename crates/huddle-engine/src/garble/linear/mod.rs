//! The linear-preprocessing functionalities of BGW2_opt^mal (Ben-Efraim and
//! Omri, Section 4, after Damgård and Ishai), over GF(2^128) with party p at
//! `point(p)` and degree t:
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
//! - `Prss`, pseudo-random secret sharing (Cramer, Damgård and Ishai): a
//!   one-time setup gives every set of n − t parties (and of n − t + 1) a
//!   common AES key; a secret is Σ_T ψ_T over the t-sets T, each ψ_T drawn
//!   from the key of the parties outside T and spread by the degree-t
//!   polynomial f_T with f_T(0) = 1 that vanishes on T. No communication
//!   after the setup, but C(n, t) keys: feasible for small n only.
//! - `TrustedDealer`: a trusted party that is not one of the n parties
//!   deals Shamir sharings from its own secret key, for party counts where
//!   PRSS is too expensive: inside `huddle local`'s process (each party's
//!   `DealerLine` hands it only its own shares), or ahead of a run across
//!   hosts (`huddle deal`: a `Recording` per party, replayed by `Dealt`).
//!
//! RandSS_0(t) by PRSS is x·G(x) with G of degree t − 1 from the keys of
//! sets of n − t + 1 parties, which any t parties together hold: they learn
//! the zero polynomial (its value at 0 is public anyway). The protocol only
//! uses those shares masked by the additive zero sharing; the dealer
//! realizes the ideal functionality.
//!
//! Public: the choice ([`LinearChoice`]), where PRSS is feasible
//! ([`prss_feasible`], [`binomial`], [`PRSS_MAX_SETS`]) and a deal's id
//! ([`deal_id`]); the realizations are the engine's own.
//!
//! The files: `prss.rs` and `dealer.rs` are the two realizations,
//! `dealt.rs` the dealer's recorded material for other hosts and its file,
//! `counter.rs` the AES counter stream both draw from.

mod counter;
mod dealer;
mod dealt;
mod prss;
#[cfg(test)]
mod tests;

pub use super::options::{binomial, prss_feasible, LinearChoice, PRSS_MAX_SETS};
pub(crate) use dealer::TrustedDealer;
pub use dealt::deal_id;
pub(crate) use dealt::{Dealt, DealtHeader, Recorder, Recording};
pub(crate) use prss::{held_sets, outside, Prss};

use crate::error::{Refusal, RunError};
use huddle_core::Gf128;
use huddle_net::PartyId;

/// Refuses PRSS where it is infeasible, naming the way out.
pub(crate) fn check_choice(choice: LinearChoice, n: usize, t: usize) -> Result<(), RunError> {
    if choice == LinearChoice::Prss && !prss_feasible(n, t) {
        return Err(RunError::refused(
            Refusal::NeedsDealer {
                parties: n,
                threshold: t,
            },
            format!(
                "PRSS for {n} parties at t = {t} needs C({n}, {t}) = {} keys (limit {PRSS_MAX_SETS}): use the trusted dealer (--linear dealer, in `huddle local`)",
                binomial(n, t)
            ),
        ));
    }
    Ok(())
}

/// The functionalities, called in the same order by every party (the calls
/// are numbered, so the parties' shares fit together).
pub(crate) trait LinearSource {
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
