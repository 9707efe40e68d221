//! The application circuits against plain Rust on the same numbers.

use huddle_circuit::apps::{auction, generate, perceptron, vector_matrix, Perceptron};
use huddle_circuit::builder::{from_fixed, to_fixed};
use huddle_circuit::{BitMatrix, Circuit, PlainEvaluator};
use huddle_core::{Prg, RingWidth};

/// Input matrices (one instance) from ring elements per input value.
fn ring_inputs(c: &Circuit, values: &[Vec<u64>]) -> Vec<BitMatrix> {
    let k = c.ring().expect("ring").bits() as usize;
    values
        .iter()
        .map(|v| {
            let mut m = BitMatrix::zeros(1, v.len() * k);
            for (j, &e) in v.iter().enumerate() {
                m.row_mut(0)[j * k / 64] |= e << (j * k % 64);
            }
            m
        })
        .collect()
}

fn ring_outputs(c: &Circuit, out: &[BitMatrix]) -> Vec<Vec<u64>> {
    let ring = c.ring().expect("ring");
    let k = ring.bits() as usize;
    out.iter()
        .map(|m| {
            (0..m.cols() / k)
                .map(|j| (m.row(0)[j * k / 64] >> (j * k % 64)) & ring.mask())
                .collect()
        })
        .collect()
}

#[test]
fn vector_matrix_is_x_times_m() {
    let mut prg = Prg::from_seed([1; 16]);
    for ring in [RingWidth::W16, RingWidth::W64] {
        let n = 9usize;
        let c = vector_matrix(n as u32, ring);
        let x: Vec<u64> = (0..n).map(|_| prg.next_u64() & ring.mask()).collect();
        let m: Vec<u64> = (0..n * n).map(|_| prg.next_u64() & ring.mask()).collect();
        let got = PlainEvaluator::new(&c)
            .evaluate(&ring_inputs(&c, &[x.clone(), m.clone()]))
            .expect("evaluates");
        let want: Vec<u64> = (0..n)
            .map(|j| {
                (0..n).fold(0u64, |acc, i| {
                    acc.wrapping_add(x[i].wrapping_mul(m[i * n + j]))
                }) & ring.mask()
            })
            .collect();
        assert_eq!(ring_outputs(&c, &got), vec![want]);
    }
}

#[test]
fn perceptron_matches_fixed_point_arithmetic_in_rust() {
    let mut prg = Prg::from_seed([2; 16]);
    let ring = RingWidth::W64;
    let shape = Perceptron {
        inputs: 20,
        hidden: 8,
        outputs: 3,
        frac: 12,
    };
    let c = perceptron(shape, ring);
    let f = shape.frac;
    let mut small = |n: u32| -> Vec<u64> {
        (0..n)
            .map(|_| {
                let u = (prg.next_u64() % 2001) as f64 / 1000.0 - 1.0; // [-1, 1]
                to_fixed(u, f, ring)
            })
            .collect()
    };
    let (i, h, o) = (shape.inputs, shape.hidden, shape.outputs);
    let (x, w1, b1, w2, b2) = (small(i), small(h * i), small(h), small(o * h), small(o));
    let layer = |v: &[u64], w: &[u64], b: &[u64], relu: bool| -> Vec<u64> {
        b.iter()
            .enumerate()
            .map(|(r, &bias)| {
                let dot = v
                    .iter()
                    .zip(&w[r * v.len()..])
                    .fold(0u64, |acc, (&a, &b)| acc.wrapping_add(a.wrapping_mul(b)));
                let s = ring.truncate(dot, u32::from(f)).wrapping_add(bias);
                if relu && ring.is_negative(s) {
                    0
                } else {
                    s
                }
            })
            .collect()
    };
    let hidden = layer(&x, &w1, &b1, true);
    let want = layer(&hidden, &w2, &b2, false);
    let got = PlainEvaluator::new(&c)
        .evaluate(&ring_inputs(&c, &[x, w1, b1, w2, b2]))
        .expect("evaluates");
    let got = ring_outputs(&c, &got);
    assert_eq!(got, vec![want.clone()]);
    // The values mean something: outputs are small fixed-point numbers.
    assert!(want.iter().all(|&y| from_fixed(y, f, ring).abs() < 100.0));
}

