//! `huddle app ...`: applications with their own inputs and outputs, run by
//! every party on this machine and checked against plain Rust.

use crate::failure::Failure;
use crate::run::{run_all, TransportArg};
use clap::{Args, Subcommand};
use huddle_circuit::apps::{dna_codes, edit_distance, edit_distance_plain, DNA};
use huddle_circuit::BitMatrix;
use huddle_core::{Prg, RingWidth};
use huddle_engine::{Protocol, Run, RunOptions};
use huddle_net::{NetProfile, Phase};
use serde_json::{json, Value};
use std::collections::BTreeMap;

#[derive(Subcommand)]
pub enum AppCommand {
    /// Exact edit distance of two DNA strings, party 0's and party 1's
    /// (Ohata–Nuida Section 5.3): prints the distance, checked against the
    /// plaintext dynamic program, with rounds, bytes and seconds.
    EditDistance(EditDistanceArgs),
}

#[derive(Args)]
pub struct EditDistanceArgs {
    /// Party 0's string (letters A, C, G, T).
    #[arg(long)]
    pub a: String,
    /// Party 1's string.
    #[arg(long)]
    pub b: String,
    #[command(flatten)]
    pub run: EditDistanceRun,
}

/// How an edit-distance run goes (shared with `huddle bench edit-distance`).
#[derive(Args, Clone)]
pub struct EditDistanceRun {
    /// The protocol (`huddle protocols`); ca2pc is the paper's.
    #[arg(long, default_value = "ca2pc")]
    pub protocol: String,
    /// Ring width of the distances (the paper's 16; strings up to 2^(bits−2)).
    #[arg(long, default_value_t = 16)]
    pub bits: u32,
    /// Emulated network: lan, wan, aws3, hetero4 or a profile .toml.
    #[arg(long, default_value = "lan")]
    pub net: String,
    #[arg(long, value_enum, default_value_t = TransportArg::Memory)]
    pub transport: TransportArg,
    /// Secret-sharing protocols: at most N operands per product in a round.
    #[arg(long, value_name = "N")]
    pub max_fan_in: Option<usize>,
    /// Seconds a party waits for any one message (party 0 of MFI-3PC and
    /// Trio waits for the output while the others compute).
    #[arg(long, default_value_t = 600, value_name = "SECONDS")]
    pub timeout: u64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: AppCommand) -> Result<(), Failure> {
    match cmd {
        AppCommand::EditDistance(args) => {
            let a = dna_codes(&args.a).map_err(|e| Failure::input(format!("--a: {e}")))?;
            let b = dna_codes(&args.b).map_err(|e| Failure::input(format!("--b: {e}")))?;
            let row = edit_distance_run(&args.run, &a, &b)?;
            if args.run.json {
                crate::stdout::output(pretty(&row.json())?)?;
            } else {
                crate::stdout::output(row.distance)?;
                eprintln!("{}", row.summary());
            }
            Ok(())
        }
    }
}

pub fn pretty(v: &Value) -> Result<String, Failure> {
    serde_json::to_string_pretty(v).map_err(|e| Failure::other(e.to_string()))
}

/// One measured edit-distance run.
pub struct EditDistanceRow {
    pub protocol: String,
    pub lengths: (usize, usize),
    pub distance: u64,
    pub rounds: u32,
    /// Online bytes over all links, and bytes sent ahead (offline and
    /// input-dependent preprocessing).
    pub online_bytes: u64,
    pub ahead_bytes: u64,
    pub seconds: f64,
    /// Bytes per phase and link (as `huddle local --json` reports them).
    pub bytes: huddle_engine::PerPhase<BTreeMap<String, u64>>,
}

impl EditDistanceRow {
    pub fn json(&self) -> Value {
        json!({
            "protocol": self.protocol, "lengths": [self.lengths.0, self.lengths.1],
            "distance": self.distance, "online_rounds": self.rounds,
            "online_bytes": self.online_bytes, "ahead_bytes": self.ahead_bytes,
            "wall_seconds": self.seconds, "bytes": self.bytes,
        })
    }

