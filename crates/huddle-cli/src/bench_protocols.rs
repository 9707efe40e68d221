//! `huddle bench protocols`: every protocol on the same circuits and batch,
//! next to the trusted third party measured in the same run.
//!
//! Gate throughput is measured on layered circuits (`width` products per
//! layer, each layer multiplying neighbours of the previous one), so that
//! multiplications, not input sharing, dominate; AES-128 is the public
//! Bristol circuit with its key schedule where the collection is found,
//! else the generated one (`huddle circuit gen aes128`), as the header says.

use huddle_circuit::random::random_inputs;
use huddle_circuit::{BitMatrix, Circuit, CircuitAssembler, Format, Op, ValueSpec};
use huddle_core::{Prg, RingWidth};
use huddle_engine::protocol::PartyRule;
use huddle_engine::Protocol;
use huddle_net::{local_networks, memory_networks, Handshake, NetProfile, Network, Phase};
use serde_json::{json, Map, Value};
use std::time::{Duration, Instant};

/// `depth` layers of `width` 2-input products: layer d multiplies wire j and
/// wire j + 1 (mod width) of layer d - 1. Boolean ANDs without a ring.
pub fn product_layers(width: u32, depth: u32, ring: Option<RingWidth>) -> Circuit {
    let op = if ring.is_some() { Op::Mul } else { Op::And };
    product_layers_of(op, width, depth, ring)
}

/// [`product_layers`] with the 2-input gate `op` (AND, MUL, DOT or DOTTR).
pub fn product_layers_of(op: Op, width: u32, depth: u32, ring: Option<RingWidth>) -> Circuit {
    let value = |name: &str, n: u32| match ring {
        None => ValueSpec::bits(name, n),
        Some(_) => ValueSpec::ring(name, n),
    };
    let mut asm = CircuitAssembler::new(
        u64::from(width) * u64::from(depth + 2),
        ring,
        vec![value("a", width), value("b", width)],
    )
    .expect("valid");
    let mut prev: Vec<u32> = (0..width).collect();
    let mut next_wire = 2 * width;
    for d in 0..depth {
        let mut layer = Vec::with_capacity(width as usize);
        for j in 0..width {
            let (a, b) = if d == 0 {
                (j, width + j)
            } else {
                (prev[j as usize], prev[((j + 1) % width) as usize])
            };
            asm.push(op, &[a, b], &[next_wire]).expect("product");
            layer.push(next_wire);
            next_wire += 1;
        }
        prev = layer;
    }
    asm.finish(vec![(value("c", width), prev)]).expect("valid")
}

/// One timed run of `protocol` with all parties on this machine.
pub struct Timing {
    pub wall: Duration,
    pub rounds: u32,
}

pub fn time_run(
    protocol: Protocol,
    circuit: &Circuit,
    inputs: &[BitMatrix],
    setup: &Setup,
) -> Result<Timing, String> {
    let (tcp, threads) = (setup.tcp, setup.threads);
    let parties = match protocol.descriptor().parties {
        _ if protocol == Protocol::Ttp => setup.ttp_parties,
        rule => rule.default_count(),
    };
    let timeout = Duration::from_secs(300);
    let nets: Vec<Network> = if tcp {
        let hs = Handshake {
            session: "bench".into(),
            settings: {
                let mut s = huddle_net::Settings::new();
                s.option("protocol", huddle_net::Value::Text(protocol.name().into()));
                s
            },
            circuit: huddle_engine::circuit_hash(circuit),
        };
        local_networks(parties, false, hs, setup.net.clone(), timeout).map_err(|e| e.to_string())?
    } else {
        memory_networks(parties, &setup.net, timeout)
    };
    let options = huddle_engine::RunOptions::default()
        .with_threads(threads)
        .with_share_memory(setup.share_memory)
        .with_truncation(setup.truncation);
    // Checked before the clock starts: the check compiles the circuit once
    // more, which the run does not need.
    let run = huddle_engine::Run::builder(protocol)
        .parties(parties)
        .circuit(circuit.clone())
        .options(options)
        .build()
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    let report = run.local_over(nets, inputs).map_err(|e| e.to_string())?;
    let wall = start.elapsed();
    Ok(Timing {
        wall,
        rounds: report.accounting.rounds(Phase::Online),
    })
}

