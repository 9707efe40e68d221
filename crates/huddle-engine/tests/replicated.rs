//! Replicated 3PC: equal to the plaintext evaluator on every Boolean circuit
//! of the public collection and on random multi-fan-in circuits, and the
//! exact communication of the spec (one bit per party per AND, inputs to the
//! two other parties, outputs to the next party).

use huddle_circuit::random::{random_circuit, random_inputs, RandomCircuitSpec};
use huddle_circuit::{
    corpus, read_circuit_file, BitMatrix, Circuit, CircuitAssembler, Format, Op, PlainEvaluator,
    ValueSpec,
};
use huddle_core::Prg;
use huddle_engine::replicated;
use huddle_net::{memory_networks, Accounting, LinkStats, NetProfile, Phase};
use std::time::Duration;

/// Runs all three parties in memory; returns each party's outputs and the merged accounting.
fn run3(circuit: &Circuit, inputs: &[BitMatrix]) -> (Vec<Vec<BitMatrix>>, Accounting) {
    let nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
    let results =
        huddle_engine::run_local("replicated", nets, circuit, inputs, 1).expect("protocol run");
    let mut acc = Accounting::default();
    for r in &results {
        acc.merge(&r.accounting);
    }
    (results.into_iter().map(|r| r.outputs).collect(), acc)
}

fn assert_matches_plaintext(name: &str, circuit: &Circuit, instances: usize, prg: &mut Prg) {
    let inputs = random_inputs(circuit, prg, instances);
    let want = PlainEvaluator::new(circuit)
        .evaluate(&inputs)
        .expect("plaintext");
    let (outs, _) = run3(circuit, &inputs);
    for (p, got) in outs.iter().enumerate() {
        assert!(
            got == &want,
            "{name}: party {p} differs from the plaintext evaluator"
        );
    }
}

#[test]
fn every_boolean_corpus_circuit_on_many_instances() {
    let Some(dir) = corpus::locate_or_skip(env!("CARGO_MANIFEST_DIR").as_ref()) else {
        return;
    };
    let mut prg = Prg::from_seed([11; 16]);
    for (path, entry) in corpus::load(&dir).expect("vectors") {
        let c = read_circuit_file(&path, Format::Auto).expect("corpus circuit");
        // 1000+ instances, fewer for the two large circuits to keep the suite quick.
        let instances = if c.gates().len() > 30_000 { 130 } else { 1037 };
        assert_matches_plaintext(&entry.file, &c, instances, &mut prg);
    }
}

#[test]
fn random_multi_fan_in_circuits() {
    let mut prg = Prg::from_seed([12; 16]);
    for round in 0..12 {
        let c = random_circuit(
            &RandomCircuitSpec::boolean(&[17, 64, 9], 400, 2 + round % 15),
            &mut prg,
        );
        assert_matches_plaintext(
            &format!("random circuit {round}"),
            &c,
            1000 + round,
            &mut prg,
        );
    }
}

/// G independent ANDs a_j & b_j, a owned by party 0, b by party 1.
fn independent_ands(g: u32) -> Circuit {
    let mut asm = CircuitAssembler::new(
        u64::from(3 * g),
        None,
        vec![ValueSpec::bits("a", g), ValueSpec::bits("b", g)],
    )
    .expect("valid");
    for j in 0..g {
        asm.push(Op::And, &[j, g + j], &[2 * g + j]).expect("and");
    }
    asm.finish(vec![(ValueSpec::bits("c", g), (2 * g..3 * g).collect())])
        .expect("valid")
}

