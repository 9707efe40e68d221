//! The dispatch under [`Run`](crate::Run): a request checked before
//! connecting ([`check_request`]), one party over its network ([`run`],
//! [`run_party`]), or every party on its own thread of this process
//! ([`run_local`]), started by the protocol table ([`Protocol`]'s one line
//! per protocol). A program uses
//! [`Run`](crate::Run), which adds the report, progress and cancellation.

use crate::error::RunError;
use crate::garble;
use crate::inputs;
use crate::options::RunOptions;
use crate::progress::Progress;
use crate::protocol::{Protocol, RunRequest};
use crate::start::Start;
use huddle_circuit::{BitMatrix, Circuit};
use huddle_net::Network;
use std::borrow::Cow;

/// Everything about a request that can be refused before connecting: the
/// protocol, its party count, the options, and whether the protocol can run
/// the circuit ([`RunBuilder::build`](crate::RunBuilder::build) calls it).
pub(crate) fn check_request(
    protocol: Protocol,
    parties: usize,
    circuit: &Circuit,
    options: RunOptions,
) -> Result<RunRequest, RunError> {
    let request = RunRequest::new(protocol, parties, options)?;
    request.check_circuit(circuit)?;
    Ok(request)
}

/// One party of `request` over `net`, dispatched on the protocol, counting
/// into `progress`. `own_inputs`: the input values this party owns, by
/// index; `supply`: bgw2-mal's linear preprocessing from a trusted dealer,
/// the process's own (a local run) or a dealt file. Given the circuit to
/// own, the secret-sharing protocols drop its gates once compiled (see
/// [`Circuit::interface`]).
pub(crate) fn run_party_with(
    request: &RunRequest,
    net: &mut Network,
    circuit: Cow<'_, Circuit>,
    instances: usize,
    own_inputs: Vec<(usize, inputs::OwnValue)>,
    supply: Option<garble::LinearSupply>,
    progress: &Progress,
) -> Result<Vec<BitMatrix>, RunError> {
    if net.parties() != request.parties() {
        return Err(RunError::Input(format!(
            "the request is for {} parties, the network has {}",
            request.parties(),
            net.parties()
        )));
    }
    request.check_owners_and_domain(&circuit)?;
    let protocol = request.protocol();
    protocol.start(Start {
        descriptor: protocol.descriptor(),
        net,
        circuit,
        instances,
        own_inputs,
        options: request.options(),
        supply,
        progress,
    })
}

/// Why a local run failed: the party whose error tells the root cause.
#[derive(Debug, thiserror::Error)]
#[error("party {party}: {error}")]
pub struct LocalError {
    /// The party whose error this is.
    pub party: usize,
    /// Its error.
    pub error: RunError,
}

impl LocalError {
    /// How much an error says about the root cause: a failed check or bad
    /// input explains a run; the network errors of the other parties are
    /// their consequence.
    pub(crate) fn weight(&self) -> u8 {
        match self.error {
            RunError::Abort { .. } => 5,
            RunError::Input(_)
            | RunError::Refused { .. }
            | RunError::Net(huddle_net::NetError::Mismatch(_)) => 4,
            RunError::Resource(_) | RunError::Entropy(_) => 3,
            RunError::Internal(_) => 2,
            RunError::Net(_) => 1,
        }
    }
}
