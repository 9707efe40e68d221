//! `huddle bench ...`: throughput measurements. Every figure comes with a
//! baseline measured in the same run (a raw `a & b` loop over the same amount
//! of data), because these machines are shared and absolute numbers drift.

use clap::Subcommand;
use huddle_circuit::apps::Perceptron;
use huddle_circuit::eval::EvalOptions;
use huddle_circuit::{
    corpus, read_circuit, Circuit, CircuitAssembler, Format, Op, PlainEvaluator, ValueSpec, WireId,
};
use huddle_core::Prg;
use serde_json::{json, Value};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Subcommand)]
pub enum BenchCommand {
    /// The plaintext evaluator (trusted third party): AND gates/s on AND-only
    /// layers and AES-128 / SHA-256 blocks/s, each against a raw `a & b` loop,
    /// plus circuit parsing speed at 10 MB and 100 MB.
    Ttp {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Time budget per measurement, in seconds (the best repetition counts).
        #[arg(long, default_value_t = 1.0)]
        seconds: f64,
        /// Folder of the public circuit collection (default: shared/circuits beside the repository, or $HUDDLE_CIRCUITS).
        #[arg(long)]
        circuits: Option<PathBuf>,
        /// Skip the 100 MB parsing measurement.
        #[arg(long)]
        quick: bool,
    },
    /// Every protocol on independent ANDs, ring products and AES-128 (the
    /// public circuit where the collection is found, else the generated
    /// one), next to the trusted third party.
    Protocols {
        #[arg(long)]
        json: bool,
        /// Instances per run.
        #[arg(long, default_value_t = 65536)]
        batch: usize,
        /// Loopback TCP instead of in-memory channels.
        #[arg(long)]
        tcp: bool,
        /// Worker threads (lanes) per party.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Only this protocol (and the TTP baseline).
        #[arg(long)]
        protocol: Option<String>,
        /// Runs per measurement; the median is reported (shared machines are noisy).
        #[arg(long, default_value_t = 1)]
        repeat: usize,
        /// MiB of shares per party at once (larger batches run in slices).
        #[arg(long, default_value_t = huddle_engine::DEFAULT_SHARE_MEMORY_MIB, value_name = "MIB")]
        share_memory: usize,
        #[arg(long)]
        circuits: Option<PathBuf>,
        /// Emulated network: lan, wan, aws3, hetero4 or a profile .toml.
        #[arg(long, default_value = "lan")]
        net: String,
        /// Also draw the figures (one panel per quantity, the TTP beside
        /// every protocol) into this SVG file.
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<PathBuf>,
        /// Marginal rates: the gates of extra layers (twice the depth) or the
        /// extra AES blocks (twice the batch) over the extra time. This cancels
        /// what a run pays once (setup, input sharing, outputs, the fixed
        /// rounds of verification): the multiplication throughput that the
        /// papers report.
        #[arg(long)]
        marginal: bool,
    },
    /// Exact edit distance of random DNA strings (Ohata–Nuida Table 3's
    /// shape): per protocol and length, online rounds, bytes and seconds
    /// (run it with --net lan and --net wan), each result checked against
    /// the plaintext dynamic program.
    EditDistance {
        /// String lengths L (both strings).
        #[arg(long, value_delimiter = ',', default_value = "4,8,16,32,64,128")]
        lengths: Vec<usize>,
        /// Protocols, one after another for each length.
        #[arg(long, value_delimiter = ',', default_value = "ca2pc,mfi3,trio")]
        protocols: Vec<String>,
        #[command(flatten)]
        run: crate::app_cmd::EditDistanceRun,
        /// Also draw seconds against online rounds (one line per protocol
        /// through its lengths) into this SVG file.
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<PathBuf>,
    },
    /// 64-bit multiplications, comparisons (full range) and equality tests
    /// per second at a batch, for one protocol next to the trusted third
    /// party (the functions of Ohata–Nuida's benchmarks).
    Functions {
        /// The protocol.
        #[arg(long, default_value = "ca2pc")]
        protocol: String,
        /// Instances per run.
        #[arg(long, default_value_t = 1_000_000)]
        batch: usize,
        /// Rounds of multiplications (one product per instance each).
        #[arg(long, default_value_t = 20)]
        layers: u32,
        #[arg(long, value_enum, default_value_t = crate::run::TransportArg::Tcp)]
        transport: crate::run::TransportArg,
        /// Runs per measurement; the median is reported.
        #[arg(long, default_value_t = 3)]
        repeat: usize,
        /// At most N operands per product in a round (fewer rounds cost
        /// more computation: for throughput at large batches try 4).
        #[arg(long, value_name = "N")]
        max_fan_in: Option<usize>,
        #[arg(long)]
        json: bool,
    },
    /// Mixed and fixed-point workloads over Z_2^64 on every secret-sharing
    /// protocol that runs them, next to the trusted third party in the same
    /// run: vector-matrix products (seconds and ratio to the TTP),
    /// multiplications with and without truncation (fused where the
    /// protocol has it), A2B and B2A against the 64-bit adder, perceptron
    /// inferences.
    FixedPoint {
        #[arg(long)]
        json: bool,
        /// Matrix sizes of the vector-matrix products.
        #[arg(long, default_value = "128,256,512,1024", value_delimiter = ',')]
        sizes: Vec<u32>,
        /// Instances of each vector-matrix product.
        #[arg(long, default_value_t = 4)]
        vecmat_batch: usize,
        /// Instances of the multiplication and conversion workloads.
        #[arg(long, default_value_t = 1024)]
        batch: usize,
        /// Perceptron INPUTS,HIDDEN,OUTPUTS.
        #[arg(long, default_value = "784,128,10", value_delimiter = ',')]
        perceptron: Vec<u32>,
        /// Perceptron inferences per run.
        #[arg(long, default_value_t = 10)]
        perceptron_batch: usize,
        /// Workloads: vecmat, mult, convert, perceptron (comma list).
        #[arg(
            long,
            default_value = "vecmat,mult,convert,perceptron",
            value_delimiter = ',',
            value_parser = ["vecmat", "mult", "convert", "perceptron"]
        )]
        only: Vec<String>,
        /// Only this protocol (and the TTP).
        #[arg(long)]
        protocol: Option<String>,
        /// Alternating runs per measurement; medians are reported.
        #[arg(long, default_value_t = 3)]
        repeat: usize,
        /// Loopback TCP instead of in-memory channels.
        #[arg(long)]
        tcp: bool,
        /// Worker threads (lanes) per party.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Emulated network: lan, wan, aws3, hetero4 or a profile .toml.
        #[arg(long, default_value = "lan")]
        net: String,
    },
    /// Multiparty garbling (bgw3, bgw2, bgw2-mal) on AES-128 and SHA-256 for several
    /// party counts: seconds per phase, bytes and AND gates per second.
    Garble {
        #[arg(long)]
        json: bool,
        /// Party counts, comma separated.
        #[arg(long, default_value = "3,5,7,13", value_delimiter = ',')]
        parties: Vec<usize>,
        /// Instances (blocks) per run.
        #[arg(long, default_value_t = 8)]
        batch: usize,
        /// Runs per measurement; the median is reported.
        #[arg(long, default_value_t = 1)]
        repeat: usize,
        /// Optimizations on: reduced, short, prgzero, hypercube, subfield, all
        /// or none; or `ladder`: none, then each added in turn (the paper's
        /// Table 1, then ours).
        #[arg(long, default_value = huddle_engine::garble::Optimizations::DEFAULT_LIST)]
        opt: String,
        /// Emulated network: lan, wan, aws3, hetero4 or a profile .toml.
        #[arg(long, default_value = "lan")]
        net: String,
        /// Also draw each run's seconds per phase (stacked, per protocol
        /// and party count) into this SVG file.
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<PathBuf>,
    },
    /// Commands run in alternation (huddle and the frameworks it is measured
    /// against, built outside the repository, e.g. by ../shared/anchors):
    /// each one's median wall time, rate and peak memory, and the ratios to
    /// the first.
    Compare {
        /// LABEL=COMMAND (run by `sh -c`), at least twice; the first is the
        /// reference the ratios are taken to.
        #[arg(long = "cmd", value_name = "LABEL=COMMAND", required = true)]
        commands: Vec<String>,
        /// Rounds; each runs every command once (in rotated order).
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Work per run (e.g. 1024000 AES blocks), for a rate.
        #[arg(long)]
        work: Option<f64>,
        /// The unit of --work.
        #[arg(long, default_value = "items")]
        unit: String,
        #[arg(long)]
        json: bool,
    },
    /// One `Run::local` call of the library API timed on inputs already in
    /// memory (AES-128 on the FIPS-197 vector, or 64-bit products): the
    /// reference python/benches/overhead.py measures `huddle.run_local`
    /// against.
    Library {
        /// The workload.
        #[arg(long, value_enum)]
        case: crate::bench_library::Case,
        /// Instances.
        #[arg(long, default_value_t = 1_000_000)]
        batch: usize,
        /// The protocol.
        #[arg(long, default_value = "trio")]
        protocol: String,
        /// Calls timed (each printed, and their median).
        #[arg(long, default_value_t = 1)]
        repeat: usize,
        /// Untimed calls first.
        #[arg(long, default_value_t = 1)]
        warmup: usize,
        /// After the warm-up, print the circuit hash as a JSON line, then
        /// time one call per line read from stdin, each printed as a JSON
        /// line (for a caller that alternates them with its own runs).
        #[arg(long)]
        on_request: bool,
        /// Worker threads (lanes) per party.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        #[arg(long)]
        json: bool,
    },
    /// The transport: loopback throughput of TCP and TLS with large batched
    /// rounds, and small-message round trips, each next to a raw socket
    /// measured in the same run; and one AES block under Trio in memory,
    /// over TCP and over TLS, against its bound (the run in memory plus
    /// two raw round trips per round).
    Net {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// MiB each party sends per direction and measurement.
        #[arg(long, default_value_t = 256)]
        mib: usize,
        /// Round trips timed for latency.
        #[arg(long, default_value_t = 5000)]
        round_trips: usize,
    },
    /// Random protocols, circuits, batches, transports and threads back to
    /// back, each run checked against the plaintext evaluator, for
    /// --minutes: runs, failures and memory per configuration; fails (exit
    /// 9) on any failed run or a resident set that grew.
    Soak(crate::bench_soak::SoakArgs),
    /// The time model and the planner against measured runs: for a fixed
    /// list of cases (circuit, security class, network, batch) with every
    /// party on this host, each candidate protocol's best choice (and the
    /// ranking's first few) predicted and run; per row predicted against
    /// measured online and total seconds, per case whether the pick is
    /// within 10 % of the fastest measured, and the shares of both.
    Plan(crate::bench_plan::PlanBenchArgs),
    /// Kill (SIGKILL) or stall (SIGSTOP) a random party of `huddle party`
    /// runs at a random moment of each stage (setup, preprocessing, online,
    /// verification, reveal): every other party must stop naming it (or
    /// finish right), no output file half-written, and the job must run
    /// again (a dealt job: refused as spent); fails (exit 9) otherwise.
    /// Linux only.
    #[cfg(target_os = "linux")]
    Chaos(crate::chaos::ChaosArgs),
}

