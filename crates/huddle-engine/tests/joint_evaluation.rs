//! A batch is one joint evaluation under every protocol that claims
//! security against malicious parties: no honest party releases anything
//! that opens an output (a reveal message, a garbled circuit's input keys)
//! before it has received every party's inputs for every slice of the batch
//! and every lane. Otherwise a cheating party would see the outputs of the
//! first slices before choosing its inputs for the later ones.
//!
//! The order is read from each party's traffic log (its sends and receives
//! in the order they happened, over all its lanes). The circuits are shaped
//! so that message sizes tell the kinds apart: input values of 29 words per
//! slice, outputs of 31, and no other message of a multiple of either.

mod common;

use huddle_circuit::builder::Builder;
use huddle_circuit::{BitMatrix, Circuit};
use huddle_core::Prg;
use huddle_engine::{Randomness, RunOptions};
use huddle_net::{memory_networks, NetProfile, Phase, Traffic, TrafficLog};
use std::time::Duration;

const PARTIES: usize = 4;

/// One input value of `in_bits` bits per party and an output of `out_bits`
/// bits: its first 23 bits are ANDs of two parties' bits (one layer), the
/// rest XORs, so that no multiplication message has the size of an input
/// or output message.
fn circuit(in_bits: u32, out_bits: u32) -> Circuit {
    let mut b = Builder::boolean(2);
    let x: Vec<Vec<_>> = (0..PARTIES)
        .map(|p| b.input(&format!("x{p}"), in_bits))
        .collect();
    let bit = |p: usize, j: usize| x[p % PARTIES][j % in_bits as usize];
    let out = (0..out_bits as usize)
        .map(|j| {
            let (a, c) = (bit(j, j), bit(j + 1, j + 3));
            if j < 23 {
                b.and(a, c)
            } else {
                b.xor(a, c)
            }
        })
        .collect();
    b.output("y", out);
    b.finish()
}

fn inputs(c: &Circuit, instances: usize, seed: u8) -> Vec<BitMatrix> {
    let mut prg = Prg::from_seed([seed; 16]);
    (0..c.inputs().len())
        .map(|i| {
            let bits = c.input_bits(i);
            let words = bits.div_ceil(64);
            let mut m = BitMatrix::zeros(instances, bits);
            for r in 0..instances {
                for (w, slot) in m.row_mut(r).iter_mut().enumerate() {
                    let live = (bits - 64 * w).min(64);
                    *slot = prg.next_u64() & if live == 64 { !0 } else { (1 << live) - 1 };
                }
            }
            debug_assert_eq!(m.row(0).len(), words);
            m
        })
        .collect()
}

/// Runs `protocol` on every party in memory with traffic logs; returns the
/// logs (party order) after checking the outputs against the evaluator.
fn logged_run(protocol: &str, c: &Circuit, batch: usize, options: RunOptions) -> Vec<Vec<Traffic>> {
    let mut nets = memory_networks(PARTIES, &NetProfile::lan(), Duration::from_secs(60));
    let logs: Vec<TrafficLog> = nets.iter_mut().map(|n| n.record_traffic()).collect();
    let inputs = inputs(c, batch, 7);
    let results = common::local(protocol, nets, c, &inputs, options).expect("run");
    let want = huddle_circuit::PlainEvaluator::new(c)
        .evaluate(&inputs)
        .expect("plain");
    for (p, r) in results.iter().enumerate() {
        assert_eq!(r.outputs, want, "{protocol}: party {p}'s outputs");
    }
    logs.into_iter()
        .map(|l| l.lock().expect("log").clone())
        .collect()
}

/// Where in `log` the last received message of an input kind and the first
/// sent message of an opening kind are, with their counts.
fn first_opening_after_last_input(
    log: &[Traffic],
    is_input: impl Fn(&Traffic) -> bool,
    opens: impl Fn(&Traffic) -> bool,
) -> (Option<usize>, Option<usize>, usize, usize) {
    let last_input = log.iter().rposition(|t| !t.sent && is_input(t));
    let first_open = log.iter().position(|t| t.sent && opens(t));
    let inputs = log.iter().filter(|t| !t.sent && is_input(t)).count();
    let openings = log.iter().filter(|t| t.sent && opens(t)).count();
    (last_input, first_open, inputs, openings)
}

