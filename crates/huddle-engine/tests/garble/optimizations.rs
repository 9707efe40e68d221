//! The switchable optimizations (`--opt`): every combination gives the
//! right outputs and changes exactly what it should, bgw2-mal under every
//! setting it accepts, and the lists read back as written.

use super::{run_with, SEMI_HONEST};
use huddle_circuit::gen;
use huddle_circuit::random::random_inputs;
use huddle_circuit::PlainEvaluator;
use huddle_core::Prg;
use huddle_engine::garble::{
    buffer_gate_bytes, garbled_circuit_bytes, malicious_gate_counts, Optimizations, Variant,
};
use huddle_net::Phase;

/// Whether `variant` has any security with `n` parties (t >= 1).
fn secure(variant: Variant, n: usize) -> bool {
    n >= variant.smallest_secure_parties()
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