pub fn run(cmd: BenchCommand) -> Result<(), crate::failure::Failure> {
    match cmd {
        // Their verdicts have an exit code of their own.
        BenchCommand::Soak(args) => crate::bench_soak::run(args),
        #[cfg(target_os = "linux")]
        BenchCommand::Chaos(args) => crate::chaos::run(args),
        measurement => measure(measurement).map_err(crate::failure::Failure::other),
    }
}

/// The measurements, whose failures exit with 1.
fn measure(cmd: BenchCommand) -> Result<(), String> {
    match cmd {
        BenchCommand::Soak(args) => crate::bench_soak::run(args).map_err(|f| f.message),
        #[cfg(target_os = "linux")]
        BenchCommand::Chaos(args) => crate::chaos::run(args).map_err(|f| f.message),
        BenchCommand::Plan(args) => crate::bench_plan::run(args),
        BenchCommand::Compare {
            commands,
            runs,
            work,
            unit,
            json,
        } => crate::bench_compare::run(crate::bench_compare::Compare {
            commands: commands
                .iter()
                .map(|c| crate::bench_compare::parse_command(c))
                .collect::<Result<_, _>>()?,
            runs,
            work,
            unit,
            json,
        }),
        BenchCommand::Functions {
            protocol,
            batch,
            layers,
            transport,
            repeat,
            max_fan_in,
            json,
        } => crate::app_cmd::bench_functions(
            &protocol, batch, layers, transport, repeat, max_fan_in, json,
        )
        .map_err(|f| f.message),
        BenchCommand::EditDistance {
            lengths,
            protocols,
            run,
            plot,
        } => crate::app_cmd::bench_edit_distance(&lengths, &protocols, run, plot.as_deref())
            .map_err(|f| f.message),
        BenchCommand::Protocols {
            json,
            batch,
            tcp,
            threads,
            protocol,
            repeat,
            share_memory,
            circuits,
            net,
            marginal,
            plot,
        } => crate::bench_protocols::run(
            json,
            crate::bench_protocols::Setup {
                batch: batch.max(64),
                tcp,
                threads: threads.max(1),
                only: protocol,
                repeat: repeat.max(1),
                share_memory: share_memory.max(1) << 20,
                net: huddle_net::NetProfile::named(&net).map_err(|e| e.to_string())?,
                ttp_parties: 3,
                marginal,
                truncation: huddle_engine::Truncation::Exact,
            },
            circuits,
            plot.as_deref(),
        ),
        BenchCommand::Garble {
            json,
            parties,
            batch,
            repeat,
            opt,
            net,
            plot,
        } => crate::bench_garble::run(
            json,
            plot.as_deref(),
            crate::bench_garble::Setup {
                parties: parties.into_iter().filter(|&n| n >= 3).collect(),
                batch: batch.max(1),
                repeat: repeat.max(1),
                opts: if opt == "ladder" {
                    [
                        "none",
                        "reduced",
                        "reduced,short",
                        "reduced,short,prgzero",
                        "reduced,short,prgzero,subfield",
                        "all",
                    ]
                    .iter()
                    .map(|o| huddle_engine::garble::Optimizations::parse(o))
                    .collect::<Result<_, _>>()?
                } else {
                    vec![huddle_engine::garble::Optimizations::parse(&opt)
                        .map_err(|e| format!("--opt: {e}"))?]
                },
                net: huddle_net::NetProfile::named(&net).map_err(|e| e.to_string())?,
            },
        ),
        BenchCommand::FixedPoint {
            json,
            sizes,
            vecmat_batch,
            batch,
            perceptron,
            perceptron_batch,
            only,
            protocol,
            repeat,
            tcp,
            threads,
            net,
        } => {
            let [inputs, hidden, outputs] = perceptron[..] else {
                return Err("--perceptron takes INPUTS,HIDDEN,OUTPUTS".into());
            };
            crate::bench_fixed::run(
                json,
                crate::bench_protocols::Setup {
                    batch: batch.max(1),
                    tcp,
                    threads: threads.max(1),
                    only: None,
                    repeat: repeat.max(1),
                    share_memory: huddle_engine::DEFAULT_SHARE_MEMORY_MIB << 20,
                    net: huddle_net::NetProfile::named(&net).map_err(|e| e.to_string())?,
                    ttp_parties: 3,
                    marginal: false,
                    truncation: huddle_engine::Truncation::Exact,
                },
                crate::bench_fixed::Options {
                    sizes: sizes.into_iter().filter(|&n| n > 0).collect(),
                    vecmat_batch: vecmat_batch.max(1),
                    batch: batch.max(1),
                    shape: Perceptron {
                        inputs,
                        hidden,
                        outputs,
                        frac: 16,
                    },
                    perceptron_batch: perceptron_batch.max(1),
                    only: protocol
                        .as_deref()
                        .map(huddle_engine::Protocol::parse)
                        .transpose()
                        .map_err(|e| e.to_string())?,
                    workloads: only,
                },
            )
        }
        BenchCommand::Library {
            case,
            batch,
            protocol,
            repeat,
            warmup,
            on_request,
            threads,
            json,
        } => crate::bench_library::run(crate::bench_library::Setup {
            case,
            protocol: huddle_engine::Protocol::parse(&protocol).map_err(|e| e.to_string())?,
            batch: batch.max(1),
            repeat: repeat.max(1),
            warmup,
            threads: threads.max(1),
            json,
            on_request,
        }),
        BenchCommand::Net {
            json,
            mib,
            round_trips,
        } => crate::bench_net::run(json, mib.max(1), round_trips.max(1)),
        BenchCommand::Ttp {
            json,
            seconds,
            circuits,
            quick,
        } => ttp(
            json,
            Duration::from_secs_f64(seconds.max(0.05)),
            circuits,
            quick,
        ),
    }
}

