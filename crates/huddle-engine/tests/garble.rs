//! Multiparty garbling (BGW3_opt, BGW2_opt): every public circuit and random
//! circuits for several party counts, equal to the plaintext evaluator at
//! every party; the exact bytes of every link and phase (the garbled circuit
//! is 4 · #AND · (t + 1) · 16 bytes per party); the round counts; refusals.

use huddle_circuit::random::{random_circuit, random_inputs, RandomCircuitSpec};
use huddle_circuit::{corpus, gen, read_circuit_file, BitMatrix, Circuit, Format, PlainEvaluator};
use huddle_core::{Prg, RingWidth};
use huddle_engine::garble::{garbled_circuit_bytes, Optimizations, Variant};
use huddle_engine::RunOptions;
use huddle_net::{memory_networks, Accounting, NetProfile, Phase};
use std::time::Duration;

const VARIANTS: [(&str, Variant); 2] = [("bgw3", Variant::Bgw3), ("bgw2", Variant::Bgw2)];

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
    let nets = memory_networks(n, &NetProfile::lan(), Duration::from_secs(60));
    let options = RunOptions {
        garble,
        ..RunOptions::default()
    };
    let results = huddle_engine::run_local(protocol, nets, circuit, inputs, options)
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
fn every_public_circuit_for_several_party_counts() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(dir) = corpus::locate_or_skip(here) else {
        return;
    };
    let mut prg = Prg::from_seed([11; 16]);
    for (path, entry) in corpus::load(&dir).expect("vectors.json") {
        let c = read_circuit_file(&path, Format::Auto).expect("read");
        let big = entry.and_count > 5000;
        for (protocol, _) in VARIANTS {
            for n in [3, 4, 5, 7, 13] {
                if big && n > 5 {
                    continue; // AES and SHA-256 at 7 and 13 parties: see the next test
                }
                check(
                    protocol,
                    n,
                    &entry.file,
                    &c,
                    if big { 2 } else { 20 },
                    &mut prg,
                );
            }
        }
        // The known-answer vectors, through the protocol.
        let v = &entry.vectors[0];
        let inputs: Vec<BitMatrix> = v
            .inputs
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let bits = c.input_bits(i);
                let words = huddle_circuit::hex::decode(h, bits).expect("hex");
                let mut m = BitMatrix::zeros(1, bits);
                m.row_mut(0).copy_from_slice(&words);
                m
            })
            .collect();
        let (outs, _) = run("bgw3", 3, &c, &inputs);
        for (o, want) in outs[1].iter().zip(&v.outputs) {
            assert_eq!(
                &huddle_circuit::hex::encode(o.row(0), o.cols()),
                want,
                "{}",
                entry.file
            );
        }
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

#[test]
fn random_circuits_with_constants_inverters_and_wide_ands() {
    let mut prg = Prg::from_seed([13; 16]);
    for seed in 0..6u8 {
        let mut cprg = Prg::from_seed([seed; 16]);
        let c = random_circuit(&RandomCircuitSpec::boolean(&[9, 17, 3], 200, 5), &mut cprg);
        for (protocol, _) in VARIANTS {
            for n in [3, 4, 6] {
                check(protocol, n, &format!("random {seed}"), &c, 33, &mut prg);
            }
        }
    }
}

