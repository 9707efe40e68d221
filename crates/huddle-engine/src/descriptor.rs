//! What a protocol is to the rest of huddle, as one [`Descriptor`] row: its
//! name, party count, native fan-in, preprocessing, security model, the
//! circuits it takes and which engine runs it.
//!
//! Each protocol states its row once, as a constant in its own module next
//! to its implementation (`ttp::DESCRIPTOR`, `sharing::trio::DESCRIPTOR`,
//! `garble::BGW3`, …), and reads back what it needs from there (a fan-in
//! that sizes its arrays, its dealer). The protocol table
//! ([`crate::protocol`]) gathers the rows into [`crate::Protocol`]. This
//! module sits below both: it names no protocol, so the protocols' modules
//! can use its types while the table, above them, names every one of them.

use crate::fault::MessageType;
use crate::garble::options::Variant;

/// How many parties a protocol runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartyRule {
    /// Exactly this many.
    Exactly(usize),
    /// At least this many (the corruption threshold is 0 below it).
    AtLeast(usize),
}

impl PartyRule {
    /// The parties of a run that names none: the protocol's own count, else
    /// 3 (or the least it takes).
    pub fn default_count(self) -> usize {
        match self {
            PartyRule::Exactly(n) => n,
            PartyRule::AtLeast(n) => n.max(3),
        }
    }
}

/// What a protocol promises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Security {
    /// The trusted third party: a baseline that sees every input.
    None,
    /// Private against corrupted parties that follow the protocol.
    SemiHonest,
    /// Malicious parties are caught; an honest party outputs the right
    /// value or aborts, but some honest parties may output while others
    /// abort (point-to-point delivery, no broadcast).
    MaliciousSelectiveAbort,
}

impl Security {
    /// What every party of a run under this model is told before it starts,
    /// where the model gives no security at all (one line, for stderr and
    /// the JSON report).
    pub fn warning(self) -> Option<&'static str> {
        match self {
            Security::None => Some(
                "ttp is not secure: party 0 sees every party's inputs in the clear \
                 (a baseline for measurements; name a secure protocol for real data)",
            ),
            Security::SemiHonest | Security::MaliciousSelectiveAbort => None,
        }
    }

    /// The model in a few words, as `huddle protocols` lists it.
    pub fn label(self) -> &'static str {
        match self {
            Security::None => "none (baseline)",
            Security::SemiHonest => "semi-honest",
            Security::MaliciousSelectiveAbort => "malicious, selective abort",
        }
    }
}

/// Which engine runs a protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Party 0 evaluates in the clear.
    Clear,
    /// The secret-sharing engine (`sharing/`).
    Sharing,
    /// Multiparty garbling (`garble/`), this variant.
    Garbling(Variant),
}

/// Everything the rest of huddle needs to know about a protocol: its row
/// of the protocol table.
#[derive(Debug)]
pub struct Descriptor {
    /// The name runs, the hello and the command line use.
    pub name: &'static str,
    /// One line for `huddle protocols`.
    pub summary: &'static str,
    /// How many parties it runs with.
    pub parties: PartyRule,
    /// Widest multiplication done in one round (wider gates become trees);
    /// None where the protocol takes any fan-in (TTP, garbling).
    pub max_fan_in: Option<usize>,
    /// Whether it has input-independent preprocessing that `--preprocess
    /// separate` can run before the inputs.
    pub separate_preprocessing: bool,
    /// Whether it has preprocessing at all (phases `offline`/`dependent`).
    pub preprocessing: bool,
    /// What it promises against corrupted parties.
    pub security: Security,
    /// Whether it runs circuits over Z_2^k (else Boolean circuits only).
    pub rings: bool,
    /// Whether it runs mixed Boolean/arithmetic circuits (share
    /// conversions; the plaintext evaluator trivially does).
    pub conversions: bool,
    /// Whether its multiplication can truncate fixed-point products
    /// probabilistically (`DOTTR` with `Truncation::Probabilistic`): no
    /// adder, at most the few extra messages and rounds its module states.
    pub fused_truncation: bool,
    /// The engine that runs it.
    pub family: Family,
    /// The message types fault injection can target (malicious
    /// secret-sharing protocols; empty elsewhere).
    pub messages: &'static [MessageType],
    /// A party that only deals correlated randomness: it owns no input
    /// (round robin deals input values to the others), learns no output
    /// and receives nothing after setup.
    pub dealer: Option<usize>,
}

impl Descriptor {
    /// The widest product the protocol multiplies in one round, for the
    /// protocols that state one: a constant, so that a protocol's module
    /// can size arrays by its own row.
    pub const fn stated_fan_in(&self) -> usize {
        match self.max_fan_in {
            Some(f) => f,
            None => panic!("the protocol takes any fan-in"),
        }
    }
}