/// Runs `f` repeatedly for about `budget` (at least twice) and returns the fastest run.
fn best_time(budget: Duration, mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    let mut best = Duration::MAX;
    let mut runs = 0;
    while runs < 2 || start.elapsed() < budget {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed());
        runs += 1;
    }
    best
}

/// `layers` layers of `width` 2-input ANDs, each reading the layer before; the
/// last layer is the output, so no gate is dead.
fn and_layers(width: u32, layers: u32) -> Circuit {
    let inputs = 128;
    let total = inputs + width * layers;
    let mut asm = CircuitAssembler::new(
        u64::from(total),
        None,
        vec![ValueSpec::bits("a", 64), ValueSpec::bits("b", 64)],
    )
    .expect("inputs fit");
    let mut prev: Vec<WireId> = (0..inputs).collect();
    let mut next = inputs;
    for _ in 0..layers {
        let layer: Vec<WireId> = (0..width).map(|j| next + j).collect();
        for j in 0..width as usize {
            let (a, b) = (prev[j % prev.len()], prev[(j + 1) % prev.len()]);
            asm.push(Op::And, &[a, b], &[layer[j]])
                .expect("well formed");
        }
        next += width;
        prev = layer;
    }
    asm.finish(vec![(ValueSpec::bits("out", width), prev)])
        .expect("all wires written")
}

