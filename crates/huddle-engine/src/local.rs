//! Every party of a run in this process, each on its own thread
//! ([`Run::local`]): over memory, loopback TCP or loopback TLS with
//! throwaway certificates ([`LocalNet`]), or over networks the caller made
//! ([`Run::local_over`]).

use crate::builder::{check_batch, Run};
use crate::error::RunError;
use crate::report::{Finished, RunReport};
use crate::run::LocalError;
use huddle_circuit::BitMatrix;
use huddle_net::{Accounting, Handshake, NetProfile, Network};
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
    /// [`huddle_net::memory_networks`] with a transcript recorded).
    pub fn local_over(
        &self,
        nets: Vec<Network>,
        inputs: &[BitMatrix],
    ) -> Result<RunReport, LocalError> {
        let refused = |error| LocalError { party: 0, error };
        let batch = self.check_inputs(inputs).map_err(refused)?;
        if nets.len() != self.request.parties() {
            return Err(refused(RunError::Input(format!(
                "the run is for {} parties, but {} networks were given",
                self.request.parties(),
                nets.len()
            ))));
        }
        let watches: Vec<_> = nets.iter().map(|n| self.cancel.watch(n)).collect();
        let start = Instant::now();
        let results =
            crate::run::run_local_with(&self.request, nets, &self.circuit, inputs, &self.progress)?;
        let wall_seconds = start.elapsed().as_secs_f64();
        drop(watches);
        let mut accounting = Accounting::default();
        for r in &results {
            accounting.merge(&r.accounting);
        }
        let party_outputs: Vec<Vec<BitMatrix>> = results.into_iter().map(|r| r.outputs).collect();
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
                accounting,
                wall_seconds,
                lanes: self.progress.lanes(),
            },
        ))
    }

    /// The endpoints of a local run: in memory, or over loopback sockets
    /// after a hello like a multi-host run's.
    fn local_networks(&self, net: &LocalNet) -> Result<Vec<Network>, RunError> {
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