#[test]
fn malicious_sharing_reveals_nothing_before_every_slice_and_lane_has_its_inputs() {
    let c = circuit(29, 31);
    // 4 slices of 64 instances (one word per wire) at the smallest share
    // memory, or 2 lanes of 128.
    let batch = 256;
    let words = |t: &Traffic| t.bytes.is_multiple_of(8).then_some(t.bytes / 8);
    let in_phase = |t: &Traffic| matches!(t.phase, Phase::Online | Phase::Verify);
    for protocol in ["quad", "quad-het", "fantastic4", "tetrad"] {
        // Slices one after another (one lane), and lanes at once (two
        // lanes of one slice each).
        for (threads, share_memory) in [(1, 1), (2, RunOptions::default().share_memory)] {
            let options = RunOptions::default()
                .with_share_memory(share_memory)
                .with_threads(threads)
                .with_randomness(Randomness::Seeded([3; 16]));
            let logs = logged_run(protocol, &c, batch, options);
            // Parties that receive input shares (some derive theirs from
            // keys and receive none; they have nothing to wait for).
            let mut receivers = 0;
            // Likewise parties that send output components (some send only
            // digests that vouch for another's).
            let mut senders = 0;
            for (p, log) in logs.iter().enumerate() {
                let what = format!("{protocol}, {threads} lane(s), party {p}");
                // Shares of input values: 29 words (per share component sent).
                let is_input = |t: &Traffic| {
                    in_phase(t) && words(t).is_some_and(|w| w % 29 == 0 && w <= 3 * 29)
                };
                // An output's missing component: 31 words.
                let opens = |t: &Traffic| {
                    in_phase(t) && words(t).is_some_and(|w| w % 31 == 0 && w <= 3 * 31)
                };
                let (last_input, first_open, inputs, openings) =
                    first_opening_after_last_input(log, is_input, opens);
                assert!(
                    inputs == 0 || inputs >= 2,
                    "{what}: every slice's inputs arrive ({inputs})"
                );
                receivers += usize::from(inputs > 0);
                assert!(
                    openings == 0 || openings >= 2,
                    "{what}: every slice is revealed ({openings})"
                );
                senders += usize::from(openings > 0);
                assert!(
                    first_open.is_none() || last_input < first_open,
                    "{what}: a reveal message (log entry {first_open:?}) went out before the last \
                     input message arrived (entry {last_input:?})"
                );
            }
            assert!(
                receivers >= 2 && senders >= 2,
                "{protocol}: input shares travel to {receivers} parties, outputs from {senders}"
            );
        }
    }
}

#[test]
fn malicious_garbling_sends_no_input_keys_before_every_chunk_has_its_inputs() {
    // One instance per chunk (the least share memory): masked inputs are
    // 29 bytes per owner and chunk (232 bits), every other message larger
    // or of another size (confirmed outputs: 31 bytes).
    let c = circuit(232, 248);
    let batch = 5;
    let options = RunOptions::default()
        .with_share_memory(1)
        .with_randomness(Randomness::Seeded([4; 16]));
    let logs = logged_run("bgw2-mal", &c, batch, options);
    let contributors = options
        .garble
        .contributors(huddle_engine::garble::Variant::Bgw2Mal, PARTIES);
    for (p, log) in logs.iter().enumerate().take(contributors) {
        let online = |t: &Traffic| t.phase == Phase::Online;
        // Round A: the masked inputs of one owner for one chunk.
        let is_input = |t: &Traffic| online(t) && t.bytes == 29;
        // Rounds B-D: input keys to the evaluator, output keys, confirmed
        // outputs: everything after the masked inputs.
        let opens = |t: &Traffic| online(t) && t.bytes != 29;
        let (last_input, first_open, inputs, openings) =
            first_opening_after_last_input(log, is_input, opens);
        assert_eq!(
            inputs,
            (PARTIES - 1) * batch,
            "party {p}: every other owner's masked inputs, every chunk"
        );
        assert!(
            openings >= batch,
            "party {p}: every chunk's outputs ({openings})"
        );
        assert!(
            last_input < first_open,
            "party {p}: an opening message (log entry {first_open:?}) went out before the last \
             masked input arrived (entry {last_input:?})"
        );
    }
}

/// A lane that fails while another waits to reveal stops the run with the
/// failure, at every party, without a hang and without any output: here
/// one slice of one unit per lane-split, so lane 0 of every party has no
/// instances and waits at once, and lane 1 meets a corrupted party.
#[test]
fn a_failing_lane_releases_the_others_and_nothing_is_revealed() {
    use huddle_engine::fault::{Fault, FaultKind};
    let c = circuit(29, 31);
    for protocol in ["quad", "fantastic4"] {
        let options = RunOptions::default()
            .with_share_memory(1)
            .with_threads(2)
            .with_fault(Some(Fault {
                party: 2,
                kind: FaultKind::AddError,
                message: None,
                seed: 5,
            }));
        let nets = memory_networks(PARTIES, &NetProfile::lan(), Duration::from_secs(60));
        let run = common::request(protocol, PARTIES, &c, options).expect("request");
        let err = run
            .local_over(nets, &inputs(&c, 256, 1))
            .expect_err("a corrupted party is caught");
        assert!(
            matches!(err.error, huddle_engine::error::RunError::Abort { .. }),
            "{protocol}: {err}"
        );
    }
}