/// The raw baseline: `ops` word-ANDs streamed over an arena of `slots` x `words`
/// words, reading two slots and writing a third, like the evaluator but with no
/// instruction dispatch. Returns the time for all `ops`.
fn raw_and_loop(slots: usize, words: usize, ops: u64, budget: Duration) -> Duration {
    let slots = slots.max(3);
    let mut arena = vec![0x5555_5555_5555_5555u64; slots * words];
    let passes = ops / words as u64;
    best_time(budget, || {
        let mut s = 0usize;
        for _ in 0..passes {
            let (a, b, o) = (s, (s + 1) % slots, (s + 2) % slots);
            let (lo, hi) = arena.split_at_mut(o * words);
            let (out, hi) = hi.split_at_mut(words);
            let x = if a < o {
                &lo[a * words..][..words]
            } else {
                &hi[(a - o - 1) * words..][..words]
            };
            let y = if b < o {
                &lo[b * words..][..words]
            } else {
                &hi[(b - o - 1) * words..][..words]
            };
            for ((z, p), q) in out.iter_mut().zip(x).zip(y) {
                *z = p & q;
            }
            s = (s + 1) % slots;
        }
        black_box(&mut arena);
    })
}

/// Evaluates `c` on `instances` random instances with `threads` threads; returns
/// the best time, the evaluator's slots and chunk words.
fn time_circuit(
    c: &Circuit,
    instances: usize,
    threads: usize,
    budget: Duration,
) -> Result<(Duration, usize, usize), String> {
    let eval = PlainEvaluator::with_options(
        c,
        EvalOptions {
            chunk_words: None,
            threads,
        },
    );
    let inputs = huddle_circuit::random::random_inputs(c, &mut Prg::from_seed([5; 16]), instances);
    let mut err = None;
    let t = best_time(budget, || {
        if let Err(e) = eval.evaluate(black_box(&inputs)) {
            err = Some(e.to_string());
        }
    });
    err.map_or(Ok(()), Err)?;
    let words = eval.program().default_chunk_words();
    Ok((t, eval.program().slots().0, words))
}