/// Exact bytes per directed link and phase, for n = 5 and both variants.
#[test]
fn communication_is_exact() {
    let n = 5;
    let instances = 3;
    // Inputs: a (party 0), b (party 1), both 16 bits; 16-bit comparator.
    let c = gen::cmp_gt(16, 2);
    let ands = huddle_circuit::Stats::of(&c).and_count;
    let mut prg = Prg::from_seed([14; 16]);
    let inputs = random_inputs(&c, &mut prg, instances);
    for (protocol, variant) in VARIANTS {
        let t = variant.threshold(n);
        let contributors = t + 1;
        let (_, acc) = run(protocol, n, &c, &inputs);
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
                let offline =
                    16 * (ands + owned(from) + usize::from(from < contributors)) * instances;
                assert_eq!(
                    acc.link(Phase::Offline, from, to).bytes as usize,
                    offline,
                    "{protocol} offline {from}->{to}"
                );
                // Function-dependent: degree reduction, then the garbled
                // circuit and the output λ shares to the evaluator.
                let mut dependent = 0;
                if variant == Variant::Bgw3 {
                    dependent += 16 * ands * instances;
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
    for (protocol, variant) in VARIANTS {
        for n in [3, 5, 8] {
            for bits in 0..16u8 {
                let o = Optimizations {
                    short_superseeds: bits & 1 == 1,
                    prg_zero_sharing: bits & 2 == 2,
                    hypercube: bits & 4 == 4,
                    reduced_complexity: bits & 8 == 8,
                };
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
                    // Only its λ shares, its 16 input λs and its R.
                    assert_eq!(round1, 16 * (ands + 16 + 1) * instances);
                }
            }
        }
    }
}

#[test]
fn bad_requests_are_refused_before_any_communication() {
    let c = gen::cmp_gt(8, 2);
    let opts = RunOptions::default();
    for (protocol, _) in VARIANTS {
        let e = huddle_engine::check_request(protocol, 2, &c, opts).expect_err("2 parties");
        assert!(e.to_string().contains("at least 3 parties"), "{e}");
        let to1 = RunOptions {
            reveal_to: Some(1),
            ..opts
        };
        let e = huddle_engine::check_request(protocol, 3, &c, to1).expect_err("reveal to 1");
        assert!(e.to_string().contains("evaluator"), "{e}");
        let mut prg = Prg::from_seed([1; 16]);
        let ring = random_circuit(
            &RandomCircuitSpec::arithmetic(RingWidth::ALL[0], &[2, 2], 20, 2),
            &mut prg,
        );
        let e = huddle_engine::check_request(protocol, 3, &ring, opts).expect_err("ring");
        assert!(e.to_string().contains("Boolean"), "{e}");
        assert!(huddle_engine::check_request(protocol, 31, &c, opts).is_ok());
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

/// A party whose garbled-row shares are corrupted on the way to the
/// evaluator: one bit flipped at a chosen byte of its function-dependent
/// message.
struct Tamper {
    net: huddle_net::Network,
    flip_at: Option<usize>,
}

impl huddle_engine::sharing::Transport for Tamper {
    fn party(&self) -> usize {
        self.net.party()
    }
    fn parties(&self) -> usize {
        self.net.parties()
    }
    fn send(&mut self, to: usize, mut data: Vec<u8>) -> Result<(), huddle_net::NetError> {
        if to == 0 && self.net.phase() == Phase::Dependent {
            if let Some(at) = self.flip_at.take() {
                let i = at % data.len();
                data[i] ^= 1;
            }
        }
        huddle_engine::sharing::Transport::send(&mut self.net, to, data)
    }
    fn recv(&mut self, from: usize, len: usize) -> Result<Vec<u8>, huddle_net::NetError> {
        huddle_engine::sharing::Transport::recv(&mut self.net, from, len)
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
    for trial in 0..40usize {
        let n = 4;
        let nets = memory_networks(n, &NetProfile::lan(), Duration::from_secs(20));
        let flip_at = trial * 977;
        let results: Vec<Result<Vec<BitMatrix>, String>> = std::thread::scope(|s| {
            let handles: Vec<_> = nets
                .into_iter()
                .map(|net| {
                    let c = &c;
                    let inputs = &inputs;
                    s.spawn(move || {
                        let me = net.party();
                        let mut t = Tamper {
                            net,
                            flip_at: (me == 2).then_some(flip_at),
                        };
                        let own: Vec<(usize, BitMatrix)> = (0..c.inputs().len())
                            .filter(|&i| c.owner(i, n) == me)
                            .map(|i| (i, inputs[i].clone()))
                            .collect();
                        huddle_engine::garble::run(
                            &mut t,
                            variant,
                            c,
                            1,
                            &own,
                            RunOptions::default(),
                        )
                        .map_err(|e| e.to_string())
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("thread"))
                .collect()
        });
        match &results[0] {
            Ok(out) => {
                assert_eq!(out, &want, "trial {trial}: a wrong output after tampering");
                harmless += 1;
            }
            Err(e) => {
                assert!(
                    e.contains("neither") || e.contains("reconstructs"),
                    "trial {trial}: {e}"
                );
                aborted += 1;
            }
        }
    }
    assert!(aborted > 0, "{variant:?}: no abort in 40 corruptions");
    if variant == Variant::Bgw2 {
        // Three rows in four are never opened.
        assert!(harmless > 0, "{variant:?}: every corruption aborted");
    }
}
