//! The interface of compiled programs: numbers round-trip exactly through
//! the circuit's input and output rows; mistakes in given inputs are
//! refused; public parameters are checked equal; the same program gives
//! the same bytes; statistics and the optimizer apply to programs.

mod program_util;

use huddle_circuit::program::{
    BinOp, CmpOp, CompiledProgram, Data, Program, Receiver, Shape, Type, PUBLIC_OK,
};
use huddle_circuit::PlainEvaluator;
use huddle_core::RingWidth;
use program_util::{data, ints, run};
use proptest::prelude::*;

fn any_type() -> impl Strategy<Value = Type> {
    let ring = proptest::sample::select(RingWidth::ALL.to_vec());
    prop_oneof![
        Just(Type::Bit),
        (1..=64u32).prop_map(Type::UInt),
        (1..=64u32).prop_map(Type::SInt),
        ring.clone().prop_map(Type::Int),
        (ring, any::<u8>()).prop_map(|(r, f)| Type::Fixed(r, 1 + f % (r.bits() as u8 - 1))),
    ]
}

fn any_shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Scalar),
        (1..6usize).prop_map(Shape::Vector),
        (1..4usize, 1..4usize).prop_map(|(r, c)| Shape::Matrix(r, c)),
    ]
}

/// Numbers of `ty` from raw bits: every bit pattern is some number.
fn numbers(ty: Type, raws: &[u64]) -> Data {
    let ints: Vec<i128> = raws
        .iter()
        .map(|&r| match ty.decode(r) {
            huddle_circuit::program::Number::Int(n) => n,
            huddle_circuit::program::Number::Float(_) => 0,
        })
        .collect();
    match ty {
        Type::Fixed(..) => Data::Floats(
            raws.iter()
                .map(|&r| match ty.decode(r) {
                    huddle_circuit::program::Number::Float(x) => x,
                    huddle_circuit::program::Number::Int(_) => unreachable!(),
                })
                .collect(),
        ),
        _ => data(ty, &ints),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn numbers_round_trip_through_inputs_and_outputs(
        ty in any_type(), shape in any_shape(), batch in 1usize..70,
        raws in proptest::collection::vec(any::<u64>(), 70 * 9),
    ) {
        let given = numbers(ty, &raws[..batch * shape.len()]);
        let mut p = Program::new(2).expect("program");
        let x = p.input(1, ty, shape, "x").expect("x");
        p.reveal(&x, Receiver::Party(0), "x").expect("reveal");
        let c = p.compile().expect("compiles");
        let out = run(&c, batch, &[(1, "x", given.clone())]);
        prop_assert_eq!(&out[0], &given);
        let spec = &c.interface().outputs[0];
        prop_assert_eq!((spec.ty, spec.shape, spec.to), (ty, shape, Receiver::Party(0)));
        // The interface travels as JSON and comes back the same.
        let json = c.interface().to_json();
        let back: huddle_circuit::program::Interface = serde_json::from_str(&json).expect("parses");
        prop_assert_eq!(&back, c.interface());
    }
}

#[test]
fn given_inputs_are_checked() {
    let mut p = Program::new(2).expect("program");
    let x = p.input(0, Type::UInt(4), Shape::Vector(2), "x").expect("x");
    let t = p
        .input_rows(1, Type::SInt(8), Shape::Scalar, 3, "t")
        .expect("t");
    let s = p.sum(&t.values).expect("sum");
    p.reveal(&x, Receiver::All, "x").expect("reveal");
    p.reveal(&s, Receiver::All, "s").expect("reveal");
    let c = p.compile().expect("compiles");
    let iface = c.interface();
    let mut zero = iface.party_inputs(0, 2);
    let e = zero
        .set("x", &Data::UInts(vec![1, 2, 3, 16]))
        .expect_err("16 is not a u4");
    assert_eq!(
        e.message,
        "input \"x\" (u4 (2,)): element 1 of instance 1: u4 cannot hold 16: its range is 0 to 15"
    );
    let e = zero
        .set("x", &Data::UInts(vec![1, 2, 3]))
        .expect_err("a missing number");
    assert_eq!(
        e.message,
        "input \"x\" (u4 (2,)): 3 numbers given for 2 instance(s) of 2 elements"
    );
    let e = zero
        .set("t", &Data::Ints(vec![1]))
        .expect_err("not party 0's");
    assert_eq!(e.message, "input \"t\" belongs to party 1, not party 0");
    let e = zero
        .set("nope", &Data::Ints(vec![1]))
        .expect_err("no such input");
    assert_eq!(
        e.message,
        "the program has no input or public parameter \"nope\""
    );
    let e = iface
        .party_inputs(0, 2)
        .finish()
        .map(|_| ())
        .expect_err("x missing");
    assert_eq!(e.message, "party 0 gave no value for \"x\"");
    let mut one = iface.party_inputs(1, 2);
    let e = one
        .set_rows("t", &Data::Ints(vec![0; 8]), 4)
        .expect_err("too many rows");
    assert_eq!(
        e.message,
        "input \"t\" (i8 (3,)): 4 rows given, at most 3 allowed"
    );
    let e = one
        .set("t", &Data::Ints(vec![0; 6]))
        .expect_err("rows go through set_rows");
    assert_eq!(
        e.message,
        "input \"t\" (i8 (3,)): a variable-length input is given with set_rows"
    );
    assert_eq!(iface.owned_by(1), vec![1, 2]);
    assert_eq!(iface.input("t").and_then(|s| s.max_rows), Some(3));
}

#[test]
fn each_instance_gives_its_own_rows() {
    let mut p = Program::new(2).expect("program");
    let t = p
        .input_rows(1, Type::SInt(8), Shape::Scalar, 3, "t")
        .expect("t");
    let s = p.sum(&t.values).expect("sum");
    p.reveal(&s, Receiver::All, "s").expect("reveal");
    p.reveal(&t.valid, Receiver::All, "valid").expect("reveal");
    let c = p.compile().expect("compiles");
    let iface = c.interface();
    let mut one = iface.party_inputs(1, 3);
    let e = one
        .set_rows_each("t", &Data::Ints(vec![1; 4]), &[1, 4, 0])
        .expect_err("4 rows");
    assert_eq!(
        e.message,
        "input \"t\" (i8 (3,)): 4 rows given, at most 3 allowed"
    );
    let e = one
        .set_rows_each("t", &Data::Ints(vec![1; 2]), &[1, 1])
        .expect_err("two counts for three instances");
    assert_eq!(
        e.message,
        "input \"t\" (i8 (3,)): row counts of 2 instances given for 3"
    );
    let e = one
        .set_rows_each("t", &Data::Ints(vec![1; 4]), &[2, 0, 3])
        .expect_err("a number short");
    assert_eq!(
        e.message,
        "input \"t\" (i8 (3,)): 4 numbers given for 5 elements of 3 instances"
    );
    one.set_rows_each("t", &Data::Ints(vec![5, -1, 7, 2, 3]), &[2, 0, 3])
        .expect("rows");
    let (zero, _) = iface
        .party_inputs(0, 3)
        .finish()
        .expect("party 0 gives nothing");
    let (one, _) = one.finish().expect("complete");
    let all = iface.merge(vec![zero, one]).expect("merged");
    let out = PlainEvaluator::new(c.circuit())
        .evaluate(&all)
        .expect("evaluates");
    assert_eq!(
        iface.decode_output(0, &out[0]).expect("s"),
        Data::Ints(vec![4, 0, 12])
    );
    let valid = [true, true, false, false, false, false, true, true, true];
    assert_eq!(
        iface.decode_output(1, &out[1]).expect("valid"),
        Data::Bools(valid.to_vec())
    );
}

/// A program with every kind of declaration, built from scratch.
fn mixed(threshold_type: Type) -> CompiledProgram {
    let mut p = Program::new(3).expect("program");
    let k = p
        .public("threshold", threshold_type, Shape::Scalar)
        .expect("public");
    let a = p
        .input(0, Type::SInt(32), Shape::Vector(4), "a")
        .expect("a");
    let b = p
        .input(1, Type::SInt(32), Shape::Vector(4), "b")
        .expect("b");
    let r = p
        .input(2, Type::Fixed(RingWidth::W64, 16), Shape::Scalar, "r")
        .expect("r");
    let k = p.convert(&k, Type::SInt(32)).expect("as i32");
    let sum = p.binary(BinOp::Add, &a, &b).expect("add");
    let above = p.compare(CmpOp::Gt, &sum, &k).expect("gt");
    let big = p.select(&above, &sum, 0i64).expect("select");
    let ring = p
        .convert(&big, Type::Fixed(RingWidth::W64, 16))
        .expect("convert");
    let scaled = p.binary(BinOp::Mul, &ring, &r).expect("mul");
    let total = p.sum(&scaled).expect("sum");
    p.reveal(&above, Receiver::All, "above").expect("reveal");
    p.reveal(&total, Receiver::All, "total").expect("reveal");
    p.compile().expect("compiles")
}

fn canonical(c: &CompiledProgram) -> Vec<u8> {
    let mut bytes = Vec::new();
    c.write_canonical(&mut bytes).expect("writes");
    bytes
}

#[test]
fn the_same_program_gives_the_same_bytes() {
    let (first, second) = (mixed(Type::SInt(32)), mixed(Type::SInt(32)));
    assert_eq!(canonical(&first), canonical(&second));
    let mut circuit = Vec::new();
    huddle_circuit::write_canonical(first.circuit(), &mut circuit).expect("writes");
    let mut again = Vec::new();
    huddle_circuit::write_canonical(second.circuit(), &mut again).expect("writes");
    assert_eq!(circuit, again);
    // A different type of the same width: the same gates may differ in
    // meaning, and the canonical form tells them apart.
    assert_ne!(canonical(&first), canonical(&mixed(Type::UInt(32))));
}

#[test]
fn public_parameters_must_agree() {
    let c = mixed(Type::SInt(32));
    assert_eq!(c.interface().outputs[2].name, PUBLIC_OK);
    let inputs = |thresholds: [i64; 3]| {
        let mut given = vec![
            (0, "a", Data::Ints(vec![1, 2, 3, 4])),
            (1, "b", Data::Ints(vec![10, 0, -3, 4])),
            (2, "r", Data::Floats(vec![0.5])),
        ];
        for (party, t) in thresholds.into_iter().enumerate() {
            given.push((party, "threshold", Data::Ints(vec![t])));
        }
        run(&c, 1, &given)
    };
    let agreed = inputs([3, 3, 3]);
    assert_eq!(agreed[0], Data::Bools(vec![true, false, false, true]));
    assert_eq!(agreed[1], Data::Floats(vec![(11.0 + 8.0) * 0.5]));
    assert_eq!(agreed[2], Data::Bools(vec![true]));
    let disputed = inputs([3, 3, -100]);
    assert_eq!(disputed[0], Data::Bools(vec![false; 4]));
    assert_eq!(disputed[1], Data::Floats(vec![0.0]));
    assert_eq!(disputed[2], Data::Bools(vec![false]));
}

#[test]
fn stats_and_the_optimizer_apply_to_programs() {
    let mut p = Program::new(2).expect("program");
    let x = p.input(0, Type::UInt(8), Shape::Vector(2), "x").expect("x");
    let y = p.input(1, Type::UInt(8), Shape::Vector(2), "y").expect("y");
    let z = p.binary(BinOp::Mul, &x, &y).expect("mul");
    let s = p.sum(&z).expect("sum");
    p.reveal(&s, Receiver::Party(1), "s").expect("reveal");
    let c = p.compile().expect("compiles");
    let stats = c.stats();
    assert!(stats.and_count > 0 && stats.arithmetic.is_none());
    let o = c.optimize(4).expect("Boolean programs optimize");
    let fast = o.stats();
    assert!(
        fast.and_depth < stats.and_depth,
        "{} vs {}",
        fast.and_depth,
        stats.and_depth
    );
    assert!(fast.and_by_fanin.keys().all(|&k| k <= 4));
    let xs = data(Type::UInt(8), &[30, 255]);
    let ys = data(Type::UInt(8), &[2, 9]);
    let before = run(&c, 1, &[(0, "x", xs.clone()), (1, "y", ys.clone())]);
    let after = run(&o, 1, &[(0, "x", xs), (1, "y", ys)]);
    assert_eq!(before, after);
    assert_eq!(ints(&before[0]), vec![(60 + 2295) % 256]);
    assert_eq!(c.interface().reveal_to().expect("one receiver"), Some(1));
    let ring = mixed(Type::SInt(32));
    let e = ring
        .optimize(4)
        .expect_err("ring programs are not rewritten");
    assert_eq!(
        e.message,
        "optimize: only Boolean circuits can be rewritten"
    );
    assert_eq!(ring.interface().reveal_to().expect("all"), None);
    let _ = PlainEvaluator::new(ring.circuit());
}
