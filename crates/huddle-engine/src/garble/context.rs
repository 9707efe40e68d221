//! What every round of a party's run reads: [`Run`], the run's fixed view
//! (plan, variant, party, the chunk at hand), and [`Garbling`], what a party
//! holds per instance from the offline phase to the online one. Kept apart
//! from the rounds, so that each round's module depends on these and not on
//! the others.

use super::field::DoubleKeyPrf;
use super::options::{Optimizations, Variant};
use super::plan::Plan;
use huddle_core::Gf128;
use huddle_net::PartyId;

/// One party's fixed view of a garbling run, shared by its rounds.
pub(super) struct Run<'a> {
    pub(super) plan: &'a Plan,
    pub(super) variant: Variant,
    pub(super) opts: Optimizations,
    pub(super) me: PartyId,
    pub(super) n: usize,
    pub(super) t: usize,
    /// The chunk's first instance in the batch (instances are numbered
    /// across chunks in the PRF tweaks and in errors).
    pub(super) first: usize,
    /// Instances in this chunk.
    pub(super) instances: usize,
    pub(super) contributors: usize,
    /// Reconstruction (share-conversion) constants of the n points.
    pub(super) constants: Vec<Gf128>,
    pub(super) prf: DoubleKeyPrf,
}

impl<'a> Run<'a> {
    /// A copy for a thread that evaluates this chunk while the run goes on.
    pub(super) fn for_chunk(&self) -> Run<'a> {
        Run {
            constants: self.constants.clone(),
            prf: DoubleKeyPrf::new(),
            ..*self
        }
    }
}

/// What one party holds per instance after the offline phase.
pub(super) struct Garbling {
    /// Shamir share of λ per wire.
    pub(super) lambda: Vec<Gf128>,
    /// This party's zero keys per wire (key contributors only).
    pub(super) keys: Vec<u128>,
    /// Permutation bits of this party's own input wires (wire, λ).
    pub(super) own_lambda: Vec<(u32, bool)>,
    /// Evaluator: λ of every output wire, in output order.
    pub(super) output_lambda: Vec<bool>,
}
