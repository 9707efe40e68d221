//! What a soak runs: a pool of configurations (protocol, circuit, batch,
//! share memory, transport, threads) drawn from a seed, and for each run
//! which of them it takes and its own seed. Everything follows from the
//! soak's seed and the run's number, so one run is replayed alone
//! (`--replay N`) exactly as it ran among the others.

use crate::run::TransportArg;
use huddle_circuit::Circuit;
use huddle_core::prg::Seed;
use huddle_core::Prg;
use huddle_engine::protocol::{Family, Protocol};

/// The instance counts every configuration may take (and each circuit's
/// [`SoakCircuit::sliced_batch`]).
pub const BATCHES: [usize; 4] = [1, 5, 64, 1000];

/// The smallest share memory (MiB) `huddle local` takes: a circuit's
/// `sliced_batch` then runs in several slices (secret sharing; garbling
/// in chunks from a few dozen instances on), each repeating the rounds.
pub const SMALL_SHARE_MEMORY_MIB: usize = 1;

/// The most gates × instances a garbling run may take: multiparty garbling
/// costs about a hundred times what secret sharing costs per gate, and the
/// largest combinations (AES-128 on 10,000 blocks) would take a minute
/// each, so few runs of the others would fit in a soak.
pub const MAX_GARBLED_GATES: usize = 1 << 22;

pub const TRANSPORTS: [TransportArg; 3] =
    [TransportArg::Memory, TransportArg::Tcp, TransportArg::Tls];

/// A circuit of the soak, generated once.
#[derive(Clone)]
pub struct SoakCircuit {
    pub name: &'static str,
    pub circuit: Circuit,
    /// Instances that span several slices of [`SMALL_SHARE_MEMORY_MIB`]
    /// under secret sharing with one thread (tested): what one instance
    /// holds differs a hundredfold between a bitsliced adder and a
    /// circuit of ring elements with conversions.
    pub sliced_batch: usize,
}

impl SoakCircuit {
    /// Ring wires next to Boolean ones: the circuit needs share conversions.
    fn mixes_domains(&self) -> bool {
        let c = &self.circuit;
        c.ring().is_some()
            && (0..c.num_wires())
                .any(|w| c.domain(w as huddle_circuit::WireId) == huddle_circuit::Domain::Bit)
    }
}

/// The circuits: Boolean building blocks (adder, comparison,
/// multiplication, AES-128), a product over Z_2^64 and two circuits that
/// mix Z_2^k with Boolean wires (the maximum of four values; sum and mean
/// of two parties' tables).
pub fn circuits() -> Result<Vec<SoakCircuit>, String> {
    use huddle_circuit::{aggregates, apps, gen};
    let table = aggregates::TableSpec {
        rows: 4,
        parties: 2,
        bits: 16,
        signed: false,
        threshold: None,
        bounds: Vec::new(),
    };
    Ok(vec![
        SoakCircuit {
            name: "adder32",
            circuit: gen::generate("adder-sklansky", 32, 2)?,
            sliced_batch: 100_000,
        },
        SoakCircuit {
            name: "cmp-lt32",
            circuit: gen::generate("cmp-lt", 32, 2)?,
            sliced_batch: 100_000,
        },
        SoakCircuit {
            name: "mult16",
            circuit: gen::generate("mult-schoolbook", 16, 2)?,
            sliced_batch: 100_000,
        },
        SoakCircuit {
            name: "aes128",
            circuit: gen::generate("aes128", 128, 2)?,
            sliced_batch: 10_000,
        },
        SoakCircuit {
            name: "vecmat4-z64",
            circuit: apps::generate("vecmat", 64, &[4], 16)?,
            sliced_batch: 10_000,
        },
        SoakCircuit {
            name: "max4-z64",
            circuit: apps::generate("max", 64, &[4], 16)?,
            sliced_batch: 10_000,
        },
        SoakCircuit {
            name: "table-sum-mean",
            circuit: aggregates::generate("table-sum,table-mean", &table)?,
            sliced_batch: 1000,
        },
    ])
}

/// Whether `protocol` runs `circuit`, from its row of the protocol table:
/// Boolean circuits run everywhere, ring circuits where it has rings, and
/// mixed ones where it also converts between the two.
pub fn takes(protocol: Protocol, circuit: &SoakCircuit) -> bool {
    let d = protocol.descriptor();
    circuit.circuit.is_boolean() || (d.rings && (d.conversions || !circuit.mixes_domains()))
}

