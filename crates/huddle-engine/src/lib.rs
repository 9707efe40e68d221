//! huddle's engine: runs a circuit under a protocol across a `Network`.
//!
//! It hosts the trusted-third-party protocol ([`ttp`], the baseline every
//! secure protocol is measured against) and the secret-sharing engine
//! ([`sharing`]) with its protocols. Message sizes follow from the circuit
//! and the batch alone, so every receive is exact and every byte is accounted.

pub mod garble;
pub mod sharing;
pub mod ttp;

pub use sharing::Preprocess;

use huddle_circuit::Circuit;

/// The value every party of a run must agree on: SHA-256 of the circuit in
/// its canonical written form.
pub fn circuit_hash(circuit: &Circuit) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut text = Vec::new();
    // Writing to memory cannot fail.
    let _ = huddle_circuit::write_circuit(circuit, &mut text);
    Sha256::digest(&text).into()
}

use huddle_circuit::BitMatrix;
use huddle_net::Network;

/// Fails before any communication if a run would need more memory than the
/// machine has available (from /proc/meminfo; no check where that is unknown).
pub fn check_memory(what: &str, bytes: u128) -> Result<(), ttp::RunError> {
    let Some(available) = available_memory() else {
        return Ok(());
    };
    if bytes > u128::from(available) {
        let gib = |b: u128| b as f64 / (1u64 << 30) as f64;
        return Err(ttp::RunError::Input(format!(
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

/// A protocol this build can run, with the number of parties it needs (None: any).
pub struct ProtocolInfo {
    pub name: &'static str,
    pub parties: Option<usize>,
    pub summary: &'static str,
    /// Widest multiplication done in one round (wider gates become trees);
    /// None for the TTP, which evaluates any circuit in the clear.
    pub max_fan_in: Option<usize>,
    /// Whether it has function-dependent preprocessing (`--preprocess`).
    pub preprocessing: bool,
}

pub const PROTOCOLS: &[ProtocolInfo] = &[
    ProtocolInfo {
        name: "ttp",
        parties: None,
        summary: "trusted third party: party 0 evaluates in the clear (baseline, not secure)",
        max_fan_in: None,
        preprocessing: false,
    },
    ProtocolInfo {
        name: "replicated",
        parties: Some(3),
        summary:
            "Replicated 3PC (Araki et al.), semi-honest, 1 element per party per multiplication",
        max_fan_in: Some(2),
        preprocessing: false,
    },
    ProtocolInfo {
        name: "astra",
        parties: Some(3),
        summary: "ASTRA 3PC, semi-honest, 1 element offline and 2 online per multiplication",
        max_fan_in: Some(2),
        preprocessing: true,
    },
    ProtocolInfo {
        name: "trio",
        parties: Some(3),
        summary: "Trio 3PC (Harth-Kitzerow-Carle), semi-honest, 1 offline (P0->P2) and 2 online",
        max_fan_in: Some(2),
        preprocessing: true,
    },
    ProtocolInfo {
        name: "mfi3",
        parties: Some(3),
        summary:
            "MFI-3PC (Faraji-Kerschbaum), semi-honest, one-round multiplications of up to 8 inputs",
        max_fan_in: Some(sharing::mfi3::MAX_FAN_IN),
        preprocessing: false,
    },
    ProtocolInfo {
        name: "bgw3",
        parties: None,
        summary: "multiparty garbling BGW3_opt (Ben-Efraim-Omri), semi-honest, t < n/2, 3 offline + 3 online rounds, n >= 3",
        max_fan_in: None,
        preprocessing: true,
    },
    ProtocolInfo {
        name: "bgw2",
        parties: None,
        summary: "multiparty garbling BGW2_opt (Ben-Efraim-Omri), semi-honest, t < n/3, 2 offline + 3 online rounds, n >= 3",
        max_fan_in: None,
        preprocessing: true,
    },
    ProtocolInfo {
        name: "bgw2-mal",
        parties: None,
        summary: "multiparty garbling BGW2_opt^mal (Ben-Efraim-Omri), malicious with abort, t < n/3, linear preprocessing (PRSS or trusted dealer), 1 offline + 4 online rounds, n >= 3",
        max_fan_in: None,
        preprocessing: true,
    },
];

/// Whether `name` is a garbling protocol (constant rounds, Boolean circuits).
pub fn is_garbling(name: &str) -> bool {
    matches!(name, "bgw3" | "bgw2" | "bgw2-mal")
}

/// Where bgw2-mal's linear preprocessing comes from for `parties` parties
/// and these options, with `Auto` resolved (None for other protocols).
pub fn linear_preprocessing(
    name: &str,
    parties: usize,
    options: RunOptions,
) -> Option<garble::linear::LinearChoice> {
    garbling_variant(name)
        .filter(|v| v.is_malicious() && parties >= 3)
        .map(|v| options.linear.resolve(parties, v.threshold(parties)))
}

/// The garbling variant of protocol `name`.
pub fn garbling_variant(name: &str) -> Option<garble::Variant> {
    match name {
        "bgw3" => Some(garble::Variant::Bgw3),
        "bgw2" => Some(garble::Variant::Bgw2),
        "bgw2-mal" => Some(garble::Variant::Bgw2Mal),
        _ => None,
    }
}

pub fn protocol(name: &str) -> Option<&'static ProtocolInfo> {
    PROTOCOLS.iter().find(|p| p.name == name)
}

/// Choices of a run beyond protocol and circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Worker threads for local computation.
    pub threads: usize,
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
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            threads: 1,
            preprocess: Preprocess::Interleaved,
            share_memory: 512 << 20,
            reveal_to: None,
            garble: garble::Optimizations::default(),
            linear: garble::linear::LinearChoice::Auto,
        }
    }
}

/// The protocol string parties compare in their hello: the protocol and
/// every option that changes what goes over the wire.
pub fn session_protocol(name: &str, options: RunOptions) -> String {
    let to = options.reveal_to.map_or("all".into(), |p| p.to_string());
    if name == "ttp" {
        return format!("{name} reveal-to={to}");
    }
    if is_garbling(name) {
        return format!(
            "{name} reveal-to={to} {:?} linear={:?}",
            options.garble, options.linear
        );
    }
    format!(
        "{name} preprocess={:?} threads={} share-memory={} reveal-to={to}",
        options.preprocess, options.threads, options.share_memory
    )
}

/// Whether protocol `name` has function-dependent preprocessing (so that
/// `--preprocess` means something for it).
pub fn has_preprocessing(name: &str) -> bool {
    protocol(name).is_some_and(|p| p.preprocessing)
}

/// Everything about a request that can be refused before connecting: the
/// protocol, its party count, the options, and whether the protocol can run
/// the circuit. `huddle local` and `huddle party` call it first.
pub fn check_request(
    name: &str,
    parties: usize,
    circuit: &Circuit,
    options: RunOptions,
) -> Result<(), ttp::RunError> {
    let info = check_options(name, parties, options)?;
    if is_garbling(name) && !circuit.is_boolean() {
        return Err(ttp::RunError::Input(format!(
            "{name} garbles Boolean circuits only; this circuit has ring wires"
        )));
    }
    if let Some(fan_in) = info.max_fan_in {
        sharing::program::Program::compile(circuit, fan_in, name)?;
    }
    Ok(())
}

/// The protocol `name`, if it exists for `parties` parties with `options`.
fn check_options(
    name: &str,
    parties: usize,
    options: RunOptions,
) -> Result<&'static ProtocolInfo, ttp::RunError> {
    let err = |m: String| Err(ttp::RunError::Input(m));
    let Some(info) = protocol(name) else {
        let names: Vec<&str> = PROTOCOLS.iter().map(|p| p.name).collect();
        return err(format!(
            "unknown protocol `{name}` (this build runs: {})",
            names.join(", ")
        ));
    };
    if let Some(n) = info.parties.filter(|&n| n != parties) {
        return err(format!(
            "{name} is a {n}-party protocol, but the run has {parties} parties"
        ));
    }
    if is_garbling(name) && parties < 3 {
        return err(format!(
            "{name} needs at least 3 parties (an honest majority), not {parties}"
        ));
    }
    if is_garbling(name) && options.reveal_to.is_some_and(|p| p != 0) {
        return err(format!(
            "in {name} the evaluator (party 0) learns the outputs; --reveal-to other than 0 is not supported"
        ));
    }
    if name == "bgw2-mal" && !options.garble.reduced_complexity {
        return err(
            "bgw2-mal builds on the reduced-complexity rows: --opt must include `reduced`".into(),
        );
    }
    if let Some(choice) = linear_preprocessing(name, parties, options) {
        let t = garble::Variant::Bgw2Mal.threshold(parties);
        garble::linear::check_choice(choice, parties, t)?;
    }
    if options.preprocess == Preprocess::Separate && !info.preprocessing {
        return err(format!(
            "{name} has no preprocessing phase; --preprocess separate applies to astra and trio"
        ));
    }
    check_reveal_to(options.reveal_to, parties)?;
    if options.threads == 0 {
        return err("--threads must be at least 1".into());
    }
    Ok(info)
}