#[test]
fn auction_finds_the_highest_bid_and_the_first_bidder_who_made_it() {
    let mut prg = Prg::from_seed([3; 16]);
    let ring = RingWidth::W32;
    for bidders in [1u32, 2, 5, 8, 13] {
        let c = auction(bidders, ring);
        for round in 0..20 {
            // Signed bids in a range the comparisons allow, with ties.
            let bids: Vec<i64> = (0..bidders)
                .map(|_| {
                    (prg.next_u64() % 7) as i64 - 3 + if round % 2 == 0 { 0 } else { 1_000_000 }
                })
                .collect();
            let values: Vec<Vec<u64>> = bids
                .iter()
                .map(|&b| vec![(b as u64) & ring.mask()])
                .collect();
            let got = PlainEvaluator::new(&c)
                .evaluate(&ring_inputs(&c, &values))
                .expect("evaluates");
            let best = *bids.iter().max().expect("bidders");
            let winner = bids.iter().position(|&b| b == best).expect("present") as u64;
            assert_eq!(
                ring_outputs(&c, &got),
                vec![vec![(best as u64) & ring.mask()], vec![winner]],
                "{bids:?}"
            );
        }
    }
}

#[test]
fn generator_arguments_are_checked() {
    assert!(generate("vecmat", 32, &[4], 16).is_ok());
    assert!(generate("vecmat", 12, &[4], 16)
        .err()
        .unwrap_or_default()
        .contains("ring width"));
    assert!(generate("vecmat", 32, &[], 16)
        .err()
        .unwrap_or_default()
        .contains("--size"));
    assert!(generate("perceptron", 64, &[4, 3], 16)
        .err()
        .unwrap_or_default()
        .contains("INPUTS,HIDDEN,OUTPUTS"));
    assert!(generate("perceptron", 16, &[4, 3, 2], 16)
        .err()
        .unwrap_or_default()
        .contains("--frac"));
    assert!(generate("auction", 32, &[0], 16).is_err());
    assert!(generate("max", 32, &[1], 16)
        .err()
        .unwrap_or_default()
        .contains("at least 2"));
    assert!(generate("eq", 32, &[], 16)
        .err()
        .unwrap_or_default()
        .contains("pairs"));
    assert!(generate("argmin-pairwise", 32, &[3], 16).is_err());
    for kind in ["eq", "lt", "max", "min", "argmax", "argmin", "max-pairwise"] {
        assert!(generate(kind, 16, &[3], 16).is_ok(), "{kind}");
    }
}

/// A ring value drawn so that edge cases are common: 0, 1, the top bit
/// alone, all ones, or uniform.
fn edgy(prg: &mut Prg, ring: RingWidth) -> u64 {
    let top = 1u64 << (ring.bits() - 1);
    match prg.next_u64() % 6 {
        0 => 0,
        1 => 1,
        2 => top,
        3 => ring.mask(),
        4 => top - 1,
        _ => prg.next_u64() & ring.mask(),
    }
}

#[test]
fn equality_and_full_range_comparison_match_rust_on_edge_values() {
    use huddle_circuit::apps::pairwise;
    let mut prg = Prg::from_seed([4; 16]);
    for ring in [
        RingWidth::W8,
        RingWidth::W16,
        RingWidth::W32,
        RingWidth::W64,
    ] {
        let n = 40usize;
        let a: Vec<u64> = (0..n).map(|_| edgy(&mut prg, ring)).collect();
        // Every third pair equal.
        let b: Vec<u64> = (0..n)
            .map(|i| {
                if i % 3 == 0 {
                    a[i]
                } else {
                    edgy(&mut prg, ring)
                }
            })
            .collect();
        for less in [false, true] {
            let c = pairwise(n as u32, ring, less);
            let got = PlainEvaluator::new(&c)
                .evaluate(&ring_inputs(&c, &[a.clone(), b.clone()]))
                .expect("evaluates");
            for i in 0..n {
                let bit = (got[0].row(0)[i / 64] >> (i % 64)) & 1 == 1;
                let want = if less { a[i] < b[i] } else { a[i] == b[i] };
                assert_eq!(bit, want, "{ring} less={less}: {} vs {}", a[i], b[i]);
            }
        }
    }
}