    pub fn summary(&self) -> String {
        format!(
            "{} letters vs {}, protocol {}: {} online rounds, {} bytes online (+ {} ahead), \
             {:.3} s, checked against the plaintext dynamic program",
            self.lengths.0,
            self.lengths.1,
            self.protocol,
            self.rounds,
            self.online_bytes,
            self.ahead_bytes,
            self.seconds
        )
    }
}

/// Computes the edit distance of the letter codes `a` (party 0's) and `b`
/// (party 1's) under `run`, refusing a result that differs from plain Rust.
pub fn edit_distance_run(
    run: &EditDistanceRun,
    a: &[u64],
    b: &[u64],
) -> Result<EditDistanceRow, Failure> {
    let ring = RingWidth::from_bits(run.bits).ok_or_else(|| {
        Failure::input(format!("--bits must be 8, 16, 32 or 64, not {}", run.bits))
    })?;
    let most = (1usize << (run.bits.min(31) - 2)).min(4096);
    for (name, s) in [("--a", a), ("--b", b)] {
        if !(1..=most).contains(&s.len()) {
            return Err(Failure::input(format!(
                "{name} has {} letters; edit distance over Z_2^{} takes 1 to {most}",
                s.len(),
                run.bits
            )));
        }
    }
    let protocol = Protocol::parse(&run.protocol).map_err(|e| Failure::input(e.to_string()))?;
    let circuit = edit_distance(a.len() as u32, b.len() as u32, ring);
    let parties = protocol.descriptor().parties.default_count();
    let options = RunOptions::default().with_max_fan_in(run.max_fan_in);
    let built = Run::builder(protocol)
        .parties(parties)
        .options(options)
        .circuit(circuit)
        .build()
        .map_err(|e| Failure::input(e.to_string()))?;
    let k = ring.bits() as usize;
    let letters = |codes: &[u64]| {
        let mut m = BitMatrix::zeros(1, codes.len() * k);
        for (j, &c) in codes.iter().enumerate() {
            m.row_mut(0)[j * k / 64] |= c << (j * k % 64);
        }
        m
    };
    let inputs = [letters(a), letters(b)];
    let profile = NetProfile::named(&run.net).map_err(|e| Failure::input(e.to_string()))?;
    let timeout = std::time::Duration::from_secs(run.timeout.max(1));
    let report = run_all(&built, &inputs, run.transport, profile, timeout)?;
    let distance = report.outputs[0].row(0)[0] & ring.mask();
    let want = edit_distance_plain(a, b);
    if distance != want {
        return Err(Failure::other(format!(
            "the parties computed distance {distance}, the plaintext dynamic program {want}"
        )));
    }
    let total = |phases: &[Phase]| -> u64 {
        phases
            .iter()
            .map(|&p| report.accounting.phase_total(p).bytes)
            .sum()
    };
    Ok(EditDistanceRow {
        protocol: run.protocol.clone(),
        lengths: (a.len(), b.len()),
        distance,
        rounds: report.online_rounds,
        online_bytes: total(&[Phase::Online]),
        ahead_bytes: total(&[Phase::Offline, Phase::Dependent]),
        seconds: report.wall_seconds,
        bytes: report.bytes.clone(),
    })
}

/// A random DNA string of `len` letters as codes.
pub fn random_dna(prg: &mut Prg, len: usize) -> Vec<u64> {
    (0..len)
        .map(|_| prg.next_u64() % DNA.len() as u64)
        .collect()
}

/// `huddle bench edit-distance`: every protocol at every length, random
/// strings (the same pair for every protocol at a length).
pub fn bench_edit_distance(
    lengths: &[usize],
    protocols: &[String],
    run: EditDistanceRun,
    plot: Option<&std::path::Path>,
) -> Result<(), Failure> {
    let mut prg = Prg::from_seed([7; 16]);
    let mut rows = Vec::new();
    if !run.json {
        println!("edit distance, random DNA strings, --net {}", run.net);
        println!(
            "{:>6} {:>10} {:>8} {:>14} {:>14} {:>10} {:>8}",
            "L", "protocol", "rounds", "online bytes", "bytes ahead", "seconds", "distance"
        );
    }
    for &len in lengths {
        let (a, b) = (random_dna(&mut prg, len), random_dna(&mut prg, len));
        for protocol in protocols {
            let this = EditDistanceRun {
                protocol: protocol.clone(),
                ..run.clone()
            };
            let row = edit_distance_run(&this, &a, &b)?;
            rows.push(row.json());
            if !run.json {
                println!(
                    "{:>6} {:>10} {:>8} {:>14} {:>14} {:>10.3} {:>8}",
                    len,
                    protocol,
                    row.rounds,
                    row.online_bytes,
                    row.ahead_bytes,
                    row.seconds,
                    row.distance
                );
            }
        }
    }
    if let Some(path) = plot {
        let title = format!(
            "huddle bench edit-distance: random DNA strings of lengths {lengths:?}, --net {}, \
             whole-run wall seconds",
            run.net
        );
        crate::plot::seconds_against_rounds(path, &title, &rows).map_err(Failure::output)?;
    }
    if run.json {
        println!("{}", pretty(&Value::Array(rows))?);
    }
    Ok(())
}

