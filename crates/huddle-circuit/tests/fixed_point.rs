//! The builder's fixed-point helpers against integer arithmetic: a
//! perceptron neuron relu(x·w / 2^f + bias), max and less-than, on random
//! signed inputs and at the edges (0, −1, equal values).

use huddle_circuit::builder::{from_fixed, to_fixed, Builder};
use huddle_circuit::PlainEvaluator;
use huddle_core::{Prg, RingWidth};

const F: u8 = 8;
const N: usize = 4;

/// Input value of ring elements as hex, element 0 in the lowest 32 bits.
fn hex(elements: &[i64]) -> String {
    elements
        .iter()
        .rev()
        .map(|&e| format!("{:08x}", e as u32))
        .collect()
}

fn signed(hex_value: &str, i: usize) -> i64 {
    let at = hex_value.len() - 8 * (i + 1);
    i64::from(u32::from_str_radix(&hex_value[at..at + 8], 16).expect("hex") as i32)
}

#[test]
fn a_neuron_max_and_less_than_agree_with_integer_arithmetic() {
    let ring = RingWidth::W32;
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", N as u32);
    let w = b.ring_input("w", N as u32);
    let bias = b.ring_input("bias", 1);
    let s = b.fixed_dot(&x, &w, F);
    let pre = b.ring_op(huddle_circuit::Op::Add, &[s, bias[0]]);
    let neuron = b.relu(pre);
    let m = b.max(x[0], x[1]);
    let lt = b.lt(x[0], x[1]);
    let half = b.fixed_constant(0.5, F);
    let scaled = b.fixed_mul(x[2], half, F);
    b.ring_output("y", vec![neuron, m, scaled]);
    b.output("lt", vec![lt]);
    let c = b.finish();
    let e = PlainEvaluator::new(&c);
    let mut prg = Prg::from_seed([9; 16]);
    let mut draw = |bound: i64| (prg.next_u64() % (2 * bound as u64)) as i64 - bound;
    let mut cases: Vec<[Vec<i64>; 3]> = vec![
        [vec![0; N], vec![0; N], vec![0]],
        [vec![-1; N], vec![-1; N], vec![-1]],
        [vec![5, 5, -1, 0], vec![256, 0, 0, 0], vec![-5]],
    ];
    for _ in 0..500 {
        cases.push([
            (0..N).map(|_| draw(1 << 11)).collect(),
            (0..N).map(|_| draw(1 << 11)).collect(),
            vec![draw(1 << 14)],
        ]);
    }
    for [xs, ws, bias] in cases {
        let out = e
            .evaluate_hex(&[&hex(&xs), &hex(&ws), &hex(&bias)])
            .expect("eval");
        let dot: i64 = xs.iter().zip(&ws).map(|(a, b)| a * b).sum();
        let want_neuron = (dot.div_euclid(1 << F) + bias[0]).max(0);
        assert_eq!(signed(&out[0], 0), want_neuron, "{xs:?} {ws:?} {bias:?}");
        assert_eq!(signed(&out[0], 1), xs[0].max(xs[1]));
        assert_eq!(signed(&out[0], 2), (xs[2] * 128).div_euclid(1 << F));
        assert_eq!(out[1], if xs[0] < xs[1] { "1" } else { "0" });
    }
}

#[test]
fn fixed_point_encoding_round_trips_signed_values() {
    for ring in [RingWidth::W16, RingWidth::W32, RingWidth::W64] {
        for x in [0.0, 1.5, -2.25, -0.00390625, 100.0] {
            assert_eq!(from_fixed(to_fixed(x, F, ring), F, ring), x, "{ring} {x}");
        }
    }
    assert_eq!(to_fixed(-1.0, 4, RingWidth::W16), 0xfff0);
    assert_eq!(to_fixed(0.03, 4, RingWidth::W16), 0); // rounds to the nearest 1/16
}
