//! The exact bytes of every directed link and phase and the round counts,
//! semi-honest and malicious, and the same traffic when a batch beyond the
//! share memory is garbled chunk by chunk.

use super::{run_options, run_with, SEMI_HONEST, VARIANTS};
use crate::common::local;
use huddle_circuit::gen;
use huddle_circuit::random::random_inputs;
use huddle_circuit::PlainEvaluator;
use huddle_core::Prg;
use huddle_engine::garble::linear::LinearChoice;
use huddle_engine::garble::{
    buffer_gate_bytes, garbled_circuit_bytes, malicious_gate_counts, Optimizations, Variant,
};
use huddle_engine::RunOptions;
use huddle_net::{memory_networks, Accounting, NetProfile, Phase};
use std::time::Duration;

/// Exact bytes per directed link and phase, for n = 5 and both variants,
/// with the permutation bits shared over GF(2^128) as in the paper (16
/// bytes a share) and over the subfield GF(2^16) (the default, 2 bytes).
#[test]
fn communication_is_exact() {
    let n = 5;
    let instances = 3;
    // Inputs: a (party 0), b (party 1), both 16 bits; 16-bit comparator.
    let c = gen::cmp_gt(16, 2);
    let ands = huddle_circuit::Stats::of(&c).and_count;
    let mut prg = Prg::from_seed([14; 16]);
    let inputs = random_inputs(&c, &mut prg, instances);
    for ((protocol, variant), small_field) in SEMI_HONEST
        .into_iter()
        .flat_map(|v| [(v, false), (v, true)])
    {
        let t = variant.threshold(n);
        let contributors = t + 1;
        let opts = Optimizations {
            small_field,
            ..Optimizations::default()
        };
        let (outs, acc) = run_with(protocol, n, &c, &inputs, opts);
        let want = PlainEvaluator::new(&c)
            .evaluate(&inputs)
            .expect("plaintext");
        assert!(outs.iter().all(|o| o == &want), "{protocol} {opts:?}");
        let bit_share = if small_field { 2 } else { 16 };
        let owned = |p: usize| if p < 2 { 16 } else { 0 };
        for from in 0..n {
            for to in 0..n {
                if from == to {
                    continue;
                }
                // Setup: the lower party of each pair sends a 16-byte seed.
                let setup = if from < to { 16 } else { 0 };
                assert_eq!(
                    acc.link(Phase::Setup, from, to).bytes,
                    setup,
                    "{protocol} setup {from}->{to}"
                );
                // Function-independent, round 1: λ shares (one per AND, one
                // per owned input wire), R if contributing.
                let offline = (bit_share * (ands + owned(from))
                    + 16 * usize::from(from < contributors))
                    * instances;
                assert_eq!(
                    acc.link(Phase::Offline, from, to).bytes as usize,
                    offline,
                    "{protocol} offline {from}->{to}"
                );
                // Function-dependent: degree reduction, then the garbled
                // circuit and the output λ shares to the evaluator.
                let mut dependent = 0;
                if variant == Variant::Bgw3 {
                    dependent += bit_share * ands * instances;
                }
                if to == 0 {
                    dependent += (garbled_circuit_bytes(ands, contributors) + 16) * instances;
                }
                assert_eq!(
                    acc.link(Phase::Dependent, from, to).bytes as usize,
                    dependent,
                    "{protocol} dependent {from}->{to}"
                );
                // Online: e bits to contributors, keys to the evaluator, outputs from it.
                let mut online = 0;
                if to < contributors && owned(from) > 0 {
                    online += (owned(from) * instances).div_ceil(8);
                }
                if to == 0 && from < contributors {
                    online += 16 * 32 * instances;
                }
                if from == 0 {
                    online += instances.div_ceil(8);
                }
                assert_eq!(
                    acc.link(Phase::Online, from, to).bytes as usize,
                    online,
                    "{protocol} online {from}->{to}"
                );
            }
        }
        assert_eq!(acc.rounds(Phase::Online), 3, "{protocol}");
        assert_eq!(acc.rounds(Phase::Offline), 1, "{protocol}");
        assert_eq!(
            acc.rounds(Phase::Dependent),
            if variant == Variant::Bgw3 { 2 } else { 1 },
            "{protocol}"
        );
    }
    assert_eq!(Optimizations::default().contributors(Variant::Bgw3, 5), 3);
    assert_eq!(Optimizations::default().contributors(Variant::Bgw2, 5), 2);
    assert_eq!(Optimizations::NONE.contributors(Variant::Bgw2, 5), 5);
}

