//! Every party of a run in this process, each on its own thread
//! ([`Run::local`]): over memory, loopback TCP or loopback TLS with
//! throwaway certificates ([`LocalNet`]), or over networks the caller made
//! ([`Run::local_over`]; [`Run::local_each`] for every party's own ending).

use crate::builder::Run;
use crate::error::RunError;
use crate::garble::{self, linear::LinearChoice, linear::TrustedDealer};
use crate::inputs::check_batch;
use crate::inputs::OwnValue;
use crate::report::{Finished, RunReport};
use crate::run::{run_party_with, LocalError};
use huddle_circuit::{BitMatrix, Circuit};
use huddle_net::PartyId;
use huddle_net::{Accounting, Handshake, NetProfile, Network};
use std::borrow::Cow;
use std::time::{Duration, Instant};

/// How the parties of a local run are joined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    /// Threads joined in memory.
    Memory,
    /// Loopback TCP, no TLS.
    Tcp,
    /// Loopback TLS 1.3 with throwaway certificates made for the run.
    Tls,
}

/// The network of a local run: its links, an emulated network profile and
/// how long a party waits without a sign of a peer.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct LocalNet {
    /// How the parties are joined.
    pub links: Links,
    /// Latency and bandwidth every link emulates.
    pub profile: NetProfile,
    /// In memory: how long a party waits for any one message (the parties
    /// are threads of one process, so this bounds a bug only). Over
    /// sockets: how long it waits on a peer that sends nothing at all, not
    /// even the liveness frames of a busy peer.
    pub timeout: Duration,
}

impl LocalNet {
    /// In memory, LAN profile, 120 seconds per message.
    pub fn memory() -> LocalNet {
        LocalNet {
            links: Links::Memory,
            profile: NetProfile::lan(),
            timeout: Duration::from_secs(120),
        }
    }

    /// Loopback TCP, LAN profile, 10 seconds of a silent peer.
    pub fn tcp() -> LocalNet {
        LocalNet {
            links: Links::Tcp,
            timeout: Duration::from_secs(10),
            ..LocalNet::memory()
        }
    }

    /// Loopback TLS, LAN profile, 10 seconds of a silent peer.
    pub fn tls() -> LocalNet {
        LocalNet {
            links: Links::Tls,
            ..LocalNet::tcp()
        }
    }

    /// With this network profile.
    #[must_use]
    pub fn with_profile(self, profile: NetProfile) -> LocalNet {
        LocalNet { profile, ..self }
    }

    /// With this timeout (see the field).
    #[must_use]
    pub fn with_timeout(self, timeout: Duration) -> LocalNet {
        LocalNet { timeout, ..self }
    }
}

/// How one party of a run in this process ended ([`Run::local_each`]).
#[derive(Debug)]
#[non_exhaustive]
pub struct PartyOutcome {
    /// The party.
    pub party: PartyId,
    /// Its outputs (none where it learns nothing), or its error.
    pub result: Result<Vec<BitMatrix>, RunError>,
    /// What its network counted, up to its end.
    pub accounting: Accounting,
}

impl Default for LocalNet {
    fn default() -> LocalNet {
        LocalNet::memory()
    }
}

impl Run {
    /// Runs every party in this process over `net`, with the input values
    /// `inputs` (one matrix per input value of the circuit, in order, a row
    /// per instance; every party is given those it owns). Returns the
    /// report of the whole run (every link's traffic, every party's
    /// outputs), or the error that best explains a failure (see
    /// [`LocalError`]).
    pub fn local(&self, inputs: &[BitMatrix], net: &LocalNet) -> Result<RunReport, LocalError> {
        let nets = self
            .local_networks(net)
            .map_err(|error| LocalError { party: 0, error })?;
        self.local_over(nets, inputs)
    }

    /// [`Run::local`] over endpoints the caller made, in party order (e.g.
    /// [`huddle_net::memory_networks`] with a transcript recorded, or with
    /// a network profile of the caller's).
    pub fn local_over(
        &self,
        nets: Vec<Network>,
        inputs: &[BitMatrix],
    ) -> Result<RunReport, LocalError> {
        let batch = self
            .check_inputs(inputs)
            .map_err(|error| LocalError { party: 0, error })?;
        let start = Instant::now();
        let outcomes = self.local_each(nets, inputs)?;
        let wall_seconds = start.elapsed().as_secs_f64();
        let mut worst: Option<LocalError> = None;
        let mut party_outputs = Vec::with_capacity(outcomes.len());
        let mut party_accounting = Vec::with_capacity(outcomes.len());
        for o in outcomes {
            match o.result {
                Ok(outputs) => party_outputs.push(outputs),
                Err(error) => {
                    let e = LocalError {
                        party: o.party,
                        error,
                    };
                    if worst.as_ref().is_none_or(|w| e.weight() > w.weight()) {
                        worst = Some(e);
                    }
                }
            }
            party_accounting.push(o.accounting);
        }
        if let Some(e) = worst {
            return Err(e);
        }
        let mut accounting = Accounting::default();
        for a in &party_accounting {
            accounting.merge(a);
        }
        let shown = (0..party_outputs.len())
            .find(|&p| self.learns(p))
            .unwrap_or(0);
        Ok(RunReport::new(
            &self.request,
            Finished {
                party: None,
                batch,
                gates: self.circuit.gates().len(),
                outputs: party_outputs.get(shown).cloned().unwrap_or_default(),
                party_outputs,
                party_accounting,
                accounting,
                wall_seconds,
                lanes: self.progress.lanes(),
            },
        ))
    }