/// Whether a run of `batch` instances of `circuit` under `protocol` fits
/// a soak (see [`MAX_GARBLED_GATES`]).
pub fn affordable(protocol: Protocol, circuit: &SoakCircuit, batch: usize) -> bool {
    match protocol.descriptor().family {
        Family::Garbling(_) => circuit.circuit.gates().len() * batch <= MAX_GARBLED_GATES,
        Family::Clear | Family::Sharing => true,
    }
}

/// One configuration of the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub protocol: Protocol,
    /// Index into [`circuits`].
    pub circuit: usize,
    pub batch: usize,
    /// `Some(SMALL_SHARE_MEMORY_MIB)`, or the protocol's default.
    pub share_memory_mib: Option<usize>,
    pub transport: TransportArg,
    pub threads: usize,
}

impl Config {
    /// A short name: `trio aes128 x64 1MiB tls t2`.
    pub fn label(&self, circuits: &[SoakCircuit]) -> String {
        let memory = match self.share_memory_mib {
            Some(mib) => format!(" {mib}MiB"),
            None => String::new(),
        };
        format!(
            "{} {} x{}{memory} {} t{}",
            self.protocol,
            circuits[self.circuit].name,
            self.batch,
            transport_name(self.transport),
            self.threads
        )
    }

    /// The settings one by one, for the JSON report.
    pub fn settings(&self, circuits: &[SoakCircuit]) -> serde_json::Value {
        serde_json::json!({
            "protocol": self.protocol.name(), "circuit": circuits[self.circuit].name,
            "batch": self.batch, "share_memory_mib": self.share_memory_mib,
            "transport": transport_name(self.transport), "threads": self.threads,
        })
    }

    /// `huddle local`'s arguments for this configuration (after `local`),
    /// checked against the plaintext evaluator.
    pub fn arguments(&self, circuit_file: &str) -> Vec<String> {
        let mut args: Vec<String> = [
            "--protocol",
            self.protocol.name(),
            "--circuit",
            circuit_file,
            "--batch",
            &self.batch.to_string(),
            "--transport",
            transport_name(self.transport),
            "--threads",
            &self.threads.to_string(),
            "--check",
        ]
        .map(String::from)
        .into();
        if let Some(mib) = self.share_memory_mib {
            args.extend(["--share-memory".into(), mib.to_string()]);
        }
        args
    }
}

pub fn transport_name(t: TransportArg) -> &'static str {
    match t {
        TransportArg::Memory => "memory",
        TransportArg::Tcp => "tcp",
        TransportArg::Tls => "tls",
    }
}

/// A generator for `stream` of the soak seeded with `seed`: the pool is
/// one stream, each run another (its number).
fn stream(seed: u64, stream: u64) -> Prg {
    let mut key: Seed = [0; 16];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..].copy_from_slice(&stream.to_le_bytes());
    Prg::from_seed(key)
}

/// A number below `n` (n > 0); the bias of the modulo is far below what
/// a choice among a few dozen options could show.
fn below(prg: &mut Prg, n: usize) -> usize {
    (prg.next_u64() % n as u64) as usize
}

fn shuffled<T>(prg: &mut Prg, mut items: Vec<T>) -> Vec<T> {
    for i in (1..items.len()).rev() {
        items.swap(i, below(prg, i + 1));
    }
    items
}

