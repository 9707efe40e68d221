//! The probabilistic truncation's outputs: against the plaintext in every
//! ring width, fractional width, schedule and output setting (the result or
//! one more, except a wrap), and how often it rounds up and wraps.

use crate::common::local;
use huddle_circuit::builder::Builder;
use huddle_circuit::{Circuit, InputOwners, Op, PlainEvaluator};
use huddle_core::{Prg, RingWidth};
use huddle_engine::RunOptions;
use huddle_net::{memory_networks, NetProfile};
use std::time::Duration;

/// x from P0 and y from P1, four ring elements each: trunc_f(x0·y0),
/// trunc_f(x1·y1 + x2·y2 + x3·y3) and the plain product x2·y2, one layer.
fn fixed_point_products(ring: RingWidth, f: u8) -> Circuit {
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", 4);
    let y = b.ring_input("y", 4);
    let p = b.fixed_mul(x[0], y[0], f);
    let d = b.fixed_dot(&x[1..], &y[1..], f);
    let plain = b.ring_op(Op::Mul, &[x[2], y[2]]);
    b.ring_output("z", vec![p, d, plain]);
    let mut c = b.finish();
    c.set_owners(InputOwners::Explicit(vec![0, 1]))
        .expect("owners");
    c
}

/// Rows of signed ring elements as a party's input matrix.
fn ring_matrix(rows: &[Vec<i128>], ring: RingWidth) -> huddle_circuit::BitMatrix {
    let k = ring.bits() as usize;
    let mut m = huddle_circuit::BitMatrix::zeros(rows.len(), rows[0].len() * k);
    for (i, row) in rows.iter().enumerate() {
        for (j, &e) in row.iter().enumerate() {
            m.row_mut(i)[j * k / 64] |= ((e as u64) & ring.mask()) << (j * k % 64);
        }
    }
    m
}

/// The ring elements of each row of an output matrix.
fn ring_elements(m: &huddle_circuit::BitMatrix, ring: RingWidth) -> Vec<Vec<u64>> {
    let k = ring.bits() as usize;
    (0..m.rows())
        .map(|i| {
            (0..m.cols() / k)
                .map(|j| (m.row(i)[j * k / 64] >> (j * k % 64)) & ring.mask())
                .collect()
        })
        .collect()
}

/// x and y for [`fixed_point_products`] over `instances` rows: first the
/// edge cases (zero; −2^(k−1) and 2^(k−1) − 1, the ends of the ring; −1,
/// its low bits all ones; 2^f − 1, −(2^f − 1) and −(2^f − 2)), then random
/// factors of random sizes up to k/2 bits, so that the products and dot
/// products range from small to the whole ring.
fn edge_and_random_factors(
    ring: RingWidth,
    f: u8,
    instances: usize,
    prg: &mut Prg,
) -> [Vec<Vec<i128>>; 2] {
    let k = ring.bits();
    let (lo, hi) = (-(1i128 << (k - 1)), (1i128 << (k - 1)) - 1);
    let ones = (1i128 << f) - 1;
    let mut x = vec![
        vec![0, 0, 0, 0],
        vec![1, 1, 0, 0],
        vec![-1, 1, 0, 0],
        vec![1, -1, 1, 0],
    ];
    let mut y = vec![
        vec![0, 0, 0, 0],
        vec![lo, hi, 0, 0],
        vec![1, ones, 0, 0],
        vec![-ones, ones, 1, 0],
    ];
    let mut random = || {
        let bits = prg.next_u64() % u64::from(k / 2 + 1);
        let m = (prg.next_u64() & ((1 << bits) - 1)) as i128;
        if prg.next_u64() & 1 == 1 {
            -m
        } else {
            m
        }
    };
    while x.len() < instances {
        x.push((0..4).map(|_| random()).collect());
        y.push((0..4).map(|_| random()).collect());
    }
    [x, y]
}

/// `v` as a signed element of `ring`.
fn signed(v: i128, ring: RingWidth) -> i128 {
    let k = ring.bits();
    let v = v.rem_euclid(1 << k);
    if v >= 1 << (k - 1) {
        v - (1 << k)
    } else {
        v
    }
}

/// How a truncation by f of z (signed) came out: (u, q) such that `got` is
/// ⌊z/2^f⌋ + u − 2^(k−f)·q, u the rounding (1 only where z mod 2^f ≠ 0)
/// and q the wrap (1 only for z > 0, −1 only for z < 0). Panics on
/// anything else.
fn outcome(z: i128, got: u64, ring: RingWidth, f: u8, what: &str) -> (u64, i128) {
    let k = ring.bits();
    let want = (z >> f) as u64;
    let d = got.wrapping_sub(want) & ring.mask();
    let rounds = z & ((1 << f) - 1) != 0;
    for q in [0, z.signum()] {
        for u in [0, u64::from(rounds)] {
            let wrap = ((q << (k - u32::from(f))) as u64).wrapping_neg();
            if d == u.wrapping_add(wrap) & ring.mask() {
                return (u, q);
            }
        }
    }
    panic!("{what}: {got:#x} is {d:#x} away from ⌊{z}/2^{f}⌋");
}

