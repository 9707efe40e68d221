//! Constant-round multiparty garbling (BMR) with an honest majority:
//! Ben-Efraim and Omri's BGW3_opt (t = ⌈n/2⌉ − 1, three offline rounds) and
//! BGW2_opt (t = ⌈n/3⌉ − 1, two offline rounds), semi-honest, and
//! BGW2_opt^mal (malicious, with abort), any n ≥ 3.
//!
//! Offline (the functionality F_GC of their Figure 1, Section 3.3):
//! 1. every party Shamir-shares (degree t) a random permutation bit for
//!    every AND output; the owner of an input wire shares its λ alone; each
//!    key-contributing party j ∈ {0..t} shares its offset R^j;
//! 2. BGW3_opt only: GRR degree reduction of the products λ_u·λ_v;
//! 3. for every AND gate, (α, β) and j ≤ t each party converts its share of
//!    ((λ_u ⊕ α)(λ_v ⊕ β) ⊕ λ_w)·R^j to an additive share (times its
//!    reconstruction constant), adds its own F² values and, for j itself,
//!    k^j_{w,0}, masks with a PRG-derived additive sharing of zero and sends
//!    the result to the evaluator (party 0), who sums the garbled rows.
//!    Output wires' λ shares go to the evaluator as well.
//!
//! The optimizations of Sections 3.1–3.2, each switchable ([`Optimizations`]):
//! PRF values and keys are never Shamir-shared (only λ and R are), only
//! t + 1 parties contribute keys (superseeds of (t + 1)·16 bytes), zero
//! shares come from pairwise PRG seeds agreed in the setup phase, and the
//! last round may run over a hypercube.
//!
//! BGW2_opt^mal (Section 4, t < n/3, security with abort): round 1 is
//! replaced by the linear-preprocessing functionalities ([`linear`]: PRSS or
//! a trusted dealer), so it costs no communication; every output wire that
//! is not the output of an AND gets a garbled buffer gate (two rows), and
//! every output permutation bit is a sharing of 0, so the evaluator learns
//! the outputs from the external values alone and no λ is ever opened. The
//! evaluator then sends each key contributor j its part k^j of every output
//! superseed; j checks it against its two labels and sends the output bits
//! to every party; a party accepts only t + 1 equal reports (one of them
//! from an honest contributor), else aborts.
//!
//! Phases: setup (zero-sharing seeds; PRSS keys), offline =
//! function-independent preprocessing (round 1 and dealt zero shares),
//! dependent = function-dependent preprocessing (rounds 2 and 3), online.
//!
//! Online (their Figure 2): input owners send e_w = x ⊕ λ_w to the key
//! contributors, the contributors send k^j_{w,e_w} to the evaluator, the
//! evaluator decrypts layer by layer (free XOR; an AND row yields every
//! contributor's key, and the evaluator's own part tells e_out or that the
//! row was forged: abort) and sends the outputs to every other party: three
//! rounds whatever the depth (four with the malicious output confirmation).
//!
//! The files follow the run: `plan` turns the circuit into garbling steps;
//! `context` holds what every round reads; `setup`, `offline` (round 1),
//! `dependent` (rounds 2 and 3, with the rows of `rows`) and `online` (with
//! `evaluator` and `outputs`) are the phases in order, over the values of
//! `field`, `gate_prf` and `encoding`; `party` drives them for one party,
//! and `deal` is the trusted dealer's side. No module imports one that
//! imports it, and only `party` calls the rounds. This file states the
//! three variants' rows of the protocol table ([`BGW3`], [`BGW2`],
//! [`BGW2_MAL`]).

// Loops run over party ids and contributor indices that index several
// tables at once; index loops say that more plainly than zipped iterators.
#![allow(clippy::needless_range_loop)]

mod context;
pub(crate) mod cost;
mod deal;
mod dependent;
mod encoding;
mod evaluator;
pub(crate) mod field;
mod gate_prf;
pub mod linear;
mod offline;
mod online;
pub(crate) mod options;
mod outputs;
mod party;
mod plan;
mod rows;
mod setup;

pub use deal::deal;
pub use options::{Optimizations, Variant};
pub(crate) use party::{chunk_of, run_with_supply};
pub use plan::{buffer_gate_bytes, garbled_circuit_bytes, malicious_gate_counts};
pub(crate) use setup::LinearSupply;

use crate::descriptor::{Descriptor, Family, PartyRule, Security};
use huddle_net::PartyId;

/// The party that evaluates the garbled circuit.
pub const EVALUATOR: PartyId = 0;

/// BGW3_opt's row of the protocol table.
pub const BGW3: Descriptor = row(
    Variant::Bgw3,
    "multiparty garbling BGW3_opt (Ben-Efraim-Omri), t < n/2, 3 offline + 3 online rounds",
    Security::SemiHonest,
);

/// BGW2_opt's row of the protocol table.
pub const BGW2: Descriptor = row(
    Variant::Bgw2,
    "multiparty garbling BGW2_opt (Ben-Efraim-Omri), t < n/3, 2 offline + 3 online rounds",
    Security::SemiHonest,
);

/// BGW2_opt^mal's row of the protocol table.
pub const BGW2_MAL: Descriptor = row(
    Variant::Bgw2Mal,
    "multiparty garbling BGW2_opt^mal (Ben-Efraim-Omri), t < n/3, linear preprocessing (PRSS or trusted dealer), 1 offline + 4 online rounds",
    Security::MaliciousSelectiveAbort,
);

/// A garbling variant's row: what every garbling protocol shares (any
/// fan-in, preprocessing with the inputs, Boolean circuits only, no dealer)
/// and what its variant says (name, least secure party count).
const fn row(variant: Variant, summary: &'static str, security: Security) -> Descriptor {
    Descriptor {
        name: variant.name(),
        summary,
        parties: PartyRule::AtLeast(variant.smallest_secure_parties()),
        max_fan_in: None,
        separate_preprocessing: false,
        preprocessing: true,
        security,
        rings: false,
        conversions: false,
        fused_truncation: false,
        family: Family::Garbling(variant),
        messages: &[],
        dealer: None,
    }
}
