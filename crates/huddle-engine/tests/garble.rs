//! Multiparty garbling (BGW3_opt, BGW2_opt, BGW2_opt^mal): every public
//! circuit and random circuits for several party counts, equal to the
//! plaintext evaluator at every party; the exact bytes of every link and
//! phase (the garbled circuit is 4 · #AND · (t + 1) · 16 bytes per party,
//! plus 2 rows per buffer gate in the malicious variant); the round counts;
//! refusals; corrupted messages (abort or the right output, never a wrong
//! one).

use huddle_circuit::random::{random_circuit, random_inputs, RandomCircuitSpec};
use huddle_circuit::{gen, BitMatrix, Circuit, PlainEvaluator};
use huddle_core::{Prg, RingWidth};
use huddle_engine::error::{Refusal, RunError};
use huddle_engine::garble::linear::LinearChoice;
use huddle_engine::garble::{
    buffer_gate_bytes, garbled_circuit_bytes, malicious_gate_counts, Optimizations, Variant,
};
use huddle_engine::inputs::OwnValue;
use huddle_engine::RunOptions;
use huddle_net::{memory_networks, Accounting, NetProfile, Phase};
use std::time::Duration;

mod common;
use common::{assert_looks_uniform, local, request};

/// The semi-honest variants (the optimization switches apply to these).
const SEMI_HONEST: [(&str, Variant); 2] = [("bgw3", Variant::Bgw3), ("bgw2", Variant::Bgw2)];
/// Every variant.
const VARIANTS: [(&str, Variant); 3] = [
    ("bgw3", Variant::Bgw3),
    ("bgw2", Variant::Bgw2),
    ("bgw2-mal", Variant::Bgw2Mal),
];

/// Whether `variant` has any security with `n` parties (t >= 1).
fn secure(variant: Variant, n: usize) -> bool {
    n >= variant.smallest_secure_parties()
}

fn run(
    protocol: &str,
    n: usize,
    circuit: &Circuit,
    inputs: &[BitMatrix],
) -> (Vec<Vec<BitMatrix>>, Accounting) {
    run_with(protocol, n, circuit, inputs, Optimizations::default())
}

fn run_with(
    protocol: &str,
    n: usize,
    circuit: &Circuit,
    inputs: &[BitMatrix],
    garble: Optimizations,
) -> (Vec<Vec<BitMatrix>>, Accounting) {
    let options = RunOptions::default().with_garble(garble);
    run_options(protocol, n, circuit, inputs, options)
}

fn run_options(
    protocol: &str,
    n: usize,
    circuit: &Circuit,
    inputs: &[BitMatrix],
    options: RunOptions,
) -> (Vec<Vec<BitMatrix>>, Accounting) {
    let nets = memory_networks(n, &NetProfile::lan(), Duration::from_secs(60));
    let results = local(protocol, nets, circuit, inputs, options)
        .unwrap_or_else(|e| panic!("{protocol}, {n} parties: {e}"));
    let mut acc = Accounting::default();
    for r in &results {
        acc.merge(&r.accounting);
    }
    (results.into_iter().map(|r| r.outputs).collect(), acc)
}

fn check(protocol: &str, n: usize, name: &str, circuit: &Circuit, instances: usize, prg: &mut Prg) {
    let inputs = random_inputs(circuit, prg, instances);
    let want = PlainEvaluator::new(circuit)
        .evaluate(&inputs)
        .expect("plaintext");
    let (outs, _) = run(protocol, n, circuit, &inputs);
    for (p, got) in outs.iter().enumerate() {
        assert!(
            got == &want,
            "{protocol}, {n} parties, {name}: party {p} differs from the plaintext evaluator"
        );
    }
}

#[test]
fn aes_for_seven_and_thirteen_parties() {
    let mut prg = Prg::from_seed([12; 16]);
    let aes = gen::generate("aes128", 128, 2).expect("generate");
    for (protocol, _) in VARIANTS {
        for n in [7, 13] {
            check(protocol, n, "aes128", &aes, 1, &mut prg);
        }
    }
}

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

