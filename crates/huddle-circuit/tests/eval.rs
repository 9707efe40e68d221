//! The bitsliced evaluator against the reference evaluator on random
//! Boolean, arithmetic and mixed circuits with multi-fan-in gates, across
//! chunk widths, thread counts and instance counts; plus the layer schedule.

use huddle_circuit::eval::EvalOptions;
use huddle_circuit::random::{random_circuit, random_inputs, RandomCircuitSpec};
use huddle_circuit::{reference, Circuit, EvalError, PlainEvaluator};
use huddle_core::{BitMatrix, Prg, RingWidth};
use proptest::prelude::*;

fn check(
    c: &Circuit,
    prg: &mut Prg,
    instances: usize,
    options: EvalOptions,
) -> Result<(), TestCaseError> {
    let inputs = random_inputs(c, prg, instances);
    let got = PlainEvaluator::with_options(c, options)
        .evaluate(&inputs)
        .expect("inputs fit");
    for r in 0..instances {
        let row: Vec<Vec<u64>> = inputs.iter().map(|m| m.row(r).to_vec()).collect();
        let want = reference::evaluate_one(c, &row);
        for (o, (g, w)) in got.iter().zip(&want).enumerate() {
            prop_assert_eq!(
                g.row(r),
                w.as_slice(),
                "output {} instance {} {:?}",
                o,
                r,
                options
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn boolean_circuits(seed: [u8; 16], fan_in in 2usize..=16, instances in 1usize..700, words in 1usize..5, threads in 1usize..4) {
        let mut prg = Prg::from_seed(seed);
        let c = random_circuit(&RandomCircuitSpec::boolean(&[5, 64, 67], 300, fan_in), &mut prg);
        check(&c, &mut prg, instances, EvalOptions { chunk_words: Some(words), threads })?;
    }

    #[test]
    fn mixed_circuits(seed: [u8; 16], ring in 0usize..4, fan_in in 2usize..=16, instances in 1usize..300, words in 1usize..3, threads in 1usize..3) {
        let mut prg = Prg::from_seed(seed);
        let c = random_circuit(&RandomCircuitSpec::mixed(RingWidth::ALL[ring], 11, 4, 300, fan_in), &mut prg);
        // The generator does emit the fixed-point and sign gates checked here.
        let stats = huddle_circuit::Stats::of(&c).arithmetic.expect("a ring circuit");
        prop_assert!(!stats.dot_by_len.is_empty() && !stats.dot_trunc_by_len.is_empty() && stats.ltz > 0);
        check(&c, &mut prg, instances, EvalOptions { chunk_words: Some(words), threads })?;
    }
}

#[test]
fn zero_instances_and_wrong_inputs() {
    let mut prg = Prg::from_seed([1; 16]);
    let c = random_circuit(&RandomCircuitSpec::boolean(&[8, 8], 50, 4), &mut prg);
    let e = PlainEvaluator::new(&c);
    let empty = vec![BitMatrix::zeros(0, 8), BitMatrix::zeros(0, 8)];
    assert!(e
        .evaluate(&empty)
        .expect("no instances is fine")
        .iter()
        .all(|m| m.rows() == 0));
    assert_eq!(
        e.evaluate(&empty[..1]),
        Err(EvalError::InputCount {
            expected: 2,
            given: 1
        })
    );
    assert!(matches!(
        e.evaluate(&[BitMatrix::zeros(3, 8), BitMatrix::zeros(3, 9)]),
        Err(EvalError::InputWidth {
            index: 1,
            expected: 8,
            given: 9,
            ..
        })
    ));
    assert!(matches!(
        e.evaluate(&[BitMatrix::zeros(3, 8), BitMatrix::zeros(4, 8)]),
        Err(EvalError::InstanceCount { index: 1, .. })
    ));
    assert!(matches!(
        e.evaluate_hex(&["ff", "1ff"]),
        Err(EvalError::Hex(_))
    ));
}
