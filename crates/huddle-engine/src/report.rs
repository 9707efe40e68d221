//! What a finished run reports ([`RunReport`]): its outputs, its traffic per
//! directed link and phase, its rounds and seconds per phase, the lanes it
//! ran and the memory it took. One type for a run of every party in this
//! process and for one party of a multi-host run; it serializes (serde) to
//! the JSON that `huddle local --json` and `huddle party --json` print
//! (docs/cli.md describes the fields).

use crate::protocol::{Protocol, RunRequest};
use huddle_circuit::BitMatrix;
use huddle_net::{Accounting, PartyId, Phase};
use serde::Serialize;
use std::collections::BTreeMap;

/// A value per phase, keyed by the phase's name (`setup`, `offline`,
/// `online`, `verify`, `dependent`), every phase present.
pub type PerPhase<T> = BTreeMap<&'static str, T>;

/// A finished run. The fields are public to read; the engine builds it.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct RunReport {
    /// The protocol's name.
    #[serde(serialize_with = "protocol_name")]
    pub protocol: Protocol,
    /// Parties of the run.
    pub parties: usize,
    /// The party this report is of (a one-party run); absent for a run of
    /// every party in this process.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub party: Option<PartyId>,
    /// Instances evaluated.
    pub batch: usize,
    /// The outputs as a party that learns them has them: one matrix per
    /// output value of the circuit, a row per instance. A one-party run
    /// whose party learns nothing (`reveal_to` another party, or a dealer)
    /// has none. Not serialized: how values print (hex, decimal, fixed
    /// point) is the caller's choice.
    #[serde(skip)]
    pub outputs: Vec<BitMatrix>,
    /// A run of every party in this process: each party's outputs, by
    /// party id (none for a party that learns nothing); empty for a
    /// one-party run. Not serialized.
    #[serde(skip)]
    pub party_outputs: Vec<Vec<BitMatrix>>,
    /// A run of every party in this process: what each party's network
    /// counted, by party id (`accounting` is their sum); empty for a
    /// one-party run. Not serialized.
    #[serde(skip)]
    pub party_accounting: Vec<Accounting>,
    /// bgw2-mal: where its linear preprocessing came from, `prss` or
    /// `dealer` (the `--linear` spelling); absent for other protocols.
    pub linear_preprocessing: Option<&'static str>,
    /// Rounds of the online phase (the longest chain of messages, each sent
    /// after the previous one arrived): what a high-latency link charges for.
    pub online_rounds: u32,
    /// Rounds of every phase, as [`RunReport::online_rounds`].
    pub rounds: PerPhase<u32>,
    /// Bytes per phase and directed link (`"0->1"`), protocol payload only.
    /// A one-party run counts its own links (what it sent and received);
    /// a run of every party, every link.
    pub bytes: PerPhase<BTreeMap<String, u64>>,
    /// Seconds per phase, from entering it to leaving it (every party:
    /// from the last party entering to the last one leaving).
    pub seconds: PerPhase<f64>,
    /// Seconds from the start of the run to its outputs (after connecting).
    pub wall_seconds: f64,
    /// Gates of the circuit times instances, per wall second.
    pub gates_per_second: f64,
    /// Threads each party ran: the secret-sharing engine's lanes, else the
    /// worker threads of its options.
    pub threads: usize,
    /// Whether every party played every role, one lane per assignment.
    pub split_roles: bool,
    /// This process's peak resident memory so far, where the system tells
    /// it (all of the process, not this run alone).
    pub peak_memory_bytes: Option<u64>,
    /// The vector kernels this CPU ran (`avx2` or `baseline`).
    pub vector_kernels: &'static str,
    /// The protocol's warning, where it gives no security at all (the TTP).
    pub warning: Option<&'static str>,
    /// The counters behind `bytes`, `rounds` and `seconds`, with messages
    /// and rounds per link. Not serialized.
    #[serde(skip)]
    pub accounting: Accounting,
}

/// What a run knows when it ends, for [`RunReport::new`].
pub(crate) struct Finished {
    pub(crate) party: Option<PartyId>,
    pub(crate) batch: usize,
    pub(crate) gates: usize,
    pub(crate) outputs: Vec<BitMatrix>,
    pub(crate) party_outputs: Vec<Vec<BitMatrix>>,
    pub(crate) party_accounting: Vec<Accounting>,
    pub(crate) accounting: Accounting,
    pub(crate) wall_seconds: f64,
    /// The lanes the secret-sharing engine ran, if it ran.
    pub(crate) lanes: Option<usize>,
}

impl RunReport {
    pub(crate) fn new(request: &RunRequest, run: Finished) -> RunReport {
        let acc = run.accounting;
        let links = |phase: Phase| -> BTreeMap<String, u64> {
            acc.iter()
                .filter(|(p, ..)| *p == phase)
                .map(|(_, from, to, s)| (format!("{from}->{to}"), s.bytes))
                .collect()
        };
        let options = request.options();
        RunReport {
            protocol: request.protocol(),
            parties: request.parties(),
            party: run.party,
            batch: run.batch,
            outputs: run.outputs,
            party_outputs: run.party_outputs,
            party_accounting: run.party_accounting,
            linear_preprocessing: request.linear_preprocessing().map(|c| c.name()),
            online_rounds: acc.rounds(Phase::Online),
            rounds: Phase::ALL
                .iter()
                .map(|&p| (p.name(), acc.rounds(p)))
                .collect(),
            bytes: Phase::ALL.iter().map(|&p| (p.name(), links(p))).collect(),
            seconds: Phase::ALL
                .iter()
                .map(|&p| (p.name(), acc.seconds(p)))
                .collect(),
            wall_seconds: run.wall_seconds,
            gates_per_second: (run.gates * run.batch) as f64 / run.wall_seconds,
            threads: run.lanes.unwrap_or(options.worker_threads()),
            split_roles: options.split_roles,
            peak_memory_bytes: crate::memory::peak_memory_bytes(),
            vector_kernels: huddle_core::simd::kernels(),
            warning: request.protocol().descriptor().security.warning(),
            accounting: acc,
        }
    }
}

fn protocol_name<S: serde::Serializer>(p: &Protocol, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(p.name())
}