/// What `huddle bench protocols` measures.
pub struct Setup {
    pub batch: usize,
    pub tcp: bool,
    pub threads: usize,
    /// Only this protocol besides the TTP.
    pub only: Option<String>,
    /// Runs per measurement (median reported).
    pub repeat: usize,
    pub share_memory: usize,
    /// The emulated network of every run.
    pub net: NetProfile,
    /// Parties of the TTP baseline: those of the protocol benchmarked
    /// (`only`), else 3.
    pub ttp_parties: usize,
    /// Report marginal rates (see `huddle bench protocols --help`).
    pub marginal: bool,
    /// How DOTTR truncates.
    pub truncation: huddle_engine::Truncation,
}

/// A workload (`make(1)`) and, for marginal rates only, its doubled
/// version (`make(2)`: twice the depth or the batch).
struct Doubled<T> {
    base: T,
    doubled: Option<T>,
}

impl<T> Doubled<T> {
    fn new(marginal: bool, mut make: impl FnMut(u32) -> T) -> Doubled<T> {
        Doubled {
            base: make(1),
            doubled: marginal.then(|| make(2)),
        }
    }

    /// The doubled workload when `twice` (asked only for marginal rates).
    fn get(&self, twice: bool) -> &T {
        match (twice, &self.doubled) {
            (true, Some(d)) => d,
            _ => &self.base,
        }
    }
}

/// Work per second: `work` over `time`, or with `marginal` the extra work
/// of the larger run (`work` again) over its extra time, from `run(false)`
/// (the plain run) and `run(true)` (the doubled one). The plain run's rounds.
fn rate(
    work: f64,
    marginal: bool,
    run: impl Fn(bool) -> Result<Timing, String>,
) -> Result<(f64, u32), String> {
    if !marginal {
        let base = run(false)?;
        return Ok((work / base.wall.as_secs_f64(), base.rounds));
    }
    // The doubled run first: a process's first run also pays for memory
    // fresh from the kernel, which would flatter the difference.
    let doubled = run(true)?;
    let base = run(false)?;
    let extra = doubled.wall.saturating_sub(base.wall).as_secs_f64();
    if extra <= 0.0 {
        return Err(format!(
            "the doubled run took no longer ({:?} against {:?}): too noisy a machine \
             for marginal rates; use --repeat",
            doubled.wall, base.wall
        ));
    }
    Ok((work / extra, base.rounds))
}

/// The median wall time (and its run's online rounds) of `repeat` runs.
fn median_run(
    protocol: Protocol,
    circuit: &Circuit,
    inputs: &[BitMatrix],
    setup: &Setup,
) -> Result<Timing, String> {
    let mut runs = (0..setup.repeat)
        .map(|_| time_run(protocol, circuit, inputs, setup))
        .collect::<Result<Vec<_>, _>>()?;
    runs.sort_by_key(|t| t.wall);
    Ok(runs.swap_remove(runs.len() / 2))
}