/// Longest chain of dependent messages ending at party `p` in the
/// hypercube sum: party s sends at step lowbit(s) after hearing from
/// s + 2^k for every earlier step k (party 0 hears from every 2^k < n).
fn hypercube_depth(p: usize, n: usize) -> usize {
    let steps = if p == 0 {
        usize::BITS
    } else {
        p.trailing_zeros()
    };
    (0..steps)
        .map(|k| 1usize << k)
        .filter(|&d| p + d < n)
        .map(|d| 1 + hypercube_depth(p + d, n))
        .max()
        .unwrap_or(0)
}

/// Every combination of the switchable optimizations gives the right
/// outputs, and each changes exactly what it should: key contributors (and
/// so the garbled circuit), setup seeds versus dealt zero shares, and the
/// rounds of the last offline step.
#[test]
fn each_optimization_switches_independently() {
    let c = gen::adder_sklansky(16, 2);
    let ands = huddle_circuit::Stats::of(&c).and_count;
    let mut prg = Prg::from_seed([15; 16]);
    let instances = 2;
    let inputs = random_inputs(&c, &mut prg, instances);
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("plaintext");
    for (protocol, variant) in SEMI_HONEST {
        for n in [3, 5, 8].into_iter().filter(|&n| secure(variant, n)) {
            for o in every_optimization_combination() {
                let (outs, acc) = run_with(protocol, n, &c, &inputs, o);
                for got in &outs {
                    assert!(got == &want, "{protocol} n={n} {o:?}");
                }
                let contributors = o.contributors(variant, n);
                // The garbled circuit reaches the evaluator whole from party 1
                // (directly, or carrying the sums of others through the hypercube).
                let gc = garbled_circuit_bytes(ands, contributors) * instances;
                let into_evaluator = acc.link(Phase::Dependent, 1, 0).bytes as usize;
                assert!(into_evaluator >= gc, "{protocol} n={n} {o:?}");
                let seeds = acc.phase_total(Phase::Setup).bytes as usize;
                let zero_by_prg = o.reduced_complexity && o.prg_zero_sharing;
                let want_seeds = if zero_by_prg { 16 * n * (n - 1) / 2 } else { 0 };
                assert_eq!(seeds, want_seeds, "{protocol} n={n} {o:?}");
                let reduction = usize::from(variant == Variant::Bgw3);
                let last = if o.hypercube {
                    hypercube_depth(0, n)
                } else {
                    1
                };
                assert_eq!(acc.rounds(Phase::Offline), 1, "{protocol} n={n} {o:?}");
                assert_eq!(
                    acc.rounds(Phase::Dependent) as usize,
                    reduction + last,
                    "{protocol} n={n} {o:?}"
                );
                let round1 = acc.link(Phase::Offline, 0, n - 1).bytes as usize;
                if o.reduced_complexity && !o.prg_zero_sharing {
                    // Dealer 0 sends the last party a zero share per garbled-row value.
                    assert!(round1 >= 16 * 4 * ands * contributors * instances);
                }
                if !o.reduced_complexity {
                    // Contributor 0 Shamir-shares its F² values and output keys.
                    assert!(round1 >= 16 * (4 * contributors + 1) * ands * instances);
                }
                if zero_by_prg {
                    // Only its λ shares, its 16 input λs (2 bytes each over
                    // the subfield) and its R.
                    let bit_share = if o.small_field { 2 } else { 16 };
                    assert_eq!(round1, (bit_share * (ands + 16) + 16) * instances);
                }
            }
        }
    }
}

