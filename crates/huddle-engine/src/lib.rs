//! huddle's engine: runs a circuit under a protocol across a `Network`.
//!
//! It hosts the trusted-third-party protocol ([`ttp`], the baseline every
//! secure protocol is measured against), the secret-sharing engine
//! ([`sharing`]) with its protocols and multiparty garbling ([`garble`]).
//! Message sizes follow from the circuit and the batch alone, so every
//! receive is exact and every byte is accounted.

pub mod error;
pub mod exit;
pub mod fault;
pub mod garble;
pub mod inputs;
pub mod progress;
pub mod protocol;
pub mod settings;
pub mod sharing;
pub mod transport;
pub mod ttp;

use error::RunError;
use garble::Variant;
pub use protocol::{Protocol, RunRequest, MAX_PARTIES};
pub use sharing::Preprocess;

use huddle_circuit::Circuit;

/// The value every party of a run must agree on: SHA-256 of the circuit in
/// its canonical binary form ([`huddle_circuit::write_canonical`]).
pub fn circuit_hash(circuit: &Circuit) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    // The form streams into the hash; writing to a hash cannot fail.
    let mut hasher = Sha256::new();
    let _ = huddle_circuit::write_canonical(circuit, &mut hasher);
    hasher.finalize().into()
}

use huddle_circuit::BitMatrix;
use huddle_net::Network;
use std::borrow::Cow;

/// Fails before any communication if a run would need more memory than the
/// machine has available (from /proc/meminfo; no check where that is unknown).
pub fn check_memory(what: &str, bytes: u128) -> Result<(), RunError> {
    let Some(available) = available_memory() else {
        return Ok(());
    };
    if bytes > u128::from(available) {
        let gib = |b: u128| b as f64 / (1u64 << 30) as f64;
        return Err(RunError::Resource(format!(
            "{what} needs {:.1} GiB but {:.1} GiB are available; lower --batch",
            gib(bytes),
            gib(u128::from(available))
        )));
    }
    Ok(())
}

fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Choices of a run beyond protocol and circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Worker threads for local computation.
    pub threads: usize,
    /// Whether `threads` is this host's `auto` choice rather than a number
    /// the user gave: the hello then offers it as a most (`Value::Least`)
    /// and every party runs the least any party offers, since all parties
    /// of a run must use one count. Auto's 1 (at most one core per party,
    /// [`RunOptions::one_core_auto`]) lets each protocol add a thread that
    /// fills waits where that pays.
    pub threads_auto: bool,
    /// Secret-sharing protocols: run every assignment of the protocol's
    /// roles to the parties at once, each on its share of the batch
    /// (Harth-Kitzerow–Carle Section V-E), so every party and every link
    /// carries the same load. One lane (thread) per assignment: n! of them;
    /// `threads` does not apply.
    pub split_roles: bool,
    /// When ASTRA's and Trio's preprocessing runs.
    pub preprocess: Preprocess,
    /// Bytes of shares a party may hold at once (secret-sharing protocols):
    /// a larger batch is evaluated in slices of this size, one after another.
    pub share_memory: usize,
    /// The one party that learns the outputs (None: every party).
    pub reveal_to: Option<usize>,
    /// Which of the garbling optimizations are on (bgw3, bgw2, bgw2-mal).
    pub garble: garble::Optimizations,
    /// Where bgw2-mal's linear preprocessing comes from.
    pub linear: garble::linear::LinearChoice,
    /// Where fresh keys and masks come from (the OS, except in tests).
    pub randomness: Randomness,
    /// A party that deviates on purpose (malicious protocols; tests and
    /// demonstrations of their checks).
    pub fault: Option<fault::Fault>,
    /// Malicious secret-sharing protocols: also compare views (and settle
    /// verdicts) after every this many multiplication layers, so that a
    /// deviation stops the run early instead of at the end (None: once,
    /// before any output).
    pub verify_every: Option<usize>,
    /// How `DOTTR` (fixed-point products) truncates.
    pub truncation: Truncation,
    /// Secret-sharing protocols: at most this many operands per product in
    /// one round (within the protocol's own limit), in the circuit and in
    /// the conversions' circuits, which then use it where it saves rounds.
    /// Wide products cost more, so this trades rounds for bytes (None: the
    /// protocol's limit for the circuit, its preference for conversions).
    pub max_fan_in: Option<usize>,
}

