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
/// the circuit. `huddle local` and `huddle party` call it first.
pub fn check_request(
    protocol: Protocol,
    parties: usize,
    circuit: &Circuit,
    options: RunOptions,
) -> Result<RunRequest, RunError> {
    let request = RunRequest::new(protocol, parties, options)?;
    request.check_circuit(circuit)?;
    Ok(request)
}

/// Runs one party of `request`; `own_inputs` as in [`crate::ttp::run`].
pub fn run(
    request: &RunRequest,
    net: &mut Network,
    circuit: &Circuit,
    instances: usize,
    own_inputs: &[(usize, BitMatrix)],
) -> Result<Vec<BitMatrix>, RunError> {
    let own = own_inputs
        .iter()
        .map(|(i, m)| (*i, inputs::OwnValue::Rows(m.clone())))
        .collect();
    run_party(request, net, Cow::Borrowed(circuit), instances, own, None)
}

/// [`run`] with bgw2-mal's linear preprocessing from a trusted dealer: the
/// process's own (`huddle local`) or a dealt file (`huddle party --dealt`).
/// Given the circuit to own, the secret-sharing protocols drop its gates
/// once compiled (see [`Circuit::interface`]).
pub fn run_party(
    request: &RunRequest,
    net: &mut Network,
    circuit: Cow<'_, Circuit>,
    instances: usize,
    own_inputs: Vec<(usize, inputs::OwnValue)>,
    supply: Option<garble::LinearSupply>,
) -> Result<Vec<BitMatrix>, RunError> {
    let progress = Progress::new();
    run_party_with(
        request, net, circuit, instances, own_inputs, supply, &progress,
    )
}

/// [`run_party`] counting into `progress`.
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
    fn weight(&self) -> u8 {
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

/// What one party of a local run ends with.
pub struct PartyResult {
    /// The party's outputs (none where it learns nothing).
    pub outputs: Vec<BitMatrix>,
    /// What the party's network counted.
    pub accounting: huddle_net::Accounting,
}

/// Runs every party of protocol `name` on its own thread of this process,
/// each over its endpoint in `nets` (party order). Party p is given the input
/// values it owns from `inputs` (one matrix per input value, rows = instances).
/// Returns every party's outputs and counters, or the error that best
/// explains the failure (see [`LocalError`]).
pub fn run_local(
    request: &RunRequest,
    nets: Vec<Network>,
    circuit: &Circuit,
    inputs: &[BitMatrix],
) -> Result<Vec<PartyResult>, LocalError> {
    run_local_with(request, nets, circuit, inputs, &Progress::new())
}

/// [`run_local`] counting into `progress`.
pub(crate) fn run_local_with(
    request: &RunRequest,
    nets: Vec<Network>,
    circuit: &Circuit,
    inputs: &[BitMatrix],
    progress: &Progress,
) -> Result<Vec<PartyResult>, LocalError> {
    let parties = nets.len();
    let instances = inputs.first().map_or(1, BitMatrix::rows);
    // bgw2-mal beyond PRSS's reach: a trusted dealer in this process.
    let dealer = match request.linear_preprocessing() {
        Some(garble::linear::LinearChoice::TrustedDealer) => {
            let t = garble::Variant::Bgw2Mal.threshold(parties);
            Some(
                garble::linear::TrustedDealer::new(t, request.options().randomness)
                    .map_err(|error| LocalError { party: 0, error })?,
            )
        }
        _ => None,
    };
    let dealer = dealer.as_ref();
    let results: Vec<Result<PartyResult, LocalError>> = std::thread::scope(|s| {
        let handles: Vec<_> = nets
            .into_iter()
            .map(|mut net| {
                s.spawn(move || {
                    let me = net.party();
                    let own: Vec<(usize, crate::inputs::OwnValue)> = (0..circuit.inputs().len())
                        .filter(|&i| request.owner(circuit, i) == me)
                        .map(|i| (i, crate::inputs::OwnValue::Rows(inputs[i].clone())))
                        .collect();
                    let outputs = run_party_with(
                        request,
                        &mut net,
                        Cow::Borrowed(circuit),
                        instances,
                        own,
                        dealer.map(garble::LinearSupply::Dealer),
                        progress,
                    )
                    .map_err(|error| LocalError { party: me, error })?;
                    Ok(PartyResult {
                        outputs,
                        accounting: net.accounting().clone(),
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .enumerate()
            .map(|(party, h)| {
                h.join().unwrap_or_else(|_| {
                    Err(LocalError {
                        party,
                        error: RunError::Internal("the party's thread panicked".into()),
                    })
                })
            })
            .collect()
    });
    let mut worst: Option<LocalError> = None;
    let mut ok = Vec::with_capacity(results.len());
    for r in results {
        match r {
            Ok(r) => ok.push(r),
            Err(e) if worst.as_ref().is_none_or(|w| e.weight() > w.weight()) => worst = Some(e),
            Err(_) => {}
        }
    }
    match worst {
        Some(e) => Err(e),
        None => Ok(ok),
    }
}
