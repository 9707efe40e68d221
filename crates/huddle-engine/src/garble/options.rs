//! What a garbling run is asked for: the variant ([`Variant`]: BGW3, BGW2
//! or BGW2^mal, with its corruption bound), the optimizations that can be
//! switched off ([`Optimizations`]), and where bgw2-mal's linear
//! preprocessing comes from ([`LinearChoice`], with where PRSS is feasible).
//! Nothing here runs a protocol, so the run's options can hold these.

use crate::error::{Refusal, RunError};

/// Which of the garbling protocols: one per garbling row of the protocol
/// table ([`Protocol::garbling`](crate::Protocol::garbling)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Three offline rounds (degree reduction), t < n/2.
    Bgw3,
    /// Two offline rounds, t < n/3.
    Bgw2,
    /// BGW2 against malicious parties (t < n/3, abort on cheating), in the
    /// linear-preprocessing model.
    Bgw2Mal,
}

impl Variant {
    /// The corruption bound t for n parties.
    pub fn threshold(self, n: usize) -> usize {
        match self {
            Variant::Bgw3 => n.div_ceil(2).saturating_sub(1),
            Variant::Bgw2 | Variant::Bgw2Mal => n.div_ceil(3).saturating_sub(1),
        }
    }

    /// The fewest parties at which t >= 1, i.e. any security at all: with
    /// t = 0 every party receives the wire masks in the clear.
    pub const fn smallest_secure_parties(self) -> usize {
        match self {
            Variant::Bgw3 => 3,
            Variant::Bgw2 | Variant::Bgw2Mal => 4,
        }
    }

    /// Refuses party counts without security (t = 0), naming the smallest secure one.
    pub fn check_parties(self, n: usize) -> Result<(), RunError> {
        let smallest = self.smallest_secure_parties();
        if n < smallest {
            return Err(RunError::refused(
                Refusal::NoSecurity { smallest },
                format!(
                    "{} with {n} parties tolerates t = {} corrupted parties: no security (every party would see the wire masks); use at least {smallest} parties",
                    self.name(),
                    self.threshold(n)
                ),
            ));
        }
        Ok(())
    }

    /// Its protocol's name (the garbling rows of the protocol table read it).
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Bgw3 => "bgw3",
            Variant::Bgw2 => "bgw2",
            Variant::Bgw2Mal => "bgw2-mal",
        }
    }

    /// Whether it is secure against malicious parties (bgw2-mal).
    pub fn is_malicious(self) -> bool {
        self == Variant::Bgw2Mal
    }
}

/// The optimizations of Sections 3.1–3.2 that can be switched off to
/// measure them ("all off" is the Ben-Efraim–Lindell–Omri baseline shape,
/// except that PRF values are never Shamir-shared here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Optimizations {
    /// Section 3.1: PRF values and keys are added after share conversion
    /// and never Shamir-shared; off, every contributor Shamir-shares all its
    /// F² values and output keys in round 1 (degree 2t, or 3t for BGW2) and
    /// the evaluator interpolates the rows (cubic work in n).
    pub reduced_complexity: bool,
    /// Only t + 1 parties contribute keys (superseeds of (t + 1)·16 bytes)
    /// instead of all n.
    pub short_superseeds: bool,
    /// Additive zero shares from pairwise PRG seeds agreed in the setup
    /// phase, instead of t + 1 dealers sending random strings in round 1.
    pub prg_zero_sharing: bool,
    /// The last offline round as ⌈log2 n⌉ rounds of pairwise sums
    /// ("hypercube") instead of everybody sending to the evaluator.
    pub hypercube: bool,
    /// Not in the paper: permutation bits, their products and their
    /// degree reduction are shared over the subfield GF(2^16) (subfield
    /// coefficients, subfield points), so each of those shares travels as
    /// 2 bytes instead of 16; the offsets R stay in GF(2^128), and so does
    /// every product with them.
    pub small_field: bool,
}

impl Default for Optimizations {
    fn default() -> Self {
        Optimizations {
            reduced_complexity: true,
            short_superseeds: true,
            prg_zero_sharing: true,
            hypercube: false,
            small_field: true,
        }
    }
}

impl Optimizations {
    /// Every optimization off (the baseline shape; `--opt none`).
    pub const NONE: Optimizations = Optimizations {
        reduced_complexity: false,
        short_superseeds: false,
        prg_zero_sharing: false,
        hypercube: false,
        small_field: false,
    };

    /// [`Optimizations::default`] as `--opt` spells it (see [`Optimizations::list`]).
    pub const DEFAULT_LIST: &'static str = "reduced,short,prgzero,subfield";

