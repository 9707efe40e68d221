//! The cost model (`Run::cost`) against measured runs, for every protocol of
//! the table that can run a circuit: the predicted bytes, messages and
//! rounds of every directed link and phase, and the rounds of every phase,
//! equal what the accounting of a run over the memory transport counts,
//! exactly.
//!
//! Circuits: the public collection (`shared/circuits`), and generated ones:
//! adders, comparators, an AND tree, AES-128 and SHA-256, ring products and
//! dot products over every ring, conversions of every kind, fixed point
//! (exact and probabilistic truncation) and applications. Batches: 1, 65,
//! and one that crosses slices: the share memory set to one byte makes every
//! slice one unit of the batch (64 instances of a Boolean program, 64/k of
//! a packed ring one, one instance of a garbling chunk), so 130 instances
//! are three slices, the last one short (3 garbling chunks of one). Options:
//! every one that changes what a run sends (the preprocessing schedule,
//! `--reveal-to`, threads and auto's lanes, split roles, `--verify-every`,
//! `--max-fan-in`, the garbling optimizations, party counts, the linear
//! preprocessing).
//!
//! Runtime: SHA-256 (public and generated, about 22,500 ANDs) runs once per
//! protocol, at batch 1 with the default options; AES-128 (6,800 ANDs) with
//! every option variant at batch 1 and with the defaults at 65 and across
//! slices. Everything else runs every variant at every batch.

use huddle_circuit::aes::{aes, SboxDepth};
use huddle_circuit::builder::Builder;
use huddle_circuit::random::random_inputs;
use huddle_circuit::{apps, corpus, gen, read_circuit_file, sha256, Circuit, Format, Op};
use huddle_core::{Prg, RingWidth};
use huddle_engine::garble::linear::LinearChoice;
use huddle_engine::garble::Optimizations;
use huddle_engine::protocol::Family;
use huddle_engine::{Preprocess, Protocol, Run, RunOptions, Truncation};
use huddle_net::{memory_networks, Accounting, NetProfile, Phase};
use std::collections::BTreeSet;
use std::time::Duration;

/// The measured traffic of `run` on `batch` random instances.
fn measured(run: &Run, batch: usize) -> Accounting {
    let mut prg = Prg::from_seed([batch as u8; 16]);
    let inputs = random_inputs(run.circuit(), &mut prg, batch);
    let nets = memory_networks(
        run.request().parties(),
        &NetProfile::lan(),
        Duration::from_secs(120),
    );
    run.local_over(nets, &inputs)
        .unwrap_or_else(|e| panic!("{:?}: {e}", run.request()))
        .accounting
}

/// Asserts that `run`'s predicted cost on `batch` instances is what it
/// measures: every link's bytes, messages and rounds in every phase, and
/// every phase's rounds.
fn assert_exact(what: &str, run: &Run, batch: usize) {
    let cost = run
        .cost(batch)
        .unwrap_or_else(|e| panic!("{what}, batch {batch}: no prediction: {e}"));
    let acc = measured(run, batch);
    let links: BTreeSet<_> = cost
        .iter()
        .map(|(p, f, t, _)| (p, f, t))
        .chain(acc.iter().map(|(p, f, t, _)| (p, f, t)))
        .collect();
    for (phase, from, to) in links {
        assert_eq!(
            cost.link(phase, from, to),
            acc.link(phase, from, to),
            "{what}, batch {batch}: {phase} {from}->{to} (predicted, measured)"
        );
    }
    for phase in Phase::ALL {
        assert_eq!(
            cost.rounds(phase),
            acc.rounds(phase),
            "{what}, batch {batch}: rounds of {phase} (predicted, measured)"
        );
    }
}

/// A run of `protocol` among `parties` (None: its own count) with
/// `options`, or None where it refuses the circuit or the options.
fn run_of(
    protocol: Protocol,
    parties: Option<usize>,
    circuit: &Circuit,
    options: RunOptions,
) -> Option<Run> {
    let mut b = Run::builder(protocol)
        .circuit(circuit.clone())
        .options(options);
    if let Some(n) = parties {
        b = b.parties(n);
    }
    b.build().ok()
}

