//! The dispatch under [`Run`](crate::Run): a request checked before
//! connecting ([`check_request`]) and one party over its network
//! ([`run_party_with`]), dispatched on the protocol; and why a run of every
//! party in this process failed ([`LocalError`]). A program uses
//! [`Run`](crate::Run), which adds the report, progress and cancellation.

use crate::error::RunError;
use crate::garble::{self, Variant};
use crate::options::RunOptions;
use crate::progress::Progress;
use crate::protocol::{Protocol, RunRequest};
use crate::{inputs, sharing, ttp};
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
    use sharing::{
        astra::Astra, client_aided::ClientAided, fantastic4::FantasticFour, mfi3::Mfi3, quad::Quad,
        replicated::Replicated, tetrad::Tetrad, trio::Trio,
    };
    if net.parties() != request.parties() {
        return Err(RunError::Input(format!(
            "the request is for {} parties, the network has {}",
            request.parties(),
            net.parties()
        )));
    }
    request.check_owners_and_domain(&circuit)?;
    let options = request.options();
    let pre = options.preprocess;
    let (c, i, o, p) = (circuit, instances, own_inputs, progress);
    // Garbling and the TTP take whole matrices; the secret-sharing engine
    // takes the values, to drop each once it is converted and to draw
    // random ones slice by slice.
    let whole = |o: Vec<(usize, inputs::OwnValue)>| -> Vec<(usize, BitMatrix)> {
        o.into_iter().map(|(k, v)| (k, v.into_matrix(i))).collect()
    };
    match request.protocol() {
        Protocol::Ttp => ttp::run(net, &c, i, &whole(o), options),
        Protocol::Replicated => sharing::run(Replicated::new, net, c, i, o, options, p),
        Protocol::Astra => sharing::run(|me| Astra::new(me, pre), net, c, i, o, options, p),
        Protocol::Trio => sharing::run(|me| Trio::new(me, pre), net, c, i, o, options, p),
        Protocol::Mfi3 => sharing::run(|me| Mfi3::new(me, pre), net, c, i, o, options, p),
        Protocol::Quad => sharing::run(|me| Quad::new(me, false), net, c, i, o, options, p),
        Protocol::QuadHet => sharing::run(|me| Quad::new(me, true), net, c, i, o, options, p),
        Protocol::FantasticFour => sharing::run(FantasticFour::new, net, c, i, o, options, p),
        Protocol::Tetrad => sharing::run(Tetrad::new, net, c, i, o, options, p),
        Protocol::Ca2pc => sharing::run(|me| ClientAided::new(me, pre), net, c, i, o, options, p),
        Protocol::Bgw3 => {
            garble::run_with_supply(net, Variant::Bgw3, &c, i, &whole(o), options, supply)
        }
        Protocol::Bgw2 => {
            garble::run_with_supply(net, Variant::Bgw2, &c, i, &whole(o), options, supply)
        }
        Protocol::Bgw2Mal => {
            garble::run_with_supply(net, Variant::Bgw2Mal, &c, i, &whole(o), options, supply)
        }
    }
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
