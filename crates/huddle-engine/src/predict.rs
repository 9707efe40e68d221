//! A run's cost as the protocol table predicts it: what every protocol's
//! cost function takes ([`Query`]), and the three ways in, as a party's
//! start has them (`start.rs`): the clear evaluation (the TTP), the
//! secret-sharing engine's walk with a protocol's constructor, and
//! garbling with the variant its row names. The table
//! ([`crate::protocol`]) says which way each protocol takes.
//!
//! It sits between the protocols' modules, which it calls, and the table,
//! which calls it: it names no protocol.

use crate::cost::Plays;
use crate::descriptor::{Descriptor, Family};
use crate::error::RunError;
use crate::options::{Preprocess, RunOptions};
use crate::sharing::cost::SharingCost;
use huddle_circuit::Circuit;
use huddle_net::PartyId;

/// A run whose cost is asked for, checked as a run is before it starts.
pub(crate) struct Query<'a> {
    /// The protocol's row.
    pub(crate) descriptor: &'static Descriptor,
    /// Parties of the run.
    pub(crate) parties: usize,
    /// The circuit.
    pub(crate) circuit: &'a Circuit,
    /// Instances in the batch.
    pub(crate) instances: usize,
    /// The run's options.
    pub(crate) options: RunOptions,
}

impl Query<'_> {
    /// The TTP's cost.
    pub(crate) fn clear(self) -> Result<Plays, RunError> {
        crate::ttp::cost(self.parties, self.circuit, self.instances, &self.options)
    }

    /// The secret-sharing engine's cost under the protocol `new` builds per
    /// role (the table's constructor, as [`Start::sharing`](crate::start::Start::sharing) takes it).
    pub(crate) fn sharing<P, F>(self, new: F) -> Result<Plays, RunError>
    where
        P: SharingCost,
        F: Fn(PartyId, Preprocess) -> P,
    {
        let preprocess = self.options.preprocess;
        crate::sharing::cost::predict(
            |me| new(me, preprocess),
            self.circuit,
            self.instances,
            &self.options,
        )
    }

    /// Multiparty garbling's cost, the variant the protocol's row names.
    pub(crate) fn garbling(self) -> Result<Plays, RunError> {
        let Family::Garbling(variant) = self.descriptor.family else {
            return Err(RunError::Internal(format!(
                "{} is costed as garbling, but its row names no garbling variant",
                self.descriptor.name
            )));
        };
        crate::garble::cost::predict(
            variant,
            self.parties,
            self.circuit,
            self.instances,
            &self.options,
        )
    }
}
