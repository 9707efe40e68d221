//! One party's run as the protocol table starts it: what every protocol's
//! engine takes ([`Start`]), and the three ways in: the clear evaluation
//! (the TTP), the secret-sharing engine with a protocol's constructor, and
//! garbling with the variant its row names. The table
//! ([`crate::protocol`]) says which way each protocol takes; `run.rs`
//! builds the [`Start`] once the request and the network agree.
//!
//! It sits between the protocols' modules, which it calls, and the table,
//! which calls it: it names no protocol.

use crate::descriptor::{Descriptor, Family};
use crate::error::RunError;
use crate::garble::{self, LinearSupply};
use crate::inputs::OwnValue;
use crate::options::{Preprocess, RunOptions};
use crate::progress::Progress;
use crate::sharing::{self, Sharing};
use crate::ttp;
use huddle_circuit::{BitMatrix, Circuit};
use huddle_net::{Network, PartyId};
use std::borrow::Cow;

/// One party's run, checked and ready to start under the protocol whose
/// row is `descriptor`.
pub(crate) struct Start<'a> {
    /// The protocol's row.
    pub(crate) descriptor: &'static Descriptor,
    /// This party's network.
    pub(crate) net: &'a mut Network,
    /// The circuit, owned where the engine may drop it once compiled.
    pub(crate) circuit: Cow<'a, Circuit>,
    /// Instances in the batch.
    pub(crate) instances: usize,
    /// The input values this party owns, by input index.
    pub(crate) own_inputs: Vec<(usize, OwnValue)>,
    /// The run's options.
    pub(crate) options: RunOptions,
    /// bgw2-mal's linear preprocessing from a trusted dealer, if any.
    pub(crate) supply: Option<LinearSupply<'a>>,
    /// Where the run counts its progress.
    pub(crate) progress: &'a Progress,
}

/// What every start returns: the outputs this party learns.
pub(crate) type Outputs = Result<Vec<BitMatrix>, RunError>;

impl Start<'_> {
    /// Party 0 evaluates in the clear (the TTP).
    pub(crate) fn clear(self) -> Outputs {
        let own = whole(self.own_inputs, self.instances);
        ttp::run(self.net, &self.circuit, self.instances, &own, self.options)
    }

    /// The secret-sharing engine, each role's protocol built by `new` from
    /// the role and the run's preprocessing schedule. The engine takes the
    /// values, to drop each once it is converted and to draw random ones
    /// slice by slice. The implementation `new` builds must be the row's
    /// (it reads its capabilities from its own row): a table line that
    /// pairs a row with another protocol's constructor fails here.
    pub(crate) fn sharing<P, F>(self, new: F) -> Outputs
    where
        P: Sharing,
        F: Fn(PartyId, Preprocess) -> P + Sync,
    {
        let preprocess = self.options.preprocess;
        let built = new(self.net.party(), preprocess).descriptor().name;
        if built != self.descriptor.name {
            return Err(RunError::Internal(format!(
                "the protocol table starts {} with {built}'s implementation",
                self.descriptor.name
            )));
        }
        sharing::run(
            |me| new(me, preprocess),
            self.net,
            self.circuit,
            self.instances,
            self.own_inputs,
            self.options,
            self.progress,
        )
    }

    /// Multiparty garbling, the variant the protocol's row names.
    pub(crate) fn garbling(self) -> Outputs {
        let Family::Garbling(variant) = self.descriptor.family else {
            return Err(RunError::Internal(format!(
                "{} is started as garbling, but its row names no garbling variant",
                self.descriptor.name
            )));
        };
        let own = whole(self.own_inputs, self.instances);
        garble::run_with_supply(
            self.net,
            variant,
            &self.circuit,
            self.instances,
            &own,
            self.options,
            self.supply,
        )
    }
}

/// The inputs as whole matrices (rows = instances), as the TTP and
/// garbling take them.
fn whole(own: Vec<(usize, OwnValue)>, instances: usize) -> Vec<(usize, BitMatrix)> {
    own.into_iter()
        .map(|(k, v)| (k, v.into_matrix(instances)))
        .collect()
}