/// A named change to a run's options.
type Variant = (&'static str, RunOptions);

/// Every option of a run that changes what `protocol` sends, each where it
/// has it (a variant it refuses is skipped by [`check`]).
fn variants(protocol: Protocol) -> Vec<Variant> {
    let d = protocol.descriptor();
    let base = RunOptions::for_protocol(protocol);
    let mut v = vec![
        ("default", base),
        ("reveal to 1", base.with_reveal_to(Some(1))),
        ("auto threads", base.with_threads_auto(true)),
    ];
    if d.separate_preprocessing {
        v.push(("separate", base.with_preprocess(Preprocess::Separate)));
    }
    match d.family {
        Family::Sharing => {
            v.push(("2 threads", base.with_threads(2)));
            if d.dealer.is_none() {
                v.push(("split roles", base.with_split_roles(true)));
            }
            if !d.messages.is_empty() {
                v.push(("verify every 2", base.with_verify_every(Some(2))));
            }
            if d.max_fan_in > Some(3) {
                v.push(("fan-in 3", base.with_max_fan_in(Some(3))));
            }
        }
        Family::Garbling(_) => {
            v.push(("reveal to 0", base.with_reveal_to(Some(0))));
            v.push(("2 threads", base.with_threads(2)));
            let all = Optimizations::parse("all").expect("all");
            v.push(("every optimization", base.with_garble(all)));
            v.push(("no optimization", base.with_garble(Optimizations::NONE)));
        }
        Family::Clear => {}
    }
    v
}

/// A batch, and the share memory it runs with (None: the default).
type Batch = (usize, Option<usize>);

/// 1, 65, and a batch across slices (chunks, for garbling) of one unit.
fn batches(protocol: Protocol) -> [Batch; 3] {
    let crossing = if protocol.garbling().is_some() {
        3
    } else {
        130
    };
    [(1, None), (65, None), (crossing, Some(1))]
}

/// What to check a circuit with.
#[derive(Clone, Copy)]
enum Scope {
    /// Every variant at every batch.
    Full,
    /// Every variant at batch 1, the defaults at every batch (mid-size circuits).
    Wide,
    /// The defaults at batch 1 (the largest circuits).
    Once,
}

/// Checks every protocol of the table that runs `circuit` (with `extra`
/// variants besides its own); returns how many runs were compared.
fn check(name: &str, circuit: &Circuit, scope: Scope, extra: &[Variant]) -> usize {
    let mut compared = 0;
    for protocol in Protocol::ALL {
        let mut all = variants(protocol);
        all.extend(extra.iter().map(|&(n, o)| {
            let memory = RunOptions::for_protocol(protocol).share_memory;
            (n, o.with_share_memory(memory))
        }));
        for (i, (variant, options)) in all.into_iter().enumerate() {
            for (batch, memory) in batches(protocol) {
                let wanted = match scope {
                    Scope::Full => true,
                    Scope::Wide => batch == 1 || i == 0,
                    Scope::Once => batch == 1 && i == 0,
                };
                if !wanted {
                    continue;
                }
                let options = memory.map_or(options, |m| options.with_share_memory(m));
                let Some(run) = run_of(protocol, None, circuit, options) else {
                    continue;
                };
                assert_exact(&format!("{protocol} ({variant}) on {name}"), &run, batch);
                compared += 1;
            }
        }
    }
    compared
}

/// How many protocols of the table run `circuit` with their defaults.
fn runners(circuit: &Circuit) -> usize {
    Protocol::ALL
        .into_iter()
        .filter(|&p| run_of(p, None, circuit, RunOptions::for_protocol(p)).is_some())
        .count()
}

#[test]
fn every_protocol_on_the_public_circuits() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(dir) = corpus::locate_or_skip(here) else {
        return;
    };
    let circuits = corpus::load(&dir).expect("vectors.json");
    assert!(!circuits.is_empty());
    for (path, entry) in circuits {
        let c = read_circuit_file(&path, Format::Auto).expect("a public circuit");
        let scope = match entry.and_count {
            0..=2_000 => Scope::Full,
            2_001..=10_000 => Scope::Wide,
            _ => Scope::Once,
        };
        let compared = check(&entry.file, &c, scope, &[]);
        // Every protocol runs a Boolean circuit.
        assert!(compared >= Protocol::ALL.len(), "{}", entry.file);
    }
}