fn ttp(
    as_json: bool,
    budget: Duration,
    circuits: Option<PathBuf>,
    quick: bool,
) -> Result<(), String> {
    let mut report = serde_json::Map::new();
    let mut lines = Vec::new();
    // Which build of the evaluator's kernel the timings are of.
    let kernels = huddle_core::simd::kernels();
    report.insert("vector_kernels".into(), json!(kernels));

    // 1. AND-only layers.
    let (width, layers, instances) = (256u32, 128u32, 1usize << 16);
    let c = and_layers(width, layers);
    let (t, slots, words) = time_circuit(&c, instances, 1, budget)?;
    let ands = u64::from(width * layers) * instances as u64;
    let raw = raw_and_loop(slots, words, ands / 64, budget);
    let (eval_rate, raw_rate) = (
        ands as f64 / t.as_secs_f64(),
        ands as f64 / raw.as_secs_f64(),
    );
    report.insert(
        "and_layers".into(),
        json!({"width": width, "layers": layers, "instances": instances, "chunk_words": words, "slots": slots,
               "and_gates_per_second": eval_rate, "raw_and_per_second": raw_rate, "ratio": eval_rate / raw_rate}),
    );
    lines.push(format!(
        "AND-only layers ({width} x {layers}, {instances} instances, 1 thread): {:.3e} AND/s; raw a&b loop {:.3e} AND/s; ratio {:.2}",
        eval_rate,
        raw_rate,
        eval_rate / raw_rate
    ));

    // 2. AES-128 and SHA-256 from the public collection, where present.
    let dir = circuits.or_else(|| {
        std::env::current_dir()
            .ok()
            .and_then(|d| corpus::locate(&d))
    });
    for (name, file, instances) in [
        ("aes128", "aes_128.txt", 1usize << 16),
        ("sha256", "sha256.txt", 1 << 14),
    ] {
        let Some(path) = dir.as_ref().map(|d| d.join(file)).filter(|p| p.is_file()) else {
            lines.push(format!("{name}: skipped (no {file}; pass --circuits DIR)"));
            continue;
        };
        let c = huddle_circuit::read_circuit_file(&path, Format::Auto)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let mut entry = serde_json::Map::new();
        for threads in [1, 2] {
            let (t, slots, words) = time_circuit(&c, instances, threads, budget)?;
            let blocks = instances as f64 / t.as_secs_f64();
            entry.insert(format!("blocks_per_second_{threads}t"), json!(blocks));
            if threads == 1 {
                let word_ops = c.gates().len() as u64 * instances as u64 / 64;
                let raw = raw_and_loop(slots, words, word_ops, budget);
                let gate_rate = (c.gates().len() * instances) as f64 / t.as_secs_f64();
                let raw_rate = (word_ops * 64) as f64 / raw.as_secs_f64();
                entry.insert("gates_per_second".into(), json!(gate_rate));
                entry.insert("raw_and_per_second".into(), json!(raw_rate));
                entry.insert("ratio".into(), json!(gate_rate / raw_rate));
                entry.insert("slots".into(), json!(slots));
                lines.push(format!(
                    "{name} ({} gates, {instances} blocks): {:.3e} blocks/s (1 thread), {:.3e} gates/s; raw a&b loop {:.3e}/s; ratio {:.2}",
                    c.gates().len(),
                    blocks,
                    gate_rate,
                    raw_rate,
                    gate_rate / raw_rate
                ));
            } else {
                lines.push(format!(
                    "{name}: {:.3e} blocks/s with {threads} threads",
                    blocks
                ));
            }
        }
        report.insert(name.into(), Value::Object(entry));
    }

    // 3. Parsing: time per MB at two sizes shows linear scaling.
    let sizes: &[usize] = if quick { &[10] } else { &[10, 100] };
    let mut parse = serde_json::Map::new();
    for &mb in sizes {
        let text = synthetic_bristol(mb << 20);
        let t = best_time(budget, || {
            black_box(
                read_circuit(black_box(text.as_slice()))
                    .map(|c| c.gates().len())
                    .unwrap_or(0),
            );
        });
        let rate = text.len() as f64 / t.as_secs_f64() / (1 << 20) as f64;
        parse.insert(
            format!("{mb}MB"),
            json!({"bytes": text.len(), "seconds": t.as_secs_f64(), "mb_per_second": rate}),
        );
        lines.push(format!(
            "parse {mb} MB Bristol file: {:.3} s ({rate:.0} MB/s)",
            t.as_secs_f64()
        ));
    }
    report.insert("parse".into(), Value::Object(parse));

    let header = format!("huddle bench ttp (vector kernels: {kernels})");
    crate::stdout::print_report(as_json, &header, report, &lines)
}

/// A valid Bristol Fashion file of about `bytes` bytes: chains of XOR and AND gates.
fn synthetic_bristol(bytes: usize) -> Vec<u8> {
    use std::io::Write;
    let gates = bytes / 26;
    let inputs = 128usize;
    let mut body = Vec::with_capacity(bytes + 64);
    for g in 0..gates {
        let out = inputs + g;
        let (a, b) = (out - 1 - g % 64, out - 128 + (g % 64).min(63));
        let op = if g % 3 == 0 { "AND" } else { "XOR" };
        let _ = writeln!(body, "2 1 {a} {b} {out} {op}");
    }
    let mut text = Vec::with_capacity(body.len() + 64);
    let _ = write!(text, "{} {}\n2 64 64\n1 64\n\n", gates, inputs + gates);
    text.extend_from_slice(&body);
    text
}
