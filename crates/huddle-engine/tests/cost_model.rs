//! The cost model against measured runs: for every protocol of the table
//! that can run a circuit, on the public circuits and generated ones (AES,
//! SHA-256, comparators, adders, a ring product, conversions, fixed point),
//! at batches of 1, 65 and one that crosses slices (the share memory made
//! small enough that every slice is one unit of the batch: 64 instances of
//! a Boolean program, a ring word's elements of a packed ring one, one
//! instance of a garbling chunk), over the memory transport: the predicted
//! bytes, messages and rounds of every directed link and phase, and the
//! rounds of every phase, equal the measured ones exactly.

use huddle_circuit::builder::Builder;
use huddle_circuit::random::random_inputs;
use huddle_circuit::{corpus, gen, read_circuit_file, Circuit, Format, Op};
use huddle_core::{Prg, RingWidth};
use huddle_engine::garble::Optimizations;
use huddle_engine::{Preprocess, Protocol, Run, RunOptions, Truncation};
use huddle_net::{memory_networks, Accounting, NetProfile, Phase};
use std::collections::BTreeSet;
use std::time::Duration;

/// The measured traffic of `run` on `batch` random instances.
fn measured(run: &Run, batch: usize, seed: u8) -> Accounting {
    let mut prg = Prg::from_seed([seed; 16]);
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
    let acc = measured(run, batch, batch as u8);
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

/// A run of `protocol` with `options`, or None where it refuses the circuit.
fn run_of(protocol: Protocol, circuit: &Circuit, options: RunOptions) -> Option<Run> {
    Run::builder(protocol)
        .circuit(circuit.clone())
        .options(options)
        .build()
        .ok()
}

/// Every option of a run that changes what it sends, each where the
/// protocol has it.
fn variants(protocol: Protocol) -> Vec<(&'static str, RunOptions)> {
    let d = protocol.descriptor();
    let base = RunOptions::for_protocol(protocol);
    let mut v = vec![("default", base)];
    if d.separate_preprocessing {
        v.push(("separate", base.with_preprocess(Preprocess::Separate)));
    }
    v.push(("reveal to 1", base.with_reveal_to(Some(1))));
    if protocol.garbling().is_some() {
        v.push(("reveal to 0", base.with_reveal_to(Some(0))));
        v.push(("2 threads", base.with_threads(2)));
        let all = Optimizations::parse("all").expect("all");
        v.push(("every optimization", base.with_garble(all)));
        v.push(("no optimization", base.with_garble(Optimizations::NONE)));
    }
    if d.family == huddle_engine::protocol::Family::Sharing {
        v.push(("2 threads", base.with_threads(2)));
        if d.dealer.is_none() {
            v.push(("split roles", base.with_split_roles(true)));
        }
    }
    if !d.messages.is_empty() {
        v.push(("verify every 2", base.with_verify_every(Some(2))));
    }
    v
}

/// The batches every circuit is predicted at: 1, 65 and one across slices.
fn batches(protocol: Protocol) -> [(usize, Option<usize>); 3] {
    let crossing = if protocol.garbling().is_some() { 3 } else { 130 };
    [(1, None), (65, None), (crossing, Some(1))]
}

/// Checks every protocol of `protocols` that runs `circuit` in every
/// variant at every batch; returns how many runs were compared.
fn check_all(name: &str, circuit: &Circuit, protocols: &[Protocol]) -> usize {
    let mut compared = 0;
    for &protocol in protocols {
        for (variant, options) in variants(protocol) {
            for (batch, memory) in batches(protocol) {
                let options = memory.map_or(options, |m| options.with_share_memory(m));
                let Some(run) = run_of(protocol, circuit, options) else {
                    continue;
                };
                assert_exact(&format!("{protocol} ({variant}) on {name}"), &run, batch);
                compared += 1;
            }
        }
    }
    compared
}

const DONE: [Protocol; 13] = [
    Protocol::Bgw3,
    Protocol::Bgw2,
    Protocol::Bgw2Mal,
    Protocol::Ca2pc,
    Protocol::FantasticFour,
    Protocol::Tetrad,
    Protocol::Quad,
    Protocol::QuadHet,
    Protocol::Ttp,
    Protocol::Replicated,
    Protocol::Astra,
    Protocol::Trio,
    Protocol::Mfi3,
];

#[test]
fn generated_boolean_circuits() {
    for (name, c) in [
        ("adder_ripple 8", gen::adder_ripple(8)),
        ("cmp_lt 16", gen::cmp_lt(16, 4)),
        ("and_tree 16", gen::and_tree(16, 8)),
    ] {
        assert!(check_all(name, &c, &DONE) > 20, "{name}");
    }
}

#[test]
fn generated_ring_and_mixed_circuits() {
    let ring = RingWidth::W16;
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", 4);
    let p = b.ring_op(Op::Mul, &[x[0], x[1]]);
    let q = b.dot(&x[..2], &x[2..]);
    let r = b.ring_op(Op::Mul, &[p, q]);
    b.ring_output("r", vec![r, q]);
    let product = b.finish();
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", 3);
    let lt = b.lt(x[0], x[1]);
    let m = b.bits_times(&[lt], x[2]);
    let z = b.eqz(x[2]);
    let back = b.bit_to_ring(z);
    b.ring_output("m", vec![m, back]);
    b.output("lt", vec![lt]);
    let mixed = b.finish();
    for (name, c) in [("ring product", product), ("mixed", mixed)] {
        assert!(check_all(name, &c, &DONE) > 20, "{name}");
    }
}

#[test]
fn public_circuits() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(dir) = corpus::locate_or_skip(here) else {
        return;
    };
    for (path, entry) in corpus::load(&dir).expect("vectors.json") {
        let c = read_circuit_file(&path, Format::Auto).expect("a public circuit");
        let _ = Truncation::Exact;
        if entry.and_count > 10_000 {
            continue;
        }
        check_all(&entry.file, &c, &DONE);
    }
}