#[test]
fn every_protocol_on_generated_boolean_circuits() {
    for (name, c, scope) in [
        ("ripple adder, 8 bits", gen::adder_ripple(8), Scope::Full),
        (
            "Sklansky adder, 16 bits",
            gen::adder_sklansky(16, 4),
            Scope::Full,
        ),
        ("comparator <, 16 bits", gen::cmp_lt(16, 2), Scope::Full),
        ("comparator =, 32 bits", gen::cmp_eq(32, 8), Scope::Full),
        ("AND tree of 16", gen::and_tree(16, 8), Scope::Full),
        (
            "AES-128, depth 2",
            aes(128, false, SboxDepth::Two).expect("AES"),
            Scope::Wide,
        ),
        ("SHA-256", sha256::sha256(2), Scope::Once),
    ] {
        assert_eq!(runners(&c), Protocol::ALL.len(), "{name}");
        assert!(check(name, &c, scope, &[]) >= Protocol::ALL.len(), "{name}");
    }
}

/// z = (x0 · x1) · (x0·x2 + x1·x3) and the dot product alone, over `ring`.
fn ring_product(ring: RingWidth) -> Circuit {
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", 4);
    let y = b.ring_input("y", 2);
    let p = b.ring_op(Op::Mul, &[x[0], x[1]]);
    let q = b.dot(&x[..2], &x[2..]);
    let r = b.ring_op(Op::Mul, &[p, q]);
    let s = b.ring_op(Op::Mul, &[y[0], y[1], r]);
    b.ring_output("r", vec![s, q]);
    b.finish()
}

/// Every conversion: A2B, LTZ, EQZ, B2A, BX2A and Boolean gates between.
fn conversions(ring: RingWidth) -> Circuit {
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", 3);
    let lt = b.lt(x[0], x[1]);
    let bits = b.to_bits(x[2]);
    let top = b.and(bits[0], bits[1]);
    let m = b.bits_times(&[lt, top], x[2]);
    let z = b.eqz(x[2]);
    let back = b.bit_to_ring(z);
    b.ring_output("m", vec![m, back]);
    b.output("lt", vec![lt, top]);
    b.finish()
}

/// Two fixed-point products in a row and a fixed-point dot product.
fn fixed_point(ring: RingWidth, f: u8) -> Circuit {
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", 4);
    let p = b.fixed_mul(x[0], x[1], f);
    let q = b.fixed_mul(p, x[2], f);
    let d = b.fixed_dot(&x[..2], &x[2..], f);
    b.ring_output("q", vec![q, d]);
    b.finish()
}

#[test]
fn every_protocol_on_rings_conversions_and_fixed_point() {
    let probabilistic = RunOptions::default().with_truncation(Truncation::Probabilistic);
    for ring in RingWidth::ALL {
        let name = format!("ring product over {ring}");
        assert!(
            check(&name, &ring_product(ring), Scope::Full, &[]) > 100,
            "{name}"
        );
    }
    for ring in [RingWidth::W16, RingWidth::W64] {
        let name = format!("conversions over {ring}");
        assert!(
            check(&name, &conversions(ring), Scope::Full, &[]) > 100,
            "{name}"
        );
        let name = format!("fixed point over {ring}");
        let extra = [("probabilistic truncation", probabilistic)];
        assert!(
            check(&name, &fixed_point(ring, 8), Scope::Full, &extra) > 100,
            "{name}"
        );
    }
    for (name, c) in [
        ("auction of 4", apps::auction(4, RingWidth::W32)),
        (
            "argmax of 5",
            apps::extreme(5, RingWidth::W16, true, true, false),
        ),
        (
            "perceptron 4-3-2",
            apps::generate("perceptron", 32, &[4, 3, 2], 8).expect("perceptron"),
        ),
    ] {
        let extra = [("probabilistic truncation", probabilistic)];
        assert!(check(name, &c, Scope::Wide, &extra) > 20, "{name}");
    }
}