#[test]
fn bad_requests_are_refused_before_any_communication() {
    let c = gen::cmp_gt(8, 2);
    let opts = RunOptions::default();
    for (protocol, variant) in VARIANTS {
        let e = request(protocol, 2, &c, opts).expect_err("2 parties");
        let no_security = Refusal::NoSecurity {
            smallest: variant.smallest_secure_parties(),
        };
        assert!(
            matches!(e, RunError::Refused { refusal, .. } if refusal == no_security),
            "{e}"
        );
        // t = 0 is refused with the smallest secure party count named.
        let smallest = variant.smallest_secure_parties();
        let e = request(protocol, smallest - 1, &c, opts).expect_err("t = 0");
        assert!(
            e.to_string()
                .contains(&format!("at least {smallest} parties")),
            "{e}"
        );
        assert!(request(protocol, smallest, &c, opts).is_ok());
        let to1 = opts.with_reveal_to(Some(1));
        let e = request(protocol, 4, &c, to1).expect_err("reveal to 1");
        assert!(
            e.to_string().contains("evaluator") || e.to_string().contains("contributors"),
            "{e}"
        );
        let mut prg = Prg::from_seed([1; 16]);
        let ring = random_circuit(
            &RandomCircuitSpec::arithmetic(RingWidth::ALL[0], &[2, 2], 20, 2),
            &mut prg,
        );
        let e = request(protocol, 4, &ring, opts).expect_err("ring");
        assert!(e.to_string().contains("Boolean"), "{e}");
        assert!(request(protocol, 31, &c, opts).is_ok());
    }
    let plain = opts.with_garble(Optimizations::NONE);
    let e = request("bgw2-mal", 4, &c, plain).expect_err("no reduced");
    assert!(e.to_string().contains("reduced"), "{e}");
    // PRSS for 31 parties (C(31, 10) sets) is refused with the way out named.
    let prss = opts.with_linear(LinearChoice::Prss);
    let e = request("bgw2-mal", 31, &c, prss).expect_err("PRSS at 31");
    assert!(e.to_string().contains("trusted dealer"), "{e}");
    let mut prg = Prg::from_seed([2; 16]);
    let inputs = random_inputs(&c, &mut prg, 1);
    for _ in 0..3 {
        let nets = memory_networks(31, &NetProfile::lan(), Duration::from_secs(20));
        let e = local("bgw2-mal", nets, &c, &inputs, prss)
            .err()
            .expect("PRSS at 31 parties");
        assert!(e.contains("trusted dealer"), "{e}");
    }
}

#[test]
fn thirty_one_parties() {
    let mut prg = Prg::from_seed([16; 16]);
    let c = gen::cmp_gt(16, 2);
    for (protocol, _) in VARIANTS {
        check(protocol, 31, "cmp-gt 16", &c, 3, &mut prg);
    }
}

/// A corrupted party: one bit flipped at a chosen byte of the `nth`
/// message it sends to `to` in `phase` (the semi-honest trials: its
/// function-dependent message to the evaluator).
struct Tamper {
    net: huddle_net::Network,
    flip_at: Option<usize>,
    phase: Phase,
    to: usize,
    nth: usize,
    bit: u8,
}

impl Tamper {
    fn honest(net: huddle_net::Network) -> Tamper {
        Tamper {
            net,
            flip_at: None,
            phase: Phase::Setup,
            to: 0,
            nth: 0,
            bit: 0,
        }
    }
}

impl huddle_engine::transport::Transport for Tamper {
    fn party(&self) -> usize {
        self.net.party()
    }
    fn parties(&self) -> usize {
        self.net.parties()
    }
    fn send(&mut self, to: usize, mut data: Vec<u8>) -> Result<(), huddle_net::NetError> {
        if to == self.to && self.net.phase() == self.phase && self.flip_at.is_some() {
            if self.nth == 0 {
                if let Some(at) = self.flip_at.take() {
                    let i = at % data.len();
                    data[i] ^= 1 << self.bit;
                }
            } else {
                self.nth -= 1;
            }
        }
        huddle_engine::transport::Transport::send(&mut self.net, to, data)
    }
    fn recv(&mut self, from: usize, len: usize) -> Result<Vec<u8>, huddle_net::NetError> {
        huddle_engine::transport::Transport::recv(&mut self.net, from, len)
    }
    fn set_phase(&mut self, phase: Phase) {
        self.net.set_phase(phase)
    }
    fn phase(&self) -> Phase {
        self.net.phase()
    }
}

/// Corrupting any byte of a party's garbled-row shares makes the evaluator
/// abort or still output the right value (the row was not the one it
/// opened), never output a wrong value. Under BGW3 the first corrupted
/// message is a degree-reduction share, which spoils every row of its gate.
#[test]
fn a_corrupted_garbled_row_aborts_or_is_harmless_never_wrong() {
    for variant in [Variant::Bgw2, Variant::Bgw3] {
        tamper_trials(variant);
    }
}

