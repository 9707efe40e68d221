//! A run as a program asks for it: [`Run::builder`] takes the protocol, the
//! party count, the circuit, the options, and the handles the caller keeps
//! (a [`Progress`] to watch, a [`CancelToken`] to stop it), and checks them
//! all at once ([`RunBuilder::build`]). The [`Run`] it gives then runs every
//! party in this process ([`Run::local`]) or one party over links to its
//! peers ([`Run::party`]), and reports ([`RunReport`](crate::RunReport)).

use crate::cancel::CancelToken;
use crate::error::RunError;
use crate::options::RunOptions;
use crate::progress::Progress;
use crate::protocol::{Protocol, RunRequest};
use huddle_circuit::Circuit;
use huddle_net::PartyId;
use std::sync::Arc;

/// A checked run: protocol, parties, options and circuit, with the
/// caller's handles. Cloning is cheap (the circuit is shared), and clones
/// share the handles.
#[derive(Clone)]
pub struct Run {
    pub(crate) request: RunRequest,
    pub(crate) circuit: Arc<Circuit>,
    pub(crate) progress: Progress,
    pub(crate) cancel: CancelToken,
}

/// Builds a [`Run`]: see [`Run::builder`].
#[must_use]
pub struct RunBuilder {
    protocol: Protocol,
    parties: Option<usize>,
    options: Option<RunOptions>,
    circuit: Option<Arc<Circuit>>,
    progress: Progress,
    cancel: CancelToken,
}

impl Run {
    /// Starts a run of `protocol`. Unless set: the protocol's own party
    /// count (else 3, or the least it takes), [`RunOptions::for_protocol`],
    /// a fresh [`Progress`] and a [`CancelToken`] only the run holds.
    pub fn builder(protocol: Protocol) -> RunBuilder {
        RunBuilder {
            protocol,
            parties: None,
            options: None,
            circuit: None,
            progress: Progress::new(),
            cancel: CancelToken::new(),
        }
    }

    /// The checked protocol, parties and options: what every party must
    /// agree on ([`RunRequest::settings`] is what the hello says of them).
    pub fn request(&self) -> &RunRequest {
        &self.request
    }

    /// The circuit.
    pub fn circuit(&self) -> &Circuit {
        &self.circuit
    }

    /// The run's progress counters.
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// The token that cancels the run.
    pub fn cancel_token(&self) -> &CancelToken {
        &self.cancel
    }

    /// The party that owns input value `i` of the circuit.
    pub fn owner(&self, i: usize) -> PartyId {
        self.request.owner(&self.circuit, i)
    }

    /// The input values `party` owns, in order.
    pub fn owned_by(&self, party: PartyId) -> Vec<usize> {
        (0..self.circuit.inputs().len())
            .filter(|&i| self.owner(i) == party)
            .collect()
    }

    /// The exact traffic of this run on `batch` instances, predicted without
    /// running it (see [`RunRequest::cost`]).
    pub fn cost(&self, batch: usize) -> Result<crate::Cost, RunError> {
        self.request.cost(&self.circuit, batch)
    }

    /// Whether `party` learns the outputs: every party unless the options
    /// name one (`reveal_to`), never a protocol's dealer.
    pub fn learns(&self, party: PartyId) -> bool {
        let dealer = self.request.protocol().descriptor().dealer == Some(party);
        !dealer && crate::inputs::learns(party, self.request.options().reveal_to)
    }
}

/// The request and the circuit's size, not its gates.
impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("request", &self.request)
            .field("gates", &self.circuit.gates().len())
            .field("progress", &self.progress.snapshot())
            .field("cancel", &self.cancel)
            .finish()
    }
}

impl RunBuilder {
    /// The number of parties.
    pub fn parties(mut self, parties: usize) -> RunBuilder {
        self.parties = Some(parties);
        self
    }

    /// The options (see [`RunOptions`]'s setters).
    pub fn options(mut self, options: RunOptions) -> RunBuilder {
        self.options = Some(options);
        self
    }

    /// The circuit (owned, or shared as an `Arc`).
    pub fn circuit(mut self, circuit: impl Into<Arc<Circuit>>) -> RunBuilder {
        self.circuit = Some(circuit.into());
        self
    }

    /// Counts the run's steps into `progress` (a clone of the caller's
    /// handle), for a progress display.
    pub fn progress(mut self, progress: &Progress) -> RunBuilder {
        self.progress = progress.clone();
        self
    }

    /// Lets `cancel` stop the run (see [`CancelToken`]).
    pub fn cancel(mut self, cancel: &CancelToken) -> RunBuilder {
        self.cancel = cancel.clone();
        self
    }

    /// Checks everything that can be refused before connecting: the
    /// protocol for this many parties, the options for it, and whether it
    /// can run the circuit ([`RunError::Input`] says why not).
    pub fn build(self) -> Result<Run, RunError> {
        let circuit = self
            .circuit
            .ok_or_else(|| RunError::Input("the run has no circuit".into()))?;
        let parties = self
            .parties
            .unwrap_or_else(|| self.protocol.descriptor().parties.default_count());
        let options = self
            .options
            .unwrap_or_else(|| RunOptions::for_protocol(self.protocol));
        let request = crate::run::check_request(self.protocol, parties, &circuit, options)?;
        Ok(Run {
            request,
            circuit,
            progress: self.progress,
            cancel: self.cancel,
        })
    }
}