    /// Every party in this process over `nets` (party order), each on its
    /// own thread, as [`Run::local_over`], but with every party's own
    /// ending: its outputs or its error, and what its network counted up
    /// to then (e.g. to see which party caught an injected fault, and what
    /// each had sent by then). Fails only where the run cannot start (the
    /// inputs, the number of networks, a trusted dealer's randomness).
    pub fn local_each(
        &self,
        nets: Vec<Network>,
        inputs: &[BitMatrix],
    ) -> Result<Vec<PartyOutcome>, LocalError> {
        let refused = |error| LocalError { party: 0, error };
        let instances = self.check_inputs(inputs).map_err(refused)?;
        let parties = self.request.parties();
        if nets.len() != parties {
            return Err(refused(RunError::Input(format!(
                "the run is for {parties} parties, but {} networks were given",
                nets.len()
            ))));
        }
        // bgw2-mal beyond PRSS's reach: a trusted dealer in this process.
        let dealer = match self.request.linear_preprocessing() {
            Some(LinearChoice::TrustedDealer) => {
                let t = garble::Variant::Bgw2Mal.threshold(parties);
                Some(TrustedDealer::new(t, self.request.options().randomness).map_err(refused)?)
            }
            _ => None,
        };
        let dealer = dealer.as_ref();
        let _watches: Vec<_> = nets.iter().map(|n| self.cancel.watch(n)).collect();
        let circuit: &Circuit = &self.circuit;
        Ok(std::thread::scope(|s| {
            let handles: Vec<_> = nets
                .into_iter()
                .map(|mut net| {
                    s.spawn(move || {
                        let me = net.party();
                        let own: Vec<(usize, OwnValue)> = self
                            .owned_by(me)
                            .into_iter()
                            .map(|i| (i, OwnValue::Rows(inputs[i].clone())))
                            .collect();
                        let result = run_party_with(
                            &self.request,
                            &mut net,
                            Cow::Borrowed(circuit),
                            instances,
                            own,
                            dealer.map(garble::LinearSupply::Dealer),
                            &self.progress,
                        );
                        PartyOutcome {
                            party: me,
                            result,
                            accounting: net.accounting().clone(),
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .enumerate()
                .map(|(party, h)| {
                    h.join().unwrap_or_else(|_| PartyOutcome {
                        party,
                        result: Err(RunError::Internal("the party's thread panicked".into())),
                        accounting: Accounting::default(),
                    })
                })
                .collect()
        }))
    }

    /// The endpoints of a local run: in memory, or over loopback sockets
    /// after a hello like a multi-host run's.
    pub(crate) fn local_networks(&self, net: &LocalNet) -> Result<Vec<Network>, RunError> {
        let n = self.request.parties();
        let handshake = Handshake {
            session: "local".into(),
            settings: self.request.settings(),
            circuit: crate::circuit_hash(&self.circuit),
        };
        let profile = net.profile.clone();
        Ok(match net.links {
            Links::Memory => huddle_net::memory_networks(n, &profile, net.timeout),
            Links::Tcp => huddle_net::local_networks(n, false, handshake, profile, net.timeout)?,
            Links::Tls => huddle_net::local_networks(n, true, handshake, profile, net.timeout)?,
        })
    }

    /// The batch of `inputs`, refused unless there is one matrix per input
    /// value, each of its value's bits, all with the same rows.
    fn check_inputs(&self, inputs: &[BitMatrix]) -> Result<usize, RunError> {
        let values = self.circuit.inputs().len();
        if inputs.len() != values {
            return Err(RunError::Input(format!(
                "the circuit takes {values} input values, but {} were given",
                inputs.len()
            )));
        }
        let batch = inputs.first().map_or(1, BitMatrix::rows);
        for (i, m) in inputs.iter().enumerate() {
            let bits = self.circuit.input_bits(i);
            if m.rows() != batch || m.cols() != bits {
                return Err(RunError::Input(format!(
                    "input value {i} must be {batch} instances of {bits} bits, got {} of {}",
                    m.rows(),
                    m.cols()
                )));
            }
        }
        check_batch(batch)?;
        Ok(batch)
    }
}