/// A batch whose garbling state exceeds the share memory is garbled and
/// evaluated chunk by chunk (here one instance at a time): the right
/// outputs at every party, exactly the bytes of the run in one piece on
/// every link and phase (the circuit's inputs and outputs fill whole bytes,
/// so every message is the same per instance), and the rounds of one chunk
/// after another, the setup and the semi-honest outputs once.
#[test]
fn a_batch_beyond_the_share_memory_is_garbled_chunk_by_chunk() {
    let n = 5;
    let instances = 7;
    let c = gen::generate("mult-schoolbook", 8, 2).expect("generate");
    let mut prg = Prg::from_seed([15; 16]);
    let inputs = random_inputs(&c, &mut prg, instances);
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("plaintext");
    // bgw2-mal twice: its linear preprocessing from PRSS, then from the
    // trusted dealer, whose material is consumed instance after instance.
    let runs = VARIANTS
        .iter()
        .map(|&(p, _)| (p, LinearChoice::Auto))
        .chain([("bgw2-mal", LinearChoice::TrustedDealer)]);
    for (protocol, linear) in runs {
        let options = RunOptions::default().with_linear(linear);
        let (outs, whole) = run_options(protocol, n, &c, &inputs, options);
        for (p, a) in outs.iter().enumerate() {
            assert!(a == &want, "{protocol}: party {p}, in one piece");
        }
        // With two threads the semi-honest evaluator evaluates each chunk
        // beside the next one's garbling: nothing on the wire changes.
        for threads in [1, 2] {
            let chunked_options = options.with_share_memory(1).with_threads(threads);
            let (chunked_outs, chunked) = run_options(protocol, n, &c, &inputs, chunked_options);
            for (p, b) in chunked_outs.iter().enumerate() {
                assert!(
                    b == &want,
                    "{protocol}: party {p}, chunk by chunk, {threads} threads"
                );
            }
            check_chunked_traffic(protocol, n, instances, &whole, &chunked);
        }
    }
}

/// The traffic of a run chunk by chunk (one instance per chunk) against
/// the same run in one piece.
fn check_chunked_traffic(
    protocol: &str,
    n: usize,
    instances: usize,
    whole: &Accounting,
    chunked: &Accounting,
) {
    for phase in Phase::ALL {
        for from in 0..n {
            for to in (0..n).filter(|&to| to != from) {
                assert_eq!(
                    chunked.link(phase, from, to).bytes,
                    whole.link(phase, from, to).bytes,
                    "{protocol} {phase:?} {from}->{to}"
                );
            }
        }
        // A phase's rounds are its longest chain of messages. Chunks
        // follow one another: the setup runs once; a chain goes on
        // through every chunk where a chunk's first messages of the
        // phase wait for the last chunk's (offline; bgw3's degree
        // reduction; online, where semi-honest outputs travel once,
        // after the last chunk); bgw2's dependent phase only sends to the
        // evaluator, which sends nothing in it, so its chains stay one
        // round long. bgw2-mal evaluates the batch jointly: first every
        // chunk's masked inputs (round A, one round per chunk, each after
        // the last chunk's arrived), then per chunk the input keys, output
        // keys and confirmed outputs (B, C, D), where the next chunk's keys
        // wait for C and the evaluator's D only: two rounds per chunk and
        // the last D.
        let chunks = instances as u32;
        let want = match (phase, protocol) {
            (Phase::Setup | Phase::Verify, _) => whole.rounds(phase),
            (Phase::Online, "bgw2-mal") => 3 * chunks + 1,
            (Phase::Online, _) => 2 * chunks + 1,
            (Phase::Dependent, "bgw3") => 2 * chunks,
            (Phase::Dependent, _) => 1,
            (Phase::Offline, _) => whole.rounds(phase) * chunks,
        };
        assert_eq!(chunked.rounds(phase), want, "{protocol} {phase:?} rounds");
    }
}

