//! Reductions, products and shapes of typed programs against plain Rust:
//! sum, dot, matrix products, min/max over elements, broadcasting,
//! indexing and stacking; and variable-length inputs, whose masked
//! computation equals the exact-length one for every row count.

mod program_util;

use huddle_circuit::program::{BinOp, CmpOp, Data, Program, Receiver, Shape, Type};
use huddle_core::RingWidth;
use program_util::{data, ints, run, wrap};
use proptest::prelude::*;

const TYPES: [Type; 4] = [
    Type::UInt(8),
    Type::SInt(13),
    Type::Int(RingWidth::W32),
    Type::Int(RingWidth::W64),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn reductions_and_products_match_plain_arithmetic(
        r in 1usize..4, n in 1usize..5, m in 1usize..4,
        raw in proptest::collection::vec(any::<u64>(), 64),
    ) {
        for ty in TYPES {
            let a: Vec<i128> = (0..r * n).map(|i| wrap(ty, i128::from(raw[i]))).collect();
            let b: Vec<i128> = (0..n * m).map(|i| wrap(ty, i128::from(raw[32 + i]))).collect();
            let v: Vec<i128> = a[..n].to_vec();
            let mut p = Program::new(2).expect("program");
            let x = p.input(0, ty, Shape::Matrix(r, n), "a").expect("a");
            let y = p.input(1, ty, Shape::Matrix(n, m), "b").expect("b");
            let row = p.index(&x, 0).expect("row 0");
            let col = p.transpose(&y).and_then(|t| p.index(&t, 0)).expect("column 0");
            let corner = p.index(&row, 0).expect("x00");
            let outs = [
                p.sum(&x).expect("sum"),
                p.dot(&row, &col).expect("dot"),
                p.matmul(&x, &y).expect("matmul"),
                p.matmul(&row, &y).expect("vector·matrix"),
                p.matmul(&x, &col).expect("matrix·vector"),
                p.min_of(&x).expect("min"),
                p.max_of(&x).expect("max"),
                p.binary(BinOp::Sub, &x, &corner).expect("broadcast"),
            ];
            for (i, o) in outs.iter().enumerate() {
                p.reveal(o, Receiver::All, &format!("o{i}")).expect("reveal");
            }
            let c = p.compile().expect("compiles");
            let got: Vec<Vec<i128>> = run(&c, 1, &[(0, "a", data(ty, &a)), (1, "b", data(ty, &b))])
                .iter()
                .map(ints)
                .collect();
            let dot = |xs: &[i128], ys: &[i128]| {
                wrap(ty, xs.iter().zip(ys).fold(0i128, |s, (p, q)| wrap(ty, s + p.wrapping_mul(*q))))
            };
            let column = |j: usize| -> Vec<i128> { (0..n).map(|k| b[k * m + j]).collect() };
            let product: Vec<i128> = (0..r)
                .flat_map(|i| (0..m).map(move |j| (i, j)))
                .map(|(i, j)| dot(&a[i * n..(i + 1) * n], &column(j)))
                .collect();
            prop_assert_eq!(&got[0], &vec![wrap(ty, a.iter().sum())], "sum {}", ty);
            prop_assert_eq!(&got[1], &vec![dot(&v, &column(0))], "dot {}", ty);
            prop_assert_eq!(&got[2], &product, "matmul {}", ty);
            prop_assert_eq!(&got[3], &product[..m].to_vec(), "vector·matrix {}", ty);
            let first: Vec<i128> = (0..r).map(|i| product[i * m]).collect();
            prop_assert_eq!(&got[4], &first, "matrix·vector {}", ty);
            prop_assert_eq!(&got[5], &vec![*a.iter().min().expect("elements")], "min {}", ty);
            prop_assert_eq!(&got[6], &vec![*a.iter().max().expect("elements")], "max {}", ty);
            let shifted: Vec<i128> = a.iter().map(|&e| wrap(ty, e - a[0])).collect();
            prop_assert_eq!(&got[7], &shifted, "broadcast {}", ty);
        }
    }

    #[test]
    fn masked_rows_give_the_exact_length_result(
        max in 1usize..12, cut in any::<prop::sample::Index>(),
        raw in proptest::collection::vec(any::<u64>(), 12),
    ) {
        let n = cut.index(max + 1);
        for ty in [Type::UInt(16), Type::SInt(16), Type::Int(RingWidth::W32)] {
            let rows: Vec<i128> = raw[..n].iter().map(|&r| wrap(ty, i128::from(r))).collect();
            // Sum, count and maximum of the valid rows only.
            let counted = Type::Int(RingWidth::W32);
            let mut p = Program::new(1).expect("program");
            let t = p.input_rows(0, ty, Shape::Scalar, max, "t").expect("rows");
            let kept = p.select(&t.valid, &t.values, 0i64).expect("zeros");
            let sum = p.sum(&kept).expect("sum");
            let ones = p.convert(&t.valid, counted).expect("bits to ring");
            let count = p.sum(&ones).expect("count");
            let least = program_util::num(program_util::range(ty).0);
            let floor = p.select(&t.valid, &t.values, least).expect("least");
            let max_v = p.max_of(&floor).expect("max");
            let any = p.compare(CmpOp::Gt, &count, 0i64).expect("any");
            p.reveal(&sum, Receiver::All, "sum").expect("reveal");
            p.reveal(&count, Receiver::All, "count").expect("reveal");
            p.reveal(&max_v, Receiver::All, "max").expect("reveal");
            p.reveal(&any, Receiver::All, "any").expect("reveal");
            let c = p.compile().expect("compiles");
            let iface = c.interface();
            let mut given = iface.party_inputs(0, 1);
            given.set_rows("t", &data(ty, &rows), n).expect("rows encode");
            let all = iface.merge(vec![given.finish().expect("given").0]).expect("merge");
            let outs = huddle_circuit::PlainEvaluator::new(c.circuit()).evaluate(&all).expect("eval");
            let got: Vec<Vec<i128>> = outs.iter().enumerate()
                .map(|(i, m)| ints(&iface.decode_output(i, m).expect("decode"))).collect();
            // The same computation on exactly n rows.
            let mut exact = vec![vec![program_util::range(ty).0], vec![0], vec![0], vec![0]];
            if n > 0 {
                let mut q = Program::new(1).expect("program");
                let x = q.input(0, ty, Shape::Vector(n), "x").expect("x");
                let s = q.sum(&x).expect("sum");
                let m = q.max_of(&x).expect("max");
                q.reveal(&s, Receiver::All, "sum").expect("reveal");
                q.reveal(&m, Receiver::All, "max").expect("reveal");
                let cq = q.compile().expect("compiles");
                let o = run(&cq, 1, &[(0, "x", data(ty, &rows))]);
                exact = vec![ints(&o[0]), vec![n as i128], ints(&o[1]), vec![1]];
            } else {
                exact.swap(0, 2);
            }
            prop_assert_eq!(&got[0], &exact[0], "sum of {} rows of {}", n, ty);
            prop_assert_eq!(&got[1], &exact[1], "count");
            prop_assert_eq!(&got[2], &exact[2], "max of {} rows of {}", n, ty);
            prop_assert_eq!(&got[3], &exact[3], "any");
        }
    }
}

#[test]
fn stacking_reshaping_and_literal_vectors() {
    let ty = Type::SInt(8);
    let mut p = Program::new(1).expect("program");
    let x = p.input(0, ty, Shape::Vector(4), "x").expect("x");
    let parts: Vec<_> = (0..4)
        .rev()
        .map(|i| p.index(&x, i).expect("index"))
        .collect();
    let reversed = p.stack(&parts).expect("stack");
    let grid = p.reshape(&reversed, Shape::Matrix(2, 2)).expect("reshape");
    let k = p
        .constant(
            ty,
            Shape::Matrix(2, 2),
            &[1i64.into(), (-1i64).into(), 2i64.into(), 0i64.into()],
        )
        .expect("constant");
    let scaled = p.binary(BinOp::Mul, &grid, &k).expect("elementwise");
    p.reveal(&scaled, Receiver::All, "y").expect("reveal");
    let c = p.compile().expect("compiles");
    let out = run(&c, 1, &[(0, "x", Data::Ints(vec![1, 2, -3, 4]))]);
    assert_eq!(out[0], Data::Ints(vec![4, 3, 4, 0]));
    assert_eq!(c.interface().outputs[0].shape, Shape::Matrix(2, 2));
}