#[test]
fn communication_is_exactly_the_specs() {
    let (g, instances) = (100u32, 1000usize);
    let c = independent_ands(g);
    let mut prg = Prg::from_seed([13; 16]);
    let inputs = random_inputs(&c, &mut prg, instances);
    let (outs, acc) = run3(&c, &inputs);
    assert_eq!(
        outs[2],
        PlainEvaluator::new(&c)
            .evaluate(&inputs)
            .expect("plaintext")
    );
    // One element is one bitsliced word per 64 instances: 16 words, 128 bytes per wire.
    let e = u64::from(g) * instances.div_ceil(64) as u64 * 8;
    let link = |f, t| acc.link(Phase::Online, f, t);
    // P0 deals a: to P2 (prev) and P1 (next). P1 deals b: to P0 and P2.
    // ANDs and outputs go to the next party: 0->1, 1->2, 2->0.
    assert_eq!(
        link(0, 1),
        LinkStats {
            bytes: 3 * e,
            messages: 3,
            rounds: 3
        }
    );
    assert_eq!(
        link(1, 2),
        LinkStats {
            bytes: 3 * e,
            messages: 3,
            rounds: 3
        }
    );
    assert_eq!(
        link(2, 0),
        LinkStats {
            bytes: 2 * e,
            messages: 2,
            rounds: 2
        }
    );
    assert_eq!(
        link(1, 0),
        LinkStats {
            bytes: e,
            messages: 1,
            rounds: 1
        }
    );
    assert_eq!(
        link(0, 2),
        LinkStats {
            bytes: e,
            messages: 1,
            rounds: 1
        }
    );
    assert_eq!(link(2, 1), LinkStats::default());
    // Setup: each party sends its 16-byte key to the next.
    for (f, t) in [(0, 1), (1, 2), (2, 0)] {
        assert_eq!(acc.link(Phase::Setup, f, t).bytes, 16);
    }
    // One AND bit per party per gate, i.e. g * instances / 8 bytes per party for the layer.
    assert_eq!(
        e,
        u64::from(g) * instances as u64 / 8
            + u64::from(g) * ((instances.div_ceil(64) * 64 - instances) as u64) / 8
    );
}

#[test]
fn rounds_follow_the_and_depth() {
    // A chain of d ANDs: x & y0, (.) & y1, ...; rounds on the ring links: 1 input + d + 1 output.
    for d in [1u32, 3, 7] {
        let mut asm = CircuitAssembler::new(
            u64::from(1 + d + d),
            None,
            vec![ValueSpec::bits("x", 1), ValueSpec::bits("y", d)],
        )
        .expect("valid");
        let mut acc_wire = 0;
        for j in 0..d {
            let out = 1 + d + j;
            asm.push(Op::And, &[acc_wire, 1 + j], &[out]).expect("and");
            acc_wire = out;
        }
        let c = asm
            .finish(vec![(ValueSpec::bits("z", 1), vec![acc_wire])])
            .expect("valid");
        let mut prg = Prg::from_seed([14; 16]);
        let inputs = random_inputs(&c, &mut prg, 64);
        let (_, acc) = run3(&c, &inputs);
        // Party 2 deals nothing: its link to 0 carries d AND rounds and the output round.
        assert_eq!(
            acc.link(Phase::Online, 2, 0).rounds,
            u64::from(d) + 1,
            "depth {d}"
        );
        assert_eq!(
            acc.link(Phase::Online, 0, 1).rounds,
            u64::from(d) + 2,
            "depth {d}"
        );
    }
}

#[test]
fn a_batch_too_large_for_memory_is_refused_before_communicating() {
    // 10 000 wires at 2^34 instances would need petabytes of shares.
    let mut asm =
        CircuitAssembler::new(10_001, None, vec![ValueSpec::bits("x", 1)]).expect("valid");
    for j in 0..10_000u32 {
        asm.push(Op::Inv, &[j], &[j + 1]).expect("inv");
    }
    let mut c = asm
        .finish(vec![(ValueSpec::bits("y", 1), vec![10_000])])
        .expect("valid");
    // Party 1 owns the input, so party 0 needs no input matrix of that size.
    c.set_owners(huddle_circuit::InputOwners::Explicit(vec![1]))
        .expect("one owner");
    let mut nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(5));
    let mut p0 = nets.remove(0);
    let start = std::time::Instant::now();
    let err = replicated::run(&mut p0, &c, 1 << 34, &[]).expect_err("must be refused");
    assert!(
        err.to_string().contains("GiB are available; lower --batch"),
        "{err}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "refused only after {:?}",
        start.elapsed()
    );
    assert_eq!(
        p0.accounting().phase_total(huddle_net::Phase::Setup).bytes,
        0,
        "nothing was sent"
    );
}