/// BGW2_opt^mal's exact communication for n = 5 (t = 1, two key
/// contributors), with PRSS and with the trusted dealer: the setup carries
/// the zero-sharing seeds, and with PRSS one 16-byte contribution per key
/// the two parties share plus a 32-byte digest; round 1 costs nothing; the
/// garbled circuit (AND rows and buffer rows) goes to the evaluator with no
/// output λ; online: masked inputs, keys, each contributor's output keys,
/// and every contributor's report to every party (4 rounds).
#[test]
fn malicious_communication_is_exact() {
    let n = 5;
    let instances = 3;
    let c = gen::adder_sklansky(16, 2); // 17 output bits, all XOR outputs
    let (ands, buffers) = malicious_gate_counts(&c).expect("boolean");
    assert_eq!(buffers, 17);
    let mut prg = Prg::from_seed([18; 16]);
    let inputs = random_inputs(&c, &mut prg, instances);
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("plaintext");
    let variant = Variant::Bgw2Mal;
    let contributors = variant.threshold(n) + 1;
    assert_eq!(contributors, 2);
    for linear in [LinearChoice::Prss, LinearChoice::TrustedDealer] {
        let nets = memory_networks(n, &NetProfile::lan(), Duration::from_secs(60));
        let options = RunOptions::default().with_linear(linear);
        let results = local("bgw2-mal", nets, &c, &inputs, options)
            .unwrap_or_else(|e| panic!("{linear:?}: {e}"));
        let mut acc = Accounting::default();
        for r in &results {
            assert_eq!(r.outputs, want, "{linear:?}");
            acc.merge(&r.accounting);
        }
        let owned = |p: usize| if p < 2 { 16 } else { 0 };
        let outputs = 17 * instances;
        for from in 0..n {
            for to in (0..n).filter(|&to| to != from) {
                let mut setup = if from < to { 16 } else { 0 };
                if linear == LinearChoice::Prss {
                    // Sets of t = 1 parties outside both (3), and the empty set.
                    setup += 16 * (3 + 1) + 32;
                }
                assert_eq!(
                    acc.link(Phase::Setup, from, to).bytes as usize,
                    setup,
                    "{linear:?} setup {from}->{to}"
                );
                assert_eq!(acc.link(Phase::Offline, from, to).bytes, 0);
                let dependent = if to == 0 {
                    (garbled_circuit_bytes(ands, contributors)
                        + buffer_gate_bytes(buffers, contributors))
                        * instances
                } else {
                    0
                };
                assert_eq!(
                    acc.link(Phase::Dependent, from, to).bytes as usize,
                    dependent,
                    "{linear:?} dependent {from}->{to}"
                );
                let mut online = 0;
                if to < contributors && owned(from) > 0 {
                    online += (owned(from) * instances).div_ceil(8);
                }
                if to == 0 && from < contributors {
                    online += 16 * 32 * instances;
                }
                if from == 0 && to < contributors {
                    online += 16 * outputs; // k^j of every output wire
                }
                if from < contributors {
                    online += outputs.div_ceil(8); // the report
                }
                assert_eq!(
                    acc.link(Phase::Online, from, to).bytes as usize,
                    online,
                    "{linear:?} online {from}->{to}"
                );
            }
        }
        assert_eq!(acc.rounds(Phase::Offline), 0, "{linear:?}");
        assert_eq!(acc.rounds(Phase::Dependent), 1, "{linear:?}");
        assert_eq!(acc.rounds(Phase::Online), 4, "{linear:?}");
        let setup_rounds = if linear == LinearChoice::Prss { 2 } else { 1 };
        assert_eq!(acc.rounds(Phase::Setup), setup_rounds, "{linear:?}");
    }
}

/// Round 3 sends a small circuit's garbled rows a few instances per
/// message (as many as fit in 256 KiB), not one message per instance: a
/// 16-bit comparator's rows of 1000 instances (about 2 kB each) reach the
/// evaluator in 8 messages per link.
#[test]
fn small_instances_share_a_message_of_garbled_rows() {
    let n = 3;
    let c = gen::cmp_gt(16, 2);
    let ands = huddle_circuit::Stats::of(&c).and_count;
    let mut prg = Prg::from_seed([15; 16]);
    for instances in [1, 1000] {
        let inputs = random_inputs(&c, &mut prg, instances);
        let (outs, acc) = run_with("bgw3", n, &c, &inputs, Optimizations::default());
        let want = PlainEvaluator::new(&c)
            .evaluate(&inputs)
            .expect("plaintext");
        assert!(outs.iter().all(|o| o == &want));
        // 4 rows per AND and contributor (2 of the 3 parties contribute)
        // and one output λ, 16 bytes each, per instance.
        let instance_bytes = 16 * (4 * ands * 2 + 1);
        let per_message = (256 << 10) / instance_bytes;
        for from in 1..n {
            let link = acc.link(Phase::Dependent, from, 0);
            // BGW3's round 2 goes to every party, one message per instance.
            let degree_reduction = instances as u64;
            let rows = instances.div_ceil(per_message) as u64;
            assert_eq!(
                link.messages,
                degree_reduction + rows,
                "{instances}: {from}->0"
            );
        }
    }
}