/// Party counts other than a protocol's own, the linear preprocessing of
/// bgw2-mal both ways, client-aided 2PC's narrower conversions above 1024
/// instances, and slices of several units split among lanes.
#[test]
fn party_counts_linear_preprocessing_lanes_and_large_batches() {
    let c = gen::cmp_lt(8, 2);
    let dealer =
        RunOptions::for_protocol(Protocol::Bgw2Mal).with_linear(LinearChoice::TrustedDealer);
    let prss = RunOptions::for_protocol(Protocol::Bgw2Mal).with_linear(LinearChoice::Prss);
    for (protocol, parties, options) in [
        (Protocol::Ttp, 2, RunOptions::for_protocol(Protocol::Ttp)),
        (Protocol::Ttp, 5, RunOptions::for_protocol(Protocol::Ttp)),
        (Protocol::Bgw3, 4, RunOptions::for_protocol(Protocol::Bgw3)),
        (Protocol::Bgw3, 5, RunOptions::for_protocol(Protocol::Bgw3)),
        (Protocol::Bgw3, 9, RunOptions::for_protocol(Protocol::Bgw3)),
        (Protocol::Bgw2, 7, RunOptions::for_protocol(Protocol::Bgw2)),
        (Protocol::Bgw2Mal, 4, dealer),
        (Protocol::Bgw2Mal, 4, prss),
        (Protocol::Bgw2Mal, 7, prss),
    ] {
        for batch in [1, 65] {
            let run = run_of(protocol, Some(parties), &c, options).expect("runs");
            assert_exact(&format!("{protocol} with {parties} parties"), &run, batch);
        }
    }
    // Slices of three units, split among two lanes, or among auto's lanes
    // once there are enough slices for them.
    let product = ring_product(RingWidth::W8);
    for protocol in [Protocol::Trio, Protocol::Quad, Protocol::Ca2pc] {
        let base = RunOptions::for_protocol(protocol);
        for (name, options) in [
            ("2 threads", base.with_threads(2)),
            ("auto threads", base.with_threads_auto(true)),
        ] {
            for (circuit, memory, batch) in [(&c, 3_000, 64 * 40 + 5), (&product, 100, 8 * 30 + 3)]
            {
                let run = run_of(protocol, None, circuit, options.with_share_memory(memory))
                    .expect("runs");
                assert_exact(&format!("{protocol} ({name}, small slices)"), &run, batch);
            }
        }
    }
    let mixed = conversions(RingWidth::W16);
    let run = run_of(
        Protocol::Ca2pc,
        None,
        &mixed,
        RunOptions::for_protocol(Protocol::Ca2pc),
    )
    .expect("runs");
    assert_exact("ca2pc above 1024 instances", &run, 1100);
}

/// A run the model cannot predict is refused, not approximated: one with a
/// party that deviates on purpose; and a batch out of range, as the run
/// refuses it.
#[test]
fn runs_the_model_does_not_describe_are_refused() {
    use huddle_engine::fault::{Fault, FaultKind};
    let c = gen::adder_ripple(4);
    let corrupt = RunOptions::default().with_fault(Some(Fault {
        party: 1,
        kind: FaultKind::Duplicate,
        message: None,
        seed: 7,
    }));
    let run = run_of(Protocol::Quad, None, &c, corrupt).expect("a corrupted run is a run");
    let e = run.cost(1).expect_err("refused").to_string();
    assert!(e.contains("deviates"), "{e}");
    let run = run_of(Protocol::Trio, None, &c, RunOptions::default()).expect("runs");
    assert!(run.cost(0).is_err());
    assert!(run.cost(huddle_engine::MAX_BATCH + 1).is_err());
}

/// Where a measured run is too large for a test, the model still states
/// the papers' round counts: BGW3 among 100 parties garbles in 3 rounds
/// (round 1 offline, the degree reduction and the rows dependent) and
/// evaluates in 3 (Ben-Efraim–Omri Figure 2), whatever the depth; BGW2 in
/// 2 and 3.
#[test]
fn garbling_among_many_parties_takes_the_papers_rounds() {
    let c = gen::adder_ripple(16);
    for (protocol, dependent) in [(Protocol::Bgw3, 2), (Protocol::Bgw2, 1)] {
        let run =
            run_of(protocol, Some(100), &c, RunOptions::for_protocol(protocol)).expect("runs");
        let cost = run.cost(10).expect("a prediction");
        assert_eq!(cost.rounds(Phase::Offline), 1, "{protocol}");
        assert_eq!(cost.rounds(Phase::Dependent), dependent, "{protocol}");
        assert_eq!(cost.online_rounds(), 3, "{protocol}");
    }
}

/// A circuit without outputs: the TTP still tells every party there are
/// none (an empty message, counted), the others open nothing.
#[test]
fn a_circuit_without_outputs() {
    let mut b = Builder::boolean(2);
    let x = b.input("x", 2);
    let _ = b.and(x[0], x[1]);
    let c = b.finish();
    assert!(c.outputs().is_empty());
    assert!(check("no outputs", &c, Scope::Full, &[]) >= Protocol::ALL.len());
}
