//! Conversions between types against Rust's `as`, and fixed point within
//! its stated error bound.

mod program_util;

use huddle_circuit::program::{BinOp, CmpOp, Data, Number, Program, Receiver, Shape, Type, UnOp};
use huddle_core::RingWidth;
use program_util::{edges, int_types, ints, run, unary, wrap, WIDTHS};
use proptest::prelude::*;

fn all_int_types() -> Vec<Type> {
    let mut t: Vec<Type> = WIDTHS.iter().flat_map(|&w| int_types(w)).collect();
    t.extend([Type::Int(RingWidth::W16), Type::SInt(16), Type::UInt(16)]);
    t
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn integer_conversions_are_rusts_as(random in proptest::collection::vec(any::<u64>(), 20)) {
        let types = all_int_types();
        for &from in &types {
            let mut xs = edges(from);
            xs.extend(random.iter().map(|&r| wrap(from, i128::from(r))));
            for &to in &types {
                // One program has one ring.
                if from.ring().is_some() && to.ring().is_some() && from.ring() != to.ring() {
                    continue;
                }
                let got = unary(from, &xs, |p, x| p.convert(x, to));
                for (i, &x) in xs.iter().enumerate() {
                    prop_assert_eq!(got[i], wrap(to, x), "{} as {} of {}", from, to, x);
                }
            }
        }
    }
}

/// x·y of fixed-point numbers with f fractional bits, through a program.
fn fixed_products(ty: Type, pairs: &[(f64, f64)]) -> Vec<f64> {
    let mut p = Program::new(2).expect("program");
    let x = p.input(0, ty, Shape::Scalar, "x").expect("x");
    let y = p.input(1, ty, Shape::Scalar, "y").expect("y");
    let z = p.binary(BinOp::Mul, &x, &y).expect("mul");
    p.reveal(&z, Receiver::All, "z").expect("reveal");
    let c = p.compile().expect("compiles");
    let xs = Data::Floats(pairs.iter().map(|p| p.0).collect());
    let ys = Data::Floats(pairs.iter().map(|p| p.1).collect());
    match &run(&c, pairs.len(), &[(0, "x", xs), (1, "y", ys)])[0] {
        Data::Floats(v) => v.clone(),
        other => panic!("fixed point decodes to floats, not {other:?}"),
    }
}

/// The number `ty` encodes x as.
fn encoded(ty: Type, x: f64) -> f64 {
    match ty.decode(ty.encode(Number::Float(x)).expect("in range")) {
        Number::Float(v) => v,
        Number::Int(_) => unreachable!(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn fixed_point_products_are_within_one_unit_below(
        pairs in proptest::collection::vec((-1000.0f64..1000.0, -1000.0f64..1000.0), 30),
        // |x·y| < 2^20, so the raw product fits the ring: 2f + 20 < 63.
        f in 8u8..=21,
    ) {
        let ty = Type::Fixed(RingWidth::W64, f);
        let unit = 2f64.powi(-i32::from(f));
        let got = fixed_products(ty, &pairs);
        for (i, &(x, y)) in pairs.iter().enumerate() {
            let exact = encoded(ty, x) * encoded(ty, y);
            // The evaluator rounds toward −∞: within [−2^−f, 0] of the
            // exact product of the encoded operands.
            prop_assert!(got[i] <= exact && got[i] > exact - unit,
                "{} * {} = {} (exact {}, f = {})", x, y, got[i], exact, f);
            // Encoding rounds to the nearest unit.
            prop_assert!((encoded(ty, x) - x).abs() <= unit / 2.0);
        }
    }
}

#[test]
fn fixed_point_adds_compares_and_converts_exactly() {
    let ty = Type::Fixed(RingWidth::W32, 8);
    let xs = [-3.5, -0.25, 0.0, 1.75, 100.125];
    let mut p = Program::new(1).expect("program");
    let x = p.input(0, ty, Shape::Vector(xs.len()), "x").expect("x");
    let sum = p.binary(BinOp::Add, &x, Number::Float(0.5)).expect("add");
    let twice = p
        .binary(BinOp::Mul, &x, 2i64)
        .expect("mul by a whole number");
    let neg = p.compare(CmpOp::Lt, &x, 0.0).expect("lt");
    let abs = p.unary(UnOp::Abs, &x).expect("abs");
    let floor = p.convert(&x, Type::Int(RingWidth::W32)).expect("to int");
    let bits = p.convert(&x, Type::SInt(12)).expect("to i12");
    let halves = p.shift_right(&x, 1).expect(">>");
    for (v, name) in [
        (&sum, "sum"),
        (&twice, "twice"),
        (&neg, "neg"),
        (&abs, "abs"),
    ] {
        p.reveal(v, Receiver::All, name).expect("reveal");
    }
    for (v, name) in [(&floor, "floor"), (&bits, "bits"), (&halves, "halves")] {
        p.reveal(v, Receiver::All, name).expect("reveal");
    }
    let c = p.compile().expect("compiles");
    let out = run(&c, 1, &[(0, "x", Data::Floats(xs.to_vec()))]);
    let floats = |d: &Data| match d {
        Data::Floats(v) => v.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(floats(&out[0]), xs.map(|x| x + 0.5));
    assert_eq!(floats(&out[1]), xs.map(|x| 2.0 * x));
    assert_eq!(ints(&out[2]), xs.map(|x| i128::from(x < 0.0)));
    assert_eq!(floats(&out[3]), xs.map(f64::abs));
    assert_eq!(ints(&out[4]), xs.map(|x| x.floor() as i128));
    assert_eq!(ints(&out[5]), xs.map(|x| x.floor() as i128));
    assert_eq!(floats(&out[6]), xs.map(|x| (x * 128.0).floor() / 256.0));
    // And integers into fixed point.
    let ints_in = [-7i128, 0, 9];
    let got = unary(Type::SInt(8), &ints_in, |p, x| {
        let f = p.convert(x, ty)?;
        let g = p.binary(BinOp::Mul, &f, Number::Float(0.5))?;
        p.convert(&g, Type::Int(RingWidth::W32))
    });
    assert_eq!(got, vec![-4, 0, 4]);
}