    /// The switches that are on, as [`Optimizations::parse`] reads them.
    pub fn list(self) -> String {
        let names: Vec<&str> = [
            (self.reduced_complexity, "reduced"),
            (self.short_superseeds, "short"),
            (self.prg_zero_sharing, "prgzero"),
            (self.hypercube, "hypercube"),
            (self.small_field, "subfield"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, name)| *name)
        .collect();
        if names.is_empty() {
            "none".into()
        } else {
            names.join(",")
        }
    }

    /// Parses `none`, `all`, or a comma list of `reduced`, `short`,
    /// `prgzero`, `hypercube`, `subfield`.
    pub fn parse(text: &str) -> Result<Optimizations, String> {
        let mut o = Optimizations::NONE;
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item {
                "none" => {}
                "all" => {
                    o = Optimizations {
                        reduced_complexity: true,
                        short_superseeds: true,
                        prg_zero_sharing: true,
                        hypercube: true,
                        small_field: true,
                    }
                }
                "reduced" => o.reduced_complexity = true,
                "short" => o.short_superseeds = true,
                "prgzero" => o.prg_zero_sharing = true,
                "hypercube" => o.hypercube = true,
                "subfield" => o.small_field = true,
                other => {
                    return Err(format!(
                    "unknown optimization `{other}` (known: reduced, short, prgzero, hypercube, subfield, all, none)"
                ))
                }
            }
        }
        Ok(o)
    }

    /// Whether additive zero shares are needed (only with reduced complexity:
    /// without it the rows stay Shamir shares of a fresh polynomial).
    pub(crate) fn zero_sharing(self) -> bool {
        self.reduced_complexity
    }

    /// Key-contributing parties: t + 1 with short superseeds, else n.
    pub fn contributors(self, variant: Variant, n: usize) -> usize {
        if self.short_superseeds {
            variant.threshold(n) + 1
        } else {
            n
        }
    }
}

/// Which realization of the linear preprocessing a malicious run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum LinearChoice {
    /// PRSS where it is feasible (at most [`PRSS_MAX_SETS`] t-sets), else
    /// the trusted dealer.
    #[default]
    Auto,
    /// Pseudo-random secret sharing: no communication after a one-time
    /// setup, but C(n, t) keys.
    Prss,
    /// A trusted party that is not one of the n parties deals the material
    /// (inside `huddle local`'s process, or ahead of a run by [`deal`](crate::garble::deal)).
    TrustedDealer,
}

impl LinearChoice {
    /// The choice its `--linear` spelling names (the error lists them).
    pub fn parse(text: &str) -> Result<LinearChoice, String> {
        match text {
            "auto" => Ok(LinearChoice::Auto),
            "prss" => Ok(LinearChoice::Prss),
            "dealer" => Ok(LinearChoice::TrustedDealer),
            other => Err(format!(
                "unknown linear preprocessing `{other}` (known: auto, prss, dealer)"
            )),
        }
    }

    /// The `--linear` spelling.
    pub fn name(self) -> &'static str {
        match self {
            LinearChoice::Auto => "auto",
            LinearChoice::Prss => "prss",
            LinearChoice::TrustedDealer => "dealer",
        }
    }

    /// Auto resolved for n parties and threshold t.
    pub fn resolve(self, n: usize, t: usize) -> LinearChoice {
        match self {
            LinearChoice::Auto if prss_feasible(n, t) => LinearChoice::Prss,
            LinearChoice::Auto => LinearChoice::TrustedDealer,
            other => other,
        }
    }
}

/// PRSS keys grow as C(n, t); beyond this many t-sets the setup and the
/// per-secret work are too large and the dealer takes over.
pub const PRSS_MAX_SETS: u128 = 1024;

/// C(n, k), saturating at `u128::MAX` (callers compare it with a limit).
pub fn binomial(n: usize, k: usize) -> u128 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    // acc = C(n, i) after step i; C(n, i+1) = C(n, i) (n - i) / (i + 1) exactly.
    (0..k)
        .try_fold(1u128, |acc, i| {
            acc.checked_mul((n - i) as u128)
                .map(|x| x / (i as u128 + 1))
        })
        .unwrap_or(u128::MAX)
}

/// Whether PRSS is feasible for n parties at threshold t (at most
/// [`PRSS_MAX_SETS`] t-sets, at most 64 parties).
pub fn prss_feasible(n: usize, t: usize) -> bool {
    n <= 64 && binomial(n, t) <= PRSS_MAX_SETS
}