/// How a fixed-point product (`DOTTR`) is truncated by the secret-sharing
/// protocols.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Truncation {
    /// ⌊v / 2^f⌋ exactly, as the plaintext evaluator: the product's bits
    /// through A2B, shifted, and back through B2A (rounds and traffic of a
    /// k-bit adder).
    #[default]
    Exact,
    /// Fused into the multiplication, no adder (ABY3-style, HK-C Figure
    /// 11; ca2pc dealer-assisted, with one message to one computing party
    /// and one round more): ⌊v / 2^f⌋ or one more, except with probability
    /// at most about |v| / 2^k when the masked product wraps around the ring.
    Probabilistic,
}

impl Truncation {
    pub fn parse(s: &str) -> Option<Truncation> {
        match s {
            "exact" => Some(Truncation::Exact),
            "probabilistic" => Some(Truncation::Probabilistic),
            _ => None,
        }
    }

    /// The `--truncation` spelling.
    pub fn name(self) -> &'static str {
        match self {
            Truncation::Exact => "exact",
            Truncation::Probabilistic => "probabilistic",
        }
    }
}

/// Where a party's fresh randomness (keys, masks, a dealer's secret) comes
/// from. Every draw goes through [`Randomness::draw`], so a test can make a
/// whole run, masks included, replay exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Randomness {
    /// The operating system's entropy source: every real run.
    #[default]
    Os,
    /// Everything follows from this seed. No security at all (anyone with
    /// the seed knows every mask); for tests only, and the CLI never sets it.
    Seeded(huddle_core::prg::Seed),
}

impl Randomness {
    /// A fresh generator for `party`'s draw number `draw` (draws of one
    /// party must differ in `draw`; with `Os` they are independent anyway).
    pub fn draw(self, party: huddle_net::PartyId, draw: u64) -> Result<huddle_core::Prg, RunError> {
        match self {
            Randomness::Os => {
                huddle_core::Prg::from_entropy().map_err(|e| RunError::Entropy(e.to_string()))
            }
            Randomness::Seeded(seed) => {
                let mut key = seed;
                for (k, b) in key.iter_mut().zip(
                    (party as u64)
                        .to_le_bytes()
                        .into_iter()
                        .chain(draw.to_le_bytes()),
                ) {
                    *k ^= b;
                }
                // One AES step, so nearby (party, draw) pairs give unrelated keys.
                Ok(huddle_core::Prg::from_seed(
                    huddle_core::Prg::from_seed(key).next_seed(),
                ))
            }
        }
    }
}

/// Draw numbers of the engine's own call sites (see [`Randomness::draw`]).
pub(crate) mod draws {
    /// A garbling party's masks and keys.
    pub const GARBLING: u64 = 1;
    /// The trusted dealer's secret key (drawn as party 0's).
    pub const DEALER: u64 = 2;
    /// The id of one deal.
    pub const DEAL_ID: u64 = 3;
    /// Pairwise keys of the secret-sharing protocols: this plus lane and key counter.
    pub const SHARING_KEYS: u64 = 1 << 32;
}

/// Default bound on the shares a party of a secret-sharing protocol holds
/// at once, in MiB. Each slice of a batch repeats the circuit's rounds, and
/// a slice's arena and messages stay resident and recycled between them.
/// Measured on loopback TCP on 2 cores: slices of 8 to 32 MiB ran faster
/// than one of 512 MiB, and 64 MiB as fast as 32 or faster on every
/// workload measured, far below the peers' memory
/// (docs/perf/2026-11-25-figures-from-doc-comments.md,
/// docs/perf/2026-11-26-vaes-256.md). Over a high-latency link a large batch
/// wants a larger value (`--share-memory`).
pub const DEFAULT_SHARE_MEMORY_MIB: usize = 64;

/// Garbling's default (garbled rows and keys at once): its instances are
/// large (8 MB for SHA-256) and a party's memory then stays within the peer
/// framework's (MP-SPDZ's shamir-bmr) at 20 SHA-256 blocks.
pub const DEFAULT_GARBLE_MEMORY_MIB: usize = 32;

/// The default of `--share-memory` for `protocol`, in MiB.
pub fn default_share_memory_mib(protocol: Protocol) -> usize {
    if protocol.garbling().is_some() {
        DEFAULT_GARBLE_MEMORY_MIB
    } else {
        DEFAULT_SHARE_MEMORY_MIB
    }
}