fn tamper_trials(variant: Variant) {
    let c = gen::cmp_gt(8, 2);
    let mut prg = Prg::from_seed([17; 16]);
    let inputs = random_inputs(&c, &mut prg, 1);
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("plaintext");
    let (mut aborted, mut harmless) = (0, 0);
    // Whether a flipped row is opened depends on the masks (seeded per trial).
    for trial in 0..40usize {
        let results = tampered_run(variant, &c, &inputs, 2, trial, |net| Tamper {
            flip_at: Some(trial * 977),
            phase: Phase::Dependent,
            ..Tamper::honest(net)
        });
        match &results[0] {
            Ok(out) => {
                assert_eq!(out, &want, "trial {trial}: a wrong output after tampering");
                harmless += 1;
            }
            Err(e) => {
                // A detected corruption is an abort, not bad input or a bug.
                assert!(matches!(e, RunError::Abort { .. }), "trial {trial}: {e:?}");
                let e = e.to_string();
                assert!(
                    e.contains("neither") || e.contains("reconstructs"),
                    "trial {trial}: {e}"
                );
                aborted += 1;
            }
        }
    }
    assert!(aborted > 0, "{variant:?}: no abort in 40 corruptions");
    // Seeded trials replay: the same trial ends the same way again.
    for trial in [0, 1, 2] {
        let once = |_| {
            let r = tampered_run(variant, &c, &inputs, 2, trial, |net| Tamper {
                flip_at: Some(trial * 977),
                phase: Phase::Dependent,
                ..Tamper::honest(net)
            });
            r[0].as_ref().map_err(|e| e.to_string()).cloned()
        };
        assert_eq!(
            once(0),
            once(1),
            "{variant:?}, trial {trial} does not replay"
        );
    }
    if variant == Variant::Bgw2 {
        // Three rows in four are never opened.
        assert!(harmless > 0, "{variant:?}: every corruption aborted");
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

/// Runs `variant` for 4 parties (bgw2-mal: t = 1, contributors 0 and 1) on
/// every instance of `inputs` with party `corrupt` flipping one bit as
/// `tamper` says; returns every party's result.
fn tampered_run(
    variant: Variant,
    c: &Circuit,
    inputs: &[BitMatrix],
    corrupt: usize,
    trial: usize,
    tamper: impl Fn(huddle_net::Network) -> Tamper + Sync,
) -> Vec<Result<Vec<BitMatrix>, RunError>> {
    // Seeded: which rows the evaluator opens follows from the masks, so a
    // trial hits or misses the same way on every run of the suite.
    let mut seed = [0x5a; 16];
    seed[..8].copy_from_slice(&(trial as u64).to_le_bytes());
    let options = RunOptions::default().with_randomness(huddle_engine::Randomness::Seeded(seed));
    let n = 4;
    let instances = inputs.first().map_or(1, BitMatrix::rows);
    let nets = memory_networks(n, &NetProfile::lan(), Duration::from_secs(20));
    std::thread::scope(|s| {
        let handles: Vec<_> = nets
            .into_iter()
            .map(|net| {
                let tamper = &tamper;
                s.spawn(move || {
                    let me = net.party();
                    let mut t = if me == corrupt {
                        tamper(net)
                    } else {
                        Tamper::honest(net)
                    };
                    let own: Vec<(usize, BitMatrix)> = (0..c.inputs().len())
                        .filter(|&i| c.owner(i, n) == me)
                        .map(|i| (i, inputs[i].clone()))
                        .collect();
                    huddle_engine::garble::run(&mut t, variant, c, instances, &own, options)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .collect()
    })
}

/// Fault injection against BGW2_opt^mal: a corrupted party adding an error
/// to its garbled-row shares (a key contributor or not), to the input keys
/// it sends the evaluator, to its masked inputs, to its output report, the
/// evaluator to an output key, or a party to its PRSS key contribution.
/// Every honest party ends with the right output or an abort, never a
/// wrong output; the corruptions that must be noticed are.
#[test]
fn malicious_garbling_aborts_or_is_right_never_wrong() {
    let c = gen::adder_sklansky(8, 2); // 9 output bits, each behind a buffer gate
    let mut prg = Prg::from_seed([19; 16]);
    let inputs = random_inputs(&c, &mut prg, 2);
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("plaintext");
    struct Case {
        name: &'static str,
        corrupt: usize,
        phase: Phase,
        to: usize,
        nth: usize,
        /// A party that must abort whatever byte is hit.
        must_abort: Option<usize>,
    }
    let cases = [
        Case {
            name: "garbled rows of a non-contributor",
            corrupt: 2,
            phase: Phase::Dependent,
            to: 0,
            nth: 0,
            must_abort: None,
        },
        Case {
            name: "garbled rows of a contributor",
            corrupt: 1,
            phase: Phase::Dependent,
            to: 0,
            nth: 0,
            must_abort: None,
        },
        Case {
            name: "masked inputs to the evaluator",
            corrupt: 1,
            phase: Phase::Online,
            to: 0,
            nth: 0,
            must_abort: None,
        },
        Case {
            name: "input keys of a contributor",
            corrupt: 1,
            phase: Phase::Online,
            to: 0,
            nth: 1,
            must_abort: None,
        },
        Case {
            name: "output report of a contributor",
            corrupt: 1,
            phase: Phase::Online,
            to: 3,
            nth: 0,
            must_abort: Some(3),
        },
        Case {
            name: "output key from the evaluator",
            corrupt: 0,
            phase: Phase::Online,
            to: 1,
            nth: 1,
            must_abort: Some(1),
        },
        Case {
            name: "PRSS key contribution",
            corrupt: 3,
            phase: Phase::Setup,
            to: 1,
            nth: 0,
            must_abort: Some(1),
        },
    ];
    for case in &cases {
        let mut aborted = 0;
        // Seeded trials: the same rows are hit on every run.
        let trials = 24;
        for trial in 0..trials {
            let at = trial * 131 + 7;
            let results = tampered_run(Variant::Bgw2Mal, &c, &inputs, case.corrupt, trial, |net| {
                Tamper {
                    flip_at: Some(at),
                    phase: case.phase,
                    to: case.to,
                    nth: case.nth,
                    bit: (trial % 8) as u8,
                    ..Tamper::honest(net)
                }
            });
            let mut any_abort = false;
            for (p, r) in results.iter().enumerate() {
                match r {
                    Ok(out) => assert!(
                        out == &want,
                        "{} (trial {trial}): party {p} output a wrong value",
                        case.name
                    ),
                    Err(_) => any_abort = true,
                }
            }
            if let Some(p) = case.must_abort {
                // Party p's own check catches it, unless another honest
                // party's check fired first and its abort stopped p (which
                // of the two wins is scheduling): p must still stop.
                let own = matches!(results[p], Err(RunError::Abort { .. }));
                let stopped_by_another = results[p].is_err()
                    && results.iter().enumerate().any(|(q, r)| {
                        q != case.corrupt && matches!(r, Err(RunError::Abort { .. }))
                    });
                assert!(
                    own || stopped_by_another,
                    "{} (trial {trial}): party {p} did not abort: {:?} (every party: {:?})",
                    case.name,
                    results[p].as_ref().err(),
                    results
                        .iter()
                        .map(|r| r.as_ref().err().map(ToString::to_string))
                        .collect::<Vec<_>>()
                );
            }
            aborted += usize::from(any_abort);
        }
        // The evaluator opens one row in two of a buffer gate and one in four
        // of an AND gate; a flipped bit elsewhere is harmless. Some must hit.
        assert!(aborted > 0, "{}: no corruption was noticed", case.name);
    }
}

/// The trusted dealer across hosts: `garble::deal` writes each party's
/// material; parties replaying their own file compute correctly, and a
/// file dealt for another party, another circuit or cut short is refused
/// with the reason.
#[test]
fn dealt_material_runs_parties_on_other_hosts() {
    let n = 16; // C(16, 5) = 4368 t-sets: beyond PRSS
    let c = gen::cmp_gt(16, 2);
    let mut prg = Prg::from_seed([21; 16]);
    let inputs = random_inputs(&c, &mut prg, 1);
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("plaintext");
    let options = RunOptions::default().with_linear(LinearChoice::TrustedDealer);
    let files = huddle_engine::garble::deal(&c, n, 1, options).expect("deal");
    let run_with =
        |files: Vec<Vec<u8>>, circuit: &Circuit| -> Vec<Result<Vec<BitMatrix>, String>> {
            let nets = memory_networks(n, &NetProfile::lan(), Duration::from_secs(20));
            std::thread::scope(|s| {
                let handles: Vec<_> = nets
                    .into_iter()
                    .zip(files)
                    .map(|(mut net, file)| {
                        let inputs = &inputs;
                        s.spawn(move || {
                            let me = net.party();
                            let own: Vec<(usize, OwnValue)> = (0..circuit.inputs().len())
                                .filter(|&i| circuit.owner(i, n) == me)
                                .map(|i| (i, OwnValue::Rows(inputs[i].clone())))
                                .collect();
                            let req = request("bgw2-mal", n, circuit, options)
                                .map_err(|e| e.to_string())?;
                            huddle_engine::run_party(
                                &req,
                                &mut net,
                                std::borrow::Cow::Borrowed(circuit),
                                1,
                                own,
                                Some(huddle_engine::garble::LinearSupply::Dealt(file)),
                            )
                            .map_err(|e| e.to_string())
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("thread"))
                    .collect()
            })
        };
    for (p, r) in run_with(files.clone(), &c).into_iter().enumerate() {
        assert_eq!(r.expect("dealt run"), want, "party {p}");
    }
    // Party 3 given party 4's file (and the other way round).
    let mut swapped = files.clone();
    swapped.swap(3, 4);
    let results = run_with(swapped, &c);
    assert!(results[3]
        .as_ref()
        .expect_err("wrong party")
        .contains("dealt for party 4, but this run has party 3"));
    // Material for another circuit, and a file cut short.
    let other = gen::cmp_gt(16, 4);
    let results = run_with(files.clone(), &other);
    assert!(results.iter().all(|r| r.is_err()));
    assert!(results[0]
        .as_ref()
        .expect_err("other circuit")
        .contains("different circuit"));
    let mut short = files;
    let keep = short[5].len() - 100;
    short[5].truncate(keep);
    let results = run_with(short, &c);
    assert!(results[5]
        .as_ref()
        .expect_err("short file")
        .contains("ends early"));
}

/// bgw2-mal under every optimization setting it accepts (reduced complexity
/// is its basis): right outputs, and the garbled circuit of the chosen
/// number of key contributors reaches the evaluator.
#[test]
fn malicious_garbling_under_every_optimization() {
    let c = gen::adder_sklansky(16, 2);
    let (ands, buffers) = malicious_gate_counts(&c).expect("boolean");
    let mut prg = Prg::from_seed([22; 16]);
    let instances = 2;
    let inputs = random_inputs(&c, &mut prg, instances);
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("plaintext");
    for n in [4, 7] {
        for bits in 0..8u8 {
            let o = Optimizations {
                reduced_complexity: true,
                short_superseeds: bits & 1 == 1,
                prg_zero_sharing: bits & 2 == 2,
                hypercube: bits & 4 == 4,
                // No effect: the linear preprocessing shares the bits.
                small_field: true,
            };
            let (outs, acc) = run_with("bgw2-mal", n, &c, &inputs, o);
            for got in &outs {
                assert!(got == &want, "bgw2-mal n={n} {o:?}");
            }
            let contributors = o.contributors(Variant::Bgw2Mal, n);
            let gc = (garbled_circuit_bytes(ands, contributors)
                + buffer_gate_bytes(buffers, contributors))
                * instances;
            let into_evaluator = acc.link(Phase::Dependent, 1, 0).bytes as usize;
            assert!(into_evaluator >= gc, "bgw2-mal n={n} {o:?}");
            assert_eq!(acc.rounds(Phase::Online), 4, "bgw2-mal n={n} {o:?}");
        }
    }
}

/// `--reveal-to 0` is honoured by the semi-honest variants: only the
/// evaluator receives (and returns) the outputs, and the other parties get
/// no output message at all; bgw2-mal refuses it (its contributors decode
/// the outputs to confirm them).
#[test]
fn reveal_to_the_evaluator_keeps_outputs_from_everyone_else() {
    let c = gen::cmp_gt(8, 2);
    let mut prg = Prg::from_seed([21; 16]);
    let instances = 9;
    let inputs = random_inputs(&c, &mut prg, instances);
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("plaintext");
    let out_bytes =
        (c.outputs().iter().map(|o| o.wires.len()).sum::<usize>() * instances).div_ceil(8) as u64;
    for (protocol, _) in SEMI_HONEST {
        let n = 4;
        let mut per_reveal = Vec::new();
        for reveal_to in [None, Some(0)] {
            let nets = memory_networks(n, &NetProfile::lan(), Duration::from_secs(60));
            let options = RunOptions::default().with_reveal_to(reveal_to);
            let results = local(protocol, nets, &c, &inputs, options).expect("run");
            assert_eq!(results[0].outputs, want, "{protocol} {reveal_to:?}");
            for r in &results[1..] {
                match reveal_to {
                    None => assert_eq!(r.outputs, want, "{protocol}"),
                    Some(_) => assert!(r.outputs.is_empty(), "{protocol}: a party learned outputs"),
                }
            }
            per_reveal.push(results[0].accounting.clone());
        }
        for p in 1..n {
            let all = per_reveal[0].link(Phase::Online, 0, p).bytes;
            let only0 = per_reveal[1].link(Phase::Online, 0, p).bytes;
            assert_eq!(all - only0, out_bytes, "{protocol}: evaluator to party {p}");
        }
    }
    let opts = RunOptions::default().with_reveal_to(Some(0));
    let e = request("bgw2-mal", 4, &c, opts).expect_err("refused");
    assert!(e.to_string().contains("contributors decode"), "{e}");
}

/// What a party receives before the online phase looks uniform, whatever
/// the inputs (here all zero): round 1's shares of the permutation bits
/// and of R, the degree reduction's reshares (2-byte subfield shares by
/// default, 16-byte GF(2^128) shares as in the paper) and the masked rows,
/// read as 16-bit words: every bit set in about half of them and about as
/// many distinct words as uniform draws give. A share that revealed a bit
/// (a constant term alone, or a coefficient from a small set) fails both.
#[test]
fn every_share_a_party_receives_before_the_online_phase_looks_uniform() {
    let c = gen::cmp_gt(16, 2);
    let instances = 64;
    let inputs: Vec<BitMatrix> = c
        .inputs()
        .iter()
        .map(|v| BitMatrix::zeros(instances, v.wires as usize))
        .collect();
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("plaintext");
    for (protocol, n) in [("bgw3", 3), ("bgw3", 5), ("bgw2", 4)] {
        for small_field in [true, false] {
            let options = RunOptions::default().with_garble(Optimizations {
                small_field,
                ..Optimizations::default()
            });
            let mut nets = memory_networks(n, &NetProfile::lan(), Duration::from_secs(60));
            let views: Vec<_> = nets.iter_mut().map(|n| n.record_received()).collect();
            let outs = local(protocol, nets, &c, &inputs, options)
                .unwrap_or_else(|e| panic!("{protocol}: {e}"));
            assert!(outs.iter().all(|r| r.outputs == want), "{protocol}");
            let what = format!("{protocol} n={n} small_field={small_field}");
            let mut checked = 0;
            for (party, view) in views.iter().enumerate() {
                let view = view.lock().expect("transcript");
                for m in view
                    .iter()
                    .filter(|m| matches!(m.phase, Phase::Offline | Phase::Dependent))
                {
                    let what = format!("{what}: P{party} from P{} ({:?})", m.from, m.phase);
                    assert_looks_uniform(&what, &m.payload, 2, 16, 0.9);
                    checked += 1;
                }
            }
            assert!(checked >= n, "{what}: {checked} messages");
        }
    }
}

/// Each of the 32 combinations of the five optimization switches once.
fn every_optimization_combination() -> impl Iterator<Item = Optimizations> {
    (0..32u8).map(|bits| Optimizations {
        reduced_complexity: bits & 1 == 1,
        short_superseeds: bits & 2 == 2,
        prg_zero_sharing: bits & 4 == 4,
        hypercube: bits & 8 == 8,
        small_field: bits & 16 == 16,
    })
}

/// `--opt` spells every combination of switches the way it reads them back,
/// and the CLI's default list is the engine's default.
#[test]
fn optimization_lists_read_back_and_the_default_list_is_the_default() {
    assert_eq!(
        Optimizations::parse(Optimizations::DEFAULT_LIST),
        Ok(Optimizations::default())
    );
    assert_eq!(Optimizations::default().list(), Optimizations::DEFAULT_LIST);
    for o in every_optimization_combination() {
        assert_eq!(Optimizations::parse(&o.list()), Ok(o), "{}", o.list());
    }
}