#[test]
fn max_min_and_their_indices_match_rust_for_every_group_shape() {
    use huddle_circuit::apps::extreme;
    let mut prg = Prg::from_seed([5; 16]);
    for ring in [RingWidth::W16, RingWidth::W32] {
        // 2 and 3 (one group), 4 (a full group), 5..=9 (a tournament).
        for n in 2..=9usize {
            for trial in 0..12 {
                // Ties are common: values from a small set in half the trials.
                let x: Vec<u64> = (0..n)
                    .map(|_| match trial % 2 {
                        0 => edgy(&mut prg, ring),
                        _ => prg.next_u64() % 3,
                    })
                    .collect();
                let values: Vec<Vec<u64>> = x.iter().map(|&v| vec![v]).collect();
                let best = *x.iter().max().expect("values");
                let worst = *x.iter().min().expect("values");
                let first = |v: u64| x.iter().position(|&y| y == v).expect("present") as u64;
                for (max, arg, pairwise, want) in [
                    (true, false, false, best),
                    (false, false, false, worst),
                    (true, true, false, first(best)),
                    (false, true, false, first(worst)),
                    (true, false, true, best),
                    (true, true, true, first(best)),
                ] {
                    let c = extreme(n as u32, ring, max, arg, pairwise);
                    let got = PlainEvaluator::new(&c)
                        .evaluate(&ring_inputs(&c, &values))
                        .expect("evaluates");
                    assert_eq!(
                        ring_outputs(&c, &got),
                        vec![vec![want]],
                        "{ring} n={n} max={max} arg={arg} pairwise={pairwise} {x:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn edit_distance_matches_the_textbook_dynamic_program() {
    use huddle_circuit::apps::{dna_codes, edit_distance, edit_distance_plain};
    assert_eq!(dna_codes("ACgt"), Ok(vec![0, 1, 2, 3]));
    assert!(dna_codes("ACXT")
        .expect_err("X is no letter")
        .contains("character 3 is `X`"));
    // Known answers: kitten/sitting-like cases in DNA.
    assert_eq!(edit_distance_plain(&[0, 1, 2, 3], &[0, 1, 2, 3]), 0);
    assert_eq!(edit_distance_plain(&[0, 0, 0], &[3, 3, 3]), 3);
    assert_eq!(edit_distance_plain(&[0, 1, 2], &[1, 2]), 1);
    assert_eq!(edit_distance_plain(&[0], &[1, 1, 1, 1]), 4);
    let mut prg = Prg::from_seed([6; 16]);
    for (la, lb) in [(1, 1), (3, 3), (5, 2), (2, 7), (8, 8)] {
        for ring in [RingWidth::W16, RingWidth::W32] {
            let c = edit_distance(la as u32, lb as u32, ring);
            for trial in 0..6 {
                // Small alphabets in some trials, so that letters match often.
                let letters = if trial % 2 == 0 { 4 } else { 2 };
                let a: Vec<u64> = (0..la).map(|_| prg.next_u64() % letters).collect();
                let b: Vec<u64> = (0..lb).map(|_| prg.next_u64() % letters).collect();
                let got = PlainEvaluator::new(&c)
                    .evaluate(&ring_inputs(&c, &[a.clone(), b.clone()]))
                    .expect("evaluates");
                let want = edit_distance_plain(&a, &b);
                assert_eq!(ring_outputs(&c, &got), vec![vec![want]], "{a:?} {b:?}");
            }
        }
    }
}

#[test]
fn msnzb_is_the_most_significant_one_in_two_rounds_at_fan_in_four() {
    use huddle_circuit::builder::Builder;
    use huddle_circuit::Layering;
    for fan_in in [2, 4, 9] {
        let mut b = Builder::boolean(fan_in);
        let x = b.input("x", 16);
        let z = b.msnzb(&x);
        b.output("z", z);
        let c = b.finish();
        // 16 operands: 4 levels at fan-in 2, 2 at 4 and at 9.
        let rounds = if fan_in == 2 { 4 } else { 2 };
        assert_eq!(Layering::of(&c).depth, rounds, "fan-in {fan_in}");
        let eval = PlainEvaluator::new(&c);
        for v in [0u64, 1, 2, 3, 0x8000, 0xffff, 0x0f0f, 0x1234] {
            let out = eval
                .evaluate_hex(&[&format!("{v:04x}")])
                .expect("evaluates");
            let want = if v == 0 {
                0
            } else {
                1u64 << (63 - v.leading_zeros())
            };
            assert_eq!(
                out,
                vec![format!("{want:04x}")],
                "{v:#x} at fan-in {fan_in}"
            );
        }
    }
}