/// `huddle bench functions`: 64-bit multiplications, comparisons and
/// equality tests per second at a batch over `transport`, the trusted third
/// party's rate beside each (measured in the same run). Times are the wall
/// time of the whole run (setup, inputs, outputs included).
pub fn bench_functions(
    protocol: &str,
    batch: usize,
    layers: u32,
    transport: TransportArg,
    repeat: usize,
    max_fan_in: Option<usize>,
    json: bool,
) -> Result<(), Failure> {
    use huddle_circuit::apps::pairwise;
    use huddle_circuit::builder::Builder;
    use huddle_circuit::Op;
    let ring = RingWidth::W64;
    // `layers` rounds of one product per instance each: y_j = y_(j−1)·x.
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", 1)[0];
    let y = b.ring_input("y", 1)[0];
    let mut z = y;
    for _ in 0..layers {
        z = b.ring_op(Op::Mul, &[z, x]);
    }
    b.ring_output("z", vec![z]);
    let chain = b.finish();
    let workloads = [
        ("mult64", chain, u64::from(layers)),
        ("lt64", pairwise(1, ring, true), 1),
        ("eq64", pairwise(1, ring, false), 1),
    ];
    let mut prg = Prg::from_seed([8; 16]);
    let mut report = Vec::new();
    if !json {
        println!(
            "huddle bench functions ({} instances, transport {}, max fan-in {}, median of \
             {repeat}; whole runs: setup, inputs, outputs)",
            batch,
            match transport {
                TransportArg::Memory => "memory",
                TransportArg::Tcp => "loopback tcp",
                TransportArg::Tls => "loopback tls",
            },
            max_fan_in.map_or("the protocol's".into(), |f| f.to_string())
        );
    }
    for (name, circuit, per_instance) in &workloads {
        let inputs = huddle_circuit::random::random_inputs(circuit, &mut prg, batch);
        let mut rates = Vec::new();
        for p in ["ttp", protocol] {
            let protocol = Protocol::parse(p).map_err(|e| Failure::input(e.to_string()))?;
            let parties = protocol.descriptor().parties.default_count();
            let options = RunOptions::default().with_max_fan_in(max_fan_in.filter(|_| p != "ttp"));
            let built = Run::builder(protocol)
                .parties(parties)
                .options(options)
                .circuit(circuit.clone())
                .build()
                .map_err(|e| Failure::input(e.to_string()))?;
            let mut times = Vec::new();
            for _ in 0..repeat.max(1) {
                let lan = NetProfile::lan();
                let wait = std::time::Duration::from_secs(600);
                let report = run_all(&built, &inputs, transport, lan, wait)?;
                times.push(report.wall_seconds);
            }
            times.sort_by(f64::total_cmp);
            let median = times[times.len() / 2];
            rates.push((p, (batch as u64 * per_instance) as f64 / median));
        }
        if json {
            report.push(json!({"function": name, "rates": rates.iter()
                .map(|(p, r)| json!({"protocol": p, "per_second": r})).collect::<Vec<_>>()}));
        } else {
            let [(_, ttp), (p, rate)] = [rates[0], rates[1]];
            println!("  {name:<8} {p} {rate:.3e}/s   (ttp {ttp:.3e}/s)");
        }
    }
    if json {
        println!("{}", pretty(&Value::Array(report))?);
    }
    Ok(())
}