impl RunOptions {
    /// Whether this is `--threads auto` settled on at most one core per
    /// party: the secret-sharing engine then runs one lane or
    /// [`sharing::FILLER_LANES`] by the batch ([`sharing::FILLER_MIN_SLICES`]).
    pub fn one_core_auto(&self) -> bool {
        self.threads_auto && self.threads == 1
    }

    /// Threads for the protocols that run no lanes of slices (the TTP,
    /// garbling): auto's one core per party gets [`sharing::FILLER_LANES`],
    /// whose waits fill each other.
    pub fn worker_threads(&self) -> usize {
        if self.one_core_auto() {
            sharing::FILLER_LANES
        } else {
            self.threads
        }
    }

    /// The defaults for a run of `protocol`: [`RunOptions::default`] with
    /// its family's share memory ([`default_share_memory_mib`]).
    pub fn for_protocol(protocol: Protocol) -> RunOptions {
        RunOptions {
            share_memory: default_share_memory_mib(protocol) << 20,
            ..RunOptions::default()
        }
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            threads: 1,
            threads_auto: false,
            split_roles: false,
            preprocess: Preprocess::Interleaved,
            share_memory: DEFAULT_SHARE_MEMORY_MIB << 20,
            reveal_to: None,
            garble: garble::Optimizations::default(),
            linear: garble::linear::LinearChoice::Auto,
            randomness: Randomness::Os,
            fault: None,
            verify_every: None,
            truncation: Truncation::Exact,
            max_fan_in: None,
        }
    }
}

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

/// Runs one party of `request`; `own_inputs` as in [`ttp::run`].
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
    let (c, i, o) = (circuit, instances, own_inputs);
    // Garbling and the TTP take whole matrices; the secret-sharing engine
    // takes the values, to drop each once it is converted and to draw
    // random ones slice by slice.
    let whole = |o: Vec<(usize, inputs::OwnValue)>| -> Vec<(usize, BitMatrix)> {
        o.into_iter().map(|(k, v)| (k, v.into_matrix(i))).collect()
    };
    match request.protocol() {
        Protocol::Ttp => ttp::run(net, &c, i, &whole(o), options),
        Protocol::Replicated => sharing::run(Replicated::new, net, c, i, o, options),
        Protocol::Astra => sharing::run(|me| Astra::new(me, pre), net, c, i, o, options),
        Protocol::Trio => sharing::run(|me| Trio::new(me, pre), net, c, i, o, options),
        Protocol::Mfi3 => sharing::run(|me| Mfi3::new(me, pre), net, c, i, o, options),
        Protocol::Quad => sharing::run(|me| Quad::new(me, false), net, c, i, o, options),
        Protocol::QuadHet => sharing::run(|me| Quad::new(me, true), net, c, i, o, options),
        Protocol::FantasticFour => sharing::run(FantasticFour::new, net, c, i, o, options),
        Protocol::Tetrad => sharing::run(Tetrad::new, net, c, i, o, options),
        Protocol::Ca2pc => sharing::run(|me| ClientAided::new(me, pre), net, c, i, o, options),
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
    pub party: usize,
    pub error: RunError,
}

impl LocalError {
    /// How much an error says about the root cause: a failed check or bad
    /// input explains a run; the network errors of the other parties are
    /// their consequence.
    fn weight(&self) -> u8 {
        match self.error {
            RunError::Abort { .. } => 5,
            RunError::Input(_) | RunError::Net(huddle_net::NetError::Mismatch(_)) => 4,
            RunError::Resource(_) | RunError::Entropy(_) => 3,
            RunError::Internal(_) => 2,
            RunError::Net(_) => 1,
        }
    }
}

/// What one party of a local run ends with.
pub struct PartyResult {
    pub outputs: Vec<BitMatrix>,
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
                    let outputs = run_party(
                        request,
                        &mut net,
                        Cow::Borrowed(circuit),
                        instances,
                        own,
                        dealer.map(garble::LinearSupply::Dealer),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Garbling's instances are large and its memory is held against the
    /// peer's: it keeps the smaller default; every other protocol the larger.
    #[test]
    fn share_memory_defaults_by_family() {
        for p in Protocol::ALL {
            let want = match p {
                Protocol::Bgw3 | Protocol::Bgw2 | Protocol::Bgw2Mal => DEFAULT_GARBLE_MEMORY_MIB,
                _ => DEFAULT_SHARE_MEMORY_MIB,
            };
            assert_eq!(default_share_memory_mib(p), want, "{}", p.name());
            assert_eq!(RunOptions::for_protocol(p).share_memory, want << 20);
        }
    }
}