/// `size` configurations: every protocol and every transport in turn (in
/// an order drawn from the seed, so the pool holds each protocol and each
/// transport about equally often), the rest drawn among what the protocol
/// takes and a soak affords.
pub fn pool(seed: u64, size: usize, circuits: &[SoakCircuit]) -> Vec<Config> {
    let mut prg = stream(seed, u64::MAX);
    let protocols = shuffled(&mut prg, Protocol::ALL.to_vec());
    let transports = shuffled(&mut prg, TRANSPORTS.to_vec());
    (0..size)
        .map(|i| {
            let protocol = protocols[i % protocols.len()];
            let fitting: Vec<usize> = (0..circuits.len())
                .filter(|&c| takes(protocol, &circuits[c]))
                .collect();
            let circuit = fitting[below(&mut prg, fitting.len())];
            // Each batch at the protocol's share memory or the smallest,
            // and the circuit's sliced batch at the smallest.
            let sliced = (circuits[circuit].sliced_batch, Some(SMALL_SHARE_MEMORY_MIB));
            let choices: Vec<(usize, Option<usize>)> = BATCHES
                .into_iter()
                .flat_map(|b| [(b, None), (b, Some(SMALL_SHARE_MEMORY_MIB))])
                .chain([sliced])
                .filter(|&(b, _)| affordable(protocol, &circuits[circuit], b))
                .collect();
            let (batch, share_memory_mib) = choices[below(&mut prg, choices.len())];
            Config {
                protocol,
                circuit,
                batch,
                share_memory_mib,
                transport: transports[i % transports.len()],
                threads: 1 + below(&mut prg, 2),
            }
        })
        .collect()
}

/// What run number `run` does: its configuration (the first runs take
/// each configuration of the pool once, in order), whether it also
/// writes its outputs to a file, and the seed of its inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Draw {
    pub config: usize,
    pub write_outputs: bool,
    pub inputs: Seed,
}

pub fn draw(seed: u64, run: usize, pool_size: usize) -> Draw {
    let mut prg = stream(seed, run as u64);
    let picked = below(&mut prg, pool_size);
    Draw {
        config: if run < pool_size { run } else { picked },
        write_outputs: below(&mut prg, 4) == 0,
        inputs: prg.next_seed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_follows_from_the_seed_and_holds_every_protocol_and_transport() {
        let circuits = circuits().expect("generated");
        let pool = pool(7, Protocol::ALL.len(), &circuits);
        assert_eq!(pool, super::pool(7, Protocol::ALL.len(), &circuits));
        assert_ne!(pool, super::pool(8, Protocol::ALL.len(), &circuits));
        for p in Protocol::ALL {
            assert_eq!(pool.iter().filter(|c| c.protocol == p).count(), 1, "{p}");
        }
        for t in TRANSPORTS {
            assert!(pool.iter().any(|c| c.transport == t));
        }
        for c in &pool {
            assert!(takes(c.protocol, &circuits[c.circuit]));
            assert!(affordable(c.protocol, &circuits[c.circuit], c.batch));
        }
    }

    #[test]
    fn circuits_go_to_the_protocols_whose_row_takes_them() {
        let circuits = circuits().expect("generated");
        let by_name = |n: &str| circuits.iter().find(|c| c.name == n).expect("listed");
        assert!(!by_name("aes128").mixes_domains() && by_name("aes128").circuit.is_boolean());
        assert!(!by_name("vecmat4-z64").mixes_domains());
        assert!(by_name("max4-z64").mixes_domains());
        for p in Protocol::ALL {
            let d = p.descriptor();
            assert!(takes(p, by_name("adder32")), "{p}");
            assert_eq!(takes(p, by_name("vecmat4-z64")), d.rings, "{p}");
            assert_eq!(
                takes(p, by_name("max4-z64")),
                d.rings && d.conversions,
                "{p}"
            );
        }
        // Garbling takes no ring circuit, so every pool gives it a Boolean one.
        assert!(!takes(Protocol::Bgw3, by_name("table-sum-mean")));
        assert!(takes(Protocol::Trio, by_name("table-sum-mean")));
    }

    #[test]
    fn warm_up_runs_take_the_pool_in_order_and_later_runs_draw_from_it() {
        let drawn: Vec<Draw> = (0..200).map(|r| draw(3, r, 10)).collect();
        assert!((0..10).all(|r| drawn[r].config == r));
        assert!(drawn.iter().all(|d| d.config < 10));
        let later: std::collections::BTreeSet<usize> =
            drawn[10..].iter().map(|d| d.config).collect();
        assert_eq!(later.len(), 10, "every configuration drawn in 190 runs");
        assert!(drawn.iter().any(|d| d.write_outputs));
        assert!(drawn.iter().any(|d| !d.write_outputs));
        assert_eq!(draw(3, 42, 10), drawn[42], "a run is drawn alike alone");
        assert_ne!(draw(3, 42, 10).inputs, draw(3, 43, 10).inputs);
    }
}