#[test]
fn truncation_is_the_plaintext_result_or_one_more_except_a_wrap_in_every_setting() {
    // Every ring width, f = 1, k/2 and k − 1, both schedules, outputs to
    // P0, P1 or both: against the plaintext evaluator (exact truncation)
    // every truncated output is its result, or one more where z has low
    // bits, or either off by 2^(k−f) in the direction of z's sign (a
    // wrap), at the edges too; the plain product in the same layer is
    // exact. Over all settings both the rounding and wraps occur (rates:
    // the next tests). 130 instances: packed words with empty lanes at the
    // end of each slot.
    let instances = 130;
    let mut prg = Prg::from_seed([21; 16]);
    let (mut up, mut wrapped) = (0, 0);
    for ring in RingWidth::ALL {
        let k = ring.bits() as u8;
        for f in [1, k / 2, k - 1] {
            let c = fixed_point_products(ring, f);
            let [x, y] = edge_and_random_factors(ring, f, instances, &mut prg);
            let inputs = [ring_matrix(&x, ring), ring_matrix(&y, ring)];
            let want = PlainEvaluator::new(&c).evaluate(&inputs).expect("plain");
            let want = ring_elements(&want[0], ring);
            let z: Vec<[i128; 2]> = x
                .iter()
                .zip(&y)
                .map(|(x, y)| {
                    let dot = x[1] * y[1] + x[2] * y[2] + x[3] * y[3];
                    [signed(x[0] * y[0], ring), signed(dot, ring)]
                })
                .collect();
            for (z, want) in z.iter().zip(&want) {
                for g in 0..2 {
                    assert_eq!((z[g] >> f) as u64 & ring.mask(), want[g], "the plaintext");
                }
            }
            for preprocess in [
                huddle_engine::Preprocess::Interleaved,
                huddle_engine::Preprocess::Separate,
            ] {
                for reveal_to in [Some(0), Some(1), None] {
                    let nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
                    let options = RunOptions::default()
                        .with_preprocess(preprocess)
                        .with_reveal_to(reveal_to)
                        .with_truncation(huddle_engine::Truncation::Probabilistic);
                    let results = local("ca2pc", nets, &c, &inputs, options).expect("ca2pc");
                    let what = format!("{ring} f {f} {preprocess:?} to {reveal_to:?}");
                    if reveal_to.is_none() {
                        assert_eq!(results[0].outputs, results[1].outputs, "{what}");
                    }
                    for (party, r) in results.iter().enumerate() {
                        let learns = party < 2 && reveal_to.is_none_or(|t| t == party);
                        assert_eq!(r.outputs.is_empty(), !learns, "{what}: P{party}");
                        if !learns {
                            continue;
                        }
                        let got = ring_elements(&r.outputs[0], ring);
                        for (i, ((got, want), z)) in got.iter().zip(&want).zip(&z).enumerate() {
                            for g in 0..2 {
                                let what = format!("{what}: instance {i} gate {g}");
                                let (u, q) = outcome(z[g], got[g], ring, f, &what);
                                up += u;
                                wrapped += u64::from(q != 0);
                            }
                            assert_eq!(got[2], want[2], "{what}: instance {i}: plain product");
                        }
                    }
                }
            }
        }
    }
    assert!(up > 0 && wrapped > 0, "{up} round up, {wrapped} wrap");
}

#[test]
fn the_truncation_rounds_up_and_wraps_as_often_as_stated() {
    // Eight secrets z in Z_2^32, the same in all 4096 instances, truncated
    // by 12 bits: one more than ⌊z/2^12⌋ with probability (z mod 2^12)/2^12
    // (0, 1/4096, 1/4, 1/2, 3/4 and 4095/4096; negative ones among them),
    // off by 2^20 with probability |z|/2^32 (about 0, 1/4 and 1/2: the
    // ends of the ring among them). The frequencies stay within 0.05 of
    // them (at most 0.0078 a standard deviation: 6.4 of them), and none
    // rounds up at z mod 2^12 = 0.
    let ring = RingWidth::W32;
    let f = 12;
    let zs: [i128; 8] = [
        5 << 12,
        (7 << 12) + 1,
        (-3 << 12) + (1 << 10),
        1 << 11,
        -(1 << 30) + (3 << 10),
        (1 << 30) - 1,
        -(1 << 31),
        (1 << 31) - 1,
    ];
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", zs.len() as u32);
    let y = b.ring_input("y", zs.len() as u32);
    let z = (0..zs.len()).map(|i| b.fixed_mul(x[i], y[i], f)).collect();
    b.ring_output("z", z);
    let mut c = b.finish();
    c.set_owners(InputOwners::Explicit(vec![0, 1]))
        .expect("owners");
    let instances = 4096;
    let inputs = [
        ring_matrix(&vec![vec![1; zs.len()]; instances], ring),
        ring_matrix(&vec![zs.to_vec(); instances], ring),
    ];
    for reveal_to in [None, Some(1)] {
        let nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
        let options = RunOptions::default()
            .with_reveal_to(reveal_to)
            .with_truncation(huddle_engine::Truncation::Probabilistic);
        let results = local("ca2pc", nets, &c, &inputs, options).expect("ca2pc");
        let got = ring_elements(&results[reveal_to.unwrap_or(0)].outputs[0], ring);
        for (g, &z) in zs.iter().enumerate() {
            let (mut up, mut wrapped) = (0u64, 0u64);
            for (i, row) in got.iter().enumerate() {
                let (u, q) = outcome(z, row[g], ring, f, &format!("z = {z}, instance {i}"));
                up += u;
                wrapped += u64::from(q != 0);
            }
            let rate = |n: u64| n as f64 / instances as f64;
            let p_up = (z & ((1 << f) - 1)) as f64 / f64::from(1u32 << f);
            let p_wrap = z.unsigned_abs() as f64 / 2f64.powi(32);
            let stated =
                format!("z = {z}: {up} round up ({p_up} stated), {wrapped} wrap ({p_wrap})");
            assert!((rate(up) - p_up).abs() < 0.05, "{stated}");
            assert!((rate(wrapped) - p_wrap).abs() < 0.05, "{stated}");
        }
    }
}
