//! `huddle bench fixed-point`: mixed and fixed-point workloads on every
//! secret-sharing protocol that runs them, each next to the trusted third
//! party in the same run (runs alternate protocol by protocol, `--repeat`
//! times; medians). Harth-Kitzerow–Carle's Figure 10 has the shape of the
//! first table: vector-matrix products y = x·M of n×n matrices over
//! Z_2^64, seconds per protocol and the ratio to the TTP. Then fixed-point
//! multiplications (plain and with truncation, fused where the protocol has
//! it), conversions against the Boolean adder they run on, and perceptron
//! inferences.

use crate::bench_protocols::{product_layers_of, time_run, Setup, Timing};
use huddle_circuit::apps::{perceptron, vector_matrix, Perceptron};
use huddle_circuit::builder::Builder;
use huddle_circuit::random::random_inputs;
use huddle_circuit::{BitMatrix, Circuit, InputOwners, Op};
use huddle_core::{Prg, RingWidth};
use huddle_engine::protocol::Family;
use huddle_engine::{Protocol, Truncation, CONVERSION_FAN_IN};
use serde_json::{json, Map, Value};

/// What `huddle bench fixed-point` measures.
pub struct Options {
    /// Matrix sizes n of the vector-matrix products.
    pub sizes: Vec<u32>,
    /// Instances of each vector-matrix product.
    pub vecmat_batch: usize,
    /// Instances of the multiplication and conversion workloads.
    pub batch: usize,
    /// Perceptron shape and instances.
    pub shape: Perceptron,
    pub perceptron_batch: usize,
    /// Only this protocol (and the TTP).
    pub only: Option<Protocol>,
    /// Which workloads: any of vecmat, mult, convert, perceptron.
    pub workloads: Vec<String>,
}

/// A protocol with a truncation choice, as one column of a table.
#[derive(Clone, Copy)]
struct Contender {
    protocol: Protocol,
    truncation: Truncation,
}

impl Contender {
    fn label(&self) -> String {
        match self.truncation {
            Truncation::Exact => self.protocol.name().to_string(),
            Truncation::Probabilistic => format!("{} (fused)", self.protocol.name()),
        }
    }
}

/// The secret-sharing protocols that can run `circuit`, after the TTP;
/// with `fused`, the ones with fused truncation once more in that mode.
fn contenders(circuit: &Circuit, only: Option<Protocol>, fused: bool) -> Vec<Contender> {
    let mut all = vec![Contender {
        protocol: Protocol::Ttp,
        truncation: Truncation::Exact,
    }];
    for protocol in Protocol::ALL {
        let d = protocol.descriptor();
        if d.family != Family::Sharing || only.is_some_and(|o| o != protocol) {
            continue;
        }
        let parties = match d.parties {
            huddle_engine::protocol::PartyRule::Exactly(n) => n,
            huddle_engine::protocol::PartyRule::AtLeast(n) => n,
        };
        for truncation in [Truncation::Exact, Truncation::Probabilistic] {
            if truncation == Truncation::Probabilistic && !(fused && d.fused_truncation) {
                continue;
            }
            let options = huddle_engine::RunOptions::default().with_truncation(truncation);
            let run = huddle_engine::Run::builder(protocol)
                .parties(parties)
                .circuit(circuit.clone())
                .options(options)
                .build();
            if run.is_ok() {
                all.push(Contender {
                    protocol,
                    truncation,
                });
            }
        }
    }
    all
}