pub fn run(
    as_json: bool,
    mut setup: Setup,
    circuits: Option<std::path::PathBuf>,
    plot: Option<&std::path::Path>,
) -> Result<(), String> {
    let (batch, tcp, threads) = (setup.batch, setup.tcp, setup.threads);
    let only = setup
        .only
        .as_deref()
        .map(Protocol::parse)
        .transpose()
        .map_err(|e| e.to_string())?;
    setup.ttp_parties = match only.map(|p| p.descriptor().parties) {
        Some(PartyRule::Exactly(n)) => n,
        _ => 3,
    };
    let mut prg = Prg::from_seed([21; 16]);
    let mut report = Map::new();
    let mut lines = Vec::new();
    let (width, depth) = (1024u32, 64u32);
    // With --marginal, also twice as deep (ANDs, mults) or twice the batch (AES).
    let marginal = setup.marginal;
    let ands = Doubled::new(marginal, |k| product_layers(width, k * depth, None));
    let and_inputs = random_inputs(&ands.base, &mut prg, batch);
    // Ring elements are one per instance: fewer instances for the same work.
    let ring_batch = (batch / 16).max(64);
    let (mwidth, mdepth) = (256u32, 32u32);
    let mults: Vec<(RingWidth, Doubled<Circuit>, Vec<BitMatrix>)> =
        [RingWidth::W32, RingWidth::W64]
            .into_iter()
            .map(|r| {
                let c = Doubled::new(marginal, |k| product_layers(mwidth, k * mdepth, Some(r)));
                let inputs = random_inputs(&c.base, &mut prg, ring_batch);
                (r, c, inputs)
            })
            .collect();
    let dir = circuits.or_else(|| {
        std::env::current_dir()
            .ok()
            .and_then(|d| huddle_circuit::corpus::locate(&d))
    });
    // The public circuit where the collection is found, else the one
    // `huddle circuit gen aes128` writes (same inputs and outputs, its own
    // S-boxes): either way AES is measured, and the header says which.
    let public_aes = dir
        .map(|d| d.join("aes_128.txt"))
        .filter(|p| p.is_file())
        .map(|p| huddle_circuit::read_circuit_file(&p, Format::Auto))
        .transpose()
        .map_err(|e| e.to_string())?;
    let aes_source = if public_aes.is_some() {
        "the public aes_128.txt"
    } else {
        "generated by `circuit gen aes128`"
    };
    let aes = match public_aes {
        Some(c) => c,
        None => huddle_circuit::gen::generate("aes128", 128, 2)?,
    };
    let aes_batch = batch;
    let aes_inputs = Doubled::new(marginal, |k| {
        random_inputs(&aes, &mut prg, k as usize * aes_batch)
    });
    let chosen = Protocol::ALL
        .into_iter()
        // Garbling has its own benchmark (`huddle bench garble`).
        .filter(|p| p.garbling().is_none())
        // The TTP has no per-layer cost to measure at the margin.
        .filter(|&p| !(setup.marginal && p == Protocol::Ttp))
        .filter(|&p| p == Protocol::Ttp || only.is_none_or(|o| o == p));
    for protocol in chosen {
        let info = protocol.descriptor();
        let mut entry = Map::new();
        let gates = f64::from(width * depth) * batch as f64;
        let (rate_and, _) = rate(gates, setup.marginal, |twice| {
            median_run(protocol, ands.get(twice), &and_inputs, &setup)
        })?;
        entry.insert("and_gates_per_second".into(), json!(rate_and));
        let mut line = format!("{:<11} {:.3e} AND/s", info.name, rate_and);
        for (r, c, inputs) in &mults {
            let work = f64::from(mwidth * mdepth) * ring_batch as f64;
            let (rate_mult, _) = rate(work, setup.marginal, |twice| {
                median_run(protocol, c.get(twice), inputs, &setup)
            })?;
            entry.insert(format!("mult{}_per_second", r.bits()), json!(rate_mult));
            line.push_str(&format!(", {rate_mult:.3e} mult{}/s", r.bits()));
        }
        let (blocks, rounds) = rate(aes_batch as f64, setup.marginal, |twice| {
            median_run(protocol, &aes, aes_inputs.get(twice), &setup)
        })?;
        entry.insert("aes128_blocks_per_second".into(), json!(blocks));
        entry.insert("aes128_online_rounds".into(), json!(rounds));
        line.push_str(&format!(
            ", {blocks:.3e} AES-128 blocks/s ({rounds} rounds)"
        ));
        report.insert(info.name.into(), Value::Object(entry));
        lines.push(line);
    }
    let header = format!(
        "huddle bench protocols ({}, network {}, all parties on this machine, {threads} thread(s) each, \
         median of {} run(s); \
         ANDs: {width} x {depth} layers x {batch} instances; mults: {mwidth} x {mdepth} x \
         {ring_batch}; AES: {aes_batch} blocks of {aes_source}; {})",
        if tcp { "loopback TCP" } else { "in memory" },
        setup.net.name,
        setup.repeat,
        if setup.marginal {
            "marginal rates: extra gates of twice the depth, extra AES blocks of twice the batch, \
             over the extra time"
        } else {
            "times include setup, input sharing and output"
        }
    );
    if let Some(path) = plot {
        crate::plot::protocols(path, &header, &report)?;
    }
    crate::stdout::print_report(as_json, &header, report, &lines)
}