/// Refuses outputs for a party that is not in the run.
pub(crate) fn check_reveal_to(to: Option<usize>, parties: usize) -> Result<(), ttp::RunError> {
    match to.filter(|&t| t >= parties) {
        Some(t) => Err(ttp::RunError::Input(format!(
            "outputs cannot go to party {t}: the run has parties 0..{}",
            parties - 1
        ))),
        None => Ok(()),
    }
}

/// Runs one party of protocol `name`; `own_inputs` as in [`ttp::run`].
pub fn run(
    name: &str,
    net: &mut Network,
    circuit: &Circuit,
    instances: usize,
    own_inputs: &[(usize, BitMatrix)],
    options: RunOptions,
) -> Result<Vec<BitMatrix>, ttp::RunError> {
    run_party(name, net, circuit, instances, own_inputs, options, None)
}

/// [`run`] with bgw2-mal's linear preprocessing from a trusted dealer: the
/// process's own (`huddle local`) or a dealt file (`huddle party --dealt`).
pub fn run_party(
    name: &str,
    net: &mut Network,
    circuit: &Circuit,
    instances: usize,
    own_inputs: &[(usize, BitMatrix)],
    options: RunOptions,
    supply: Option<garble::LinearSupply>,
) -> Result<Vec<BitMatrix>, ttp::RunError> {
    use sharing::{astra::Astra, mfi3::Mfi3, replicated::Replicated, trio::Trio};
    let me = net.party();
    let pre = options.preprocess;
    check_options(name, net.parties(), options)?;
    match name {
        "ttp" => ttp::run(net, circuit, instances, own_inputs, options),
        "replicated" => sharing::run(
            || Replicated::new(me),
            net,
            circuit,
            instances,
            own_inputs,
            options,
        ),
        "astra" => sharing::run(
            || Astra::new(me, pre),
            net,
            circuit,
            instances,
            own_inputs,
            options,
        ),
        "trio" => sharing::run(
            || Trio::new(me, pre),
            net,
            circuit,
            instances,
            own_inputs,
            options,
        ),
        "mfi3" => sharing::run(
            || Mfi3::new(me, pre),
            net,
            circuit,
            instances,
            own_inputs,
            options,
        ),
        garbling if is_garbling(garbling) => garble::run_with_supply(
            net,
            garbling_variant(garbling)
                .ok_or_else(|| ttp::RunError::Input(format!("unknown protocol `{garbling}`")))?,
            circuit,
            instances,
            own_inputs,
            options,
            supply,
        ),
        other => Err(ttp::RunError::Input(format!("unknown protocol `{other}`"))),
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
/// Returns every party's outputs and counters, or the first party's error.
pub fn run_local(
    name: &str,
    nets: Vec<Network>,
    circuit: &Circuit,
    inputs: &[BitMatrix],
    options: RunOptions,
) -> Result<Vec<PartyResult>, String> {
    let parties = nets.len();
    let instances = inputs.first().map_or(1, BitMatrix::rows);
    // bgw2-mal beyond PRSS's reach: a trusted dealer in this process.
    let dealer = match linear_preprocessing(name, parties, options) {
        Some(garble::linear::LinearChoice::TrustedDealer) => {
            let t = garble::Variant::Bgw2Mal.threshold(parties);
            Some(garble::linear::TrustedDealer::new(t).map_err(|e| e.to_string())?)
        }
        _ => None,
    };
    let dealer = dealer.as_ref();
    let results: Vec<Result<PartyResult, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = nets
            .into_iter()
            .map(|mut net| {
                s.spawn(move || {
                    let me = net.party();
                    let own: Vec<(usize, BitMatrix)> = (0..circuit.inputs().len())
                        .filter(|&i| circuit.owner(i, parties) == me)
                        .map(|i| (i, inputs[i].clone()))
                        .collect();
                    let outputs = run_party(
                        name,
                        &mut net,
                        circuit,
                        instances,
                        &own,
                        options,
                        dealer.map(garble::LinearSupply::Dealer),
                    )
                    .map_err(|e| format!("party {me}: {e}"))?;
                    Ok(PartyResult {
                        outputs,
                        accounting: net.accounting().clone(),
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a party thread panicked".into()))
            })
            .collect()
    });
    results.into_iter().collect()
}