/// Median timings of every contender on one workload: `repeat` rounds,
/// each running every contender once, so that a slow phase of the
/// machine touches them alike.
fn alternate(
    contenders: &[Contender],
    circuit: &Circuit,
    inputs: &[BitMatrix],
    setup: &mut Setup,
) -> Result<Vec<Timing>, String> {
    let mut runs: Vec<Vec<Timing>> = contenders.iter().map(|_| Vec::new()).collect();
    for _ in 0..setup.repeat {
        for (c, runs) in contenders.iter().zip(&mut runs) {
            setup.truncation = c.truncation;
            setup.ttp_parties = 3;
            let t = time_run(c.protocol, circuit, inputs, setup)
                .map_err(|e| format!("{}: {e}", c.label()))?;
            runs.push(t);
        }
    }
    Ok(runs
        .into_iter()
        .map(|mut r| {
            r.sort_by_key(|t| t.wall);
            r.swap_remove(r.len() / 2)
        })
        .collect())
}

/// `m` conversions on party 0's values: A2B of ring elements, or B2A of bits.
fn conversions(m: u32, ring: RingWidth, to_ring: bool) -> Circuit {
    let mut b = Builder::arithmetic(ring, 2);
    if to_ring {
        let x = b.input("x", m);
        let out = x.iter().map(|&w| b.bit_to_ring(w)).collect();
        b.ring_output("y", out);
    } else {
        let x = b.ring_input("x", m);
        let mut bits = Vec::new();
        for &w in &x {
            bits.extend(b.to_bits(w));
        }
        b.output("y", bits);
    }
    let mut c = b.finish();
    c.set_owners(InputOwners::Explicit(vec![0]))
        .expect("one input value");
    c
}

/// k-bit Sklansky adders on two parties' inputs: what an A2B runs on.
fn adders(ring: RingWidth, fan_in: usize) -> Circuit {
    let mut c = huddle_circuit::gen::adder_sklansky(ring.bits(), fan_in);
    c.set_owners(InputOwners::Explicit(vec![0, 1]))
        .expect("two input values");
    c
}

pub fn run(as_json: bool, mut setup: Setup, options: Options) -> Result<(), String> {
    let mut prg = Prg::from_seed([31; 16]);
    let mut report = Map::new();
    let mut lines = Vec::new();
    let ring = RingWidth::W64;
    let wants = |w: &str| options.workloads.iter().any(|x| x == w);
    let ratio = |t: &Timing, ttp: &Timing| t.wall.as_secs_f64() / ttp.wall.as_secs_f64();

    if wants("vecmat") {
        let mut table = Map::new();
        for &n in &options.sizes {
            let c = vector_matrix(n, ring);
            let inputs = random_inputs(&c, &mut prg, options.vecmat_batch);
            let who = contenders(&c, options.only, false);
            let times = alternate(&who, &c, &inputs, &mut setup)?;
            let mut row = Map::new();
            let mut line = format!("vecmat n={n:<5}");
            for (c, t) in who.iter().zip(&times) {
                let r = ratio(t, &times[0]);
                row.insert(
                    c.label(),
                    json!({"seconds": t.wall.as_secs_f64(), "ratio_to_ttp": r, "online_rounds": t.rounds}),
                );
                line.push_str(&format!(
                    " {} {:.1} ms ({r:.2}x)",
                    c.label(),
                    t.wall.as_secs_f64() * 1e3
                ));
            }
            table.insert(n.to_string(), Value::Object(row));
            lines.push(line);
        }
        report.insert("vector_matrix".into(), Value::Object(table));
    }

    if wants("mult") {
        let (width, depth) = (256u32, 16u32);
        let work = f64::from(width * depth) * options.batch as f64;
        let plain = product_layers_of(Op::Mul, width, depth, Some(ring));
        let fixed = product_layers_of(Op::DotTrunc(16), width, depth, Some(ring));
        let inputs = random_inputs(&plain, &mut prg, options.batch);
        let mut table = Map::new();
        for (name, c, fused) in [("mult", &plain, false), ("mult_trunc", &fixed, true)] {
            let who = contenders(c, options.only, fused);
            let times = alternate(&who, c, &inputs, &mut setup)?;
            let mut line = format!("{name:<11}");
            for (c, t) in who.iter().zip(&times) {
                let rate = work / t.wall.as_secs_f64();
                table.insert(
                    format!("{name} {}", c.label()),
                    json!({"per_second": rate, "online_rounds": t.rounds}),
                );
                line.push_str(&format!(
                    " {} {rate:.2e}/s ({} rounds)",
                    c.label(),
                    t.rounds
                ));
            }
            lines.push(line);
        }
        report.insert("multiplications".into(), Value::Object(table));
        lines.push(format!(
            "  ({width} x {depth} layers x {} instances, Z_2^64, truncation by 16 bits)",
            options.batch
        ));
    }

    if wants("convert") {
        let m = 64u32;
        let work = f64::from(m) * options.batch as f64;
        let a2b = conversions(m, ring, false);
        let b2a = conversions(m, ring, true);
        let a2b_inputs = random_inputs(&a2b, &mut prg, options.batch);
        let b2a_inputs = random_inputs(&b2a, &mut prg, options.batch);
        let mut table = Map::new();
        let who = contenders(&a2b, options.only, false);
        let a2b_times = alternate(&who, &a2b, &a2b_inputs, &mut setup)?;
        let b2a_times = alternate(&who, &b2a, &b2a_inputs, &mut setup)?;
        for (i, c) in who.iter().enumerate() {
            // The adder a conversion runs on: the protocol's AND fan-in,
            // capped as the engine caps it for conversions.
            let fan_in = c.protocol.descriptor().max_fan_in.unwrap_or(2);
            let adder = adders(ring, fan_in.min(CONVERSION_FAN_IN));
            let adder_inputs = random_inputs(&adder, &mut prg, m as usize * options.batch);
            let adder_time = &alternate(&[*c], &adder, &adder_inputs, &mut setup)?[0];
            let (a, b, add) = (
                work / a2b_times[i].wall.as_secs_f64(),
                work / b2a_times[i].wall.as_secs_f64(),
                work / adder_time.wall.as_secs_f64(),
            );
            table.insert(
                c.label(),
                json!({"a2b_per_second": a, "b2a_per_second": b, "adders_per_second": add,
                       "a2b_online_rounds": a2b_times[i].rounds}),
            );
            lines.push(format!(
                "convert {:<10} A2B {a:.2e}/s, B2A {b:.2e}/s, its 64-bit adder alone {add:.2e}/s (A2B/adder {:.2})",
                c.label(),
                a / add
            ));
        }
        report.insert("conversions".into(), Value::Object(table));
    }

    if wants("perceptron") {
        let c = perceptron(options.shape, ring);
        let inputs = random_inputs(&c, &mut prg, options.perceptron_batch);
        let who = contenders(&c, options.only, true);
        let times = alternate(&who, &c, &inputs, &mut setup)?;
        let mut table = Map::new();
        let s = options.shape;
        let mut line = format!("perceptron {}-{}-{}", s.inputs, s.hidden, s.outputs);
        for (c, t) in who.iter().zip(&times) {
            let rate = options.perceptron_batch as f64 / t.wall.as_secs_f64();
            table.insert(
                c.label(),
                json!({"inferences_per_second": rate, "ratio_to_ttp": ratio(t, &times[0]),
                       "online_rounds": t.rounds}),
            );
            line.push_str(&format!(" {} {rate:.1}/s ({} rounds)", c.label(), t.rounds));
        }
        lines.push(line);
        report.insert("perceptron".into(), Value::Object(table));
    }

    let header = format!(
        "huddle bench fixed-point ({}, network {}, all parties on this machine, {} thread(s) each, \
         median of {} alternating run(s); times include setup, input sharing and output; \
         vecmat batch {}, mult/convert batch {}, perceptron batch {})",
        if setup.tcp {
            "loopback TCP"
        } else {
            "in memory"
        },
        setup.net.name,
        setup.threads,
        setup.repeat,
        options.vecmat_batch,
        options.batch,
        options.perceptron_batch
    );
    crate::stdout::print_report(as_json, &header, report, &lines)
}
