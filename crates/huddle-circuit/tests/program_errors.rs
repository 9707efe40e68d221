//! Mistakes in typed programs are errors with the stated messages, never
//! panics: shapes, mixed rings, types, literals, parties, names.

use huddle_circuit::program::{
    BinOp, CmpOp, ErrorKind, Number, Program, ProgramError, Receiver, Shape, Type, UnOp,
};
use huddle_core::RingWidth;

fn fails<T: std::fmt::Debug>(r: Result<T, ProgramError>) -> ProgramError {
    r.expect_err("a mistake must be refused")
}

#[test]
fn shape_mismatches_name_the_operation_and_shapes() {
    let mut p = Program::new(2).expect("program");
    let a = p.input(0, Type::UInt(8), Shape::Vector(3), "a").expect("a");
    let b = p.input(1, Type::UInt(8), Shape::Vector(4), "b").expect("b");
    let m = p
        .input(1, Type::UInt(8), Shape::Matrix(2, 3), "m")
        .expect("m");
    let e = fails(p.binary(BinOp::Add, &a, &b));
    assert_eq!(e.kind, ErrorKind::Shape);
    assert_eq!(
        e.message,
        "add: shapes (3,) and (4,) do not match (only scalars broadcast)"
    );
    let e = fails(p.dot(&a, &b));
    assert_eq!(
        e.message,
        "dot: vectors of different lengths: u8 (3,) and u8 (4,)"
    );
    let e = fails(p.matmul(&m, &b));
    assert_eq!(
        e.message,
        "matmul: shapes u8 (2, 3) and u8 (4,) do not fit: (n,)·(n, m), (r, n)·(n, m) or (r, n)·(n,)"
    );
    let e = fails(p.reshape(&a, Shape::Vector(4)));
    assert_eq!(e.message, "reshape: u8 (3,) cannot become (4,)");
    let e = fails(p.index(&a, 3));
    assert_eq!(e.message, "index: 3 is out of range for u8 (3,)");
    let c = p.compare(CmpOp::Lt, &a, 1i64).expect("bits (3,)");
    let e = fails(p.select(&c, &m, 0i64));
    assert_eq!(
        e.message,
        "select: shapes (3,) and (2, 3) do not match (only scalars broadcast)"
    );
}

#[test]
fn a_second_ring_width_is_a_build_error() {
    let mut p = Program::new(1).expect("program");
    let x = p
        .input(0, Type::Int(RingWidth::W64), Shape::Scalar, "x")
        .expect("x");
    let e = fails(p.input(0, Type::Int(RingWidth::W32), Shape::Scalar, "y"));
    assert_eq!(e.kind, ErrorKind::Ring);
    assert_eq!(
        e.message,
        "input \"y\": ring32 computes in Z_2^32, but this program's ring is Z_2^64 \
         (since input \"x\", of type ring64); a program has one ring width"
    );
    let e = fails(p.convert(&x, Type::Fixed(RingWidth::W16, 4)));
    assert_eq!(e.kind, ErrorKind::Ring);
    assert!(e
        .message
        .starts_with("convert to fixed16.4: fixed16.4 computes in Z_2^16"));
    // The same ring is fine, in any type.
    p.convert(&x, Type::Fixed(RingWidth::W64, 16))
        .expect("same ring");
}

#[test]
fn type_mistakes_name_the_types() {
    let mut p = Program::new(1).expect("program");
    let a = p.input(0, Type::UInt(8), Shape::Scalar, "a").expect("a");
    let b = p.input(0, Type::SInt(8), Shape::Vector(2), "b").expect("b");
    let r = p
        .input(0, Type::Int(RingWidth::W32), Shape::Scalar, "r")
        .expect("r");
    let f = p
        .input(0, Type::Fixed(RingWidth::W32, 8), Shape::Scalar, "f")
        .expect("f");
    let e = fails(p.binary(BinOp::Add, &a, &b));
    assert_eq!(e.kind, ErrorKind::Type);
    assert_eq!(
        e.message,
        "add: the operands' types differ: u8 () and i8 (2,) (convert one with `convert`)"
    );
    let e = fails(p.binary(BinOp::Xor, &r, &r));
    assert_eq!(
        e.message,
        "xor: bitwise operators need Boolean-domain values, not ring32 () (convert with `convert`)"
    );
    let e = fails(p.unary(UnOp::Not, &f));
    assert_eq!(e.message, "not: bitwise NOT of fixed32.8 () has no meaning");
    let e = fails(p.select(&a, &a, &a));
    assert_eq!(
        e.message,
        "select: the condition must be bits, not u8 () (compare to get bits)"
    );
    let e = fails(p.binary(BinOp::Add, &a, 256i64));
    assert_eq!(e.kind, ErrorKind::Value);
    assert_eq!(e.message, "add: u8 cannot hold 256: its range is 0 to 255");
    let e = fails(p.binary(BinOp::Mul, &a, 0.5));
    assert_eq!(e.message, "mul: u8 holds integers, not 0.5");
    let e = fails(p.binary(BinOp::Add, 1i64, 2i64));
    assert_eq!(
        e.message,
        "add: at least one operand must be a secret value"
    );
    let e = fails(p.input(0, Type::UInt(65), Shape::Scalar, "w"));
    assert_eq!(
        e.message,
        "input \"w\": an integer type has 1 to 64 bits, not 65"
    );
    let e = fails(p.input(0, Type::Fixed(RingWidth::W32, 32), Shape::Scalar, "g"));
    assert_eq!(
        e.message,
        "input \"g\": a fixed-point type over Z_2^32 has 1 to 31 fractional bits, not 32"
    );
    let e = fails(p.constant(
        Type::Fixed(RingWidth::W32, 8),
        Shape::Scalar,
        &[Number::Float(f64::NAN)],
    ));
    assert_eq!(
        e.message,
        "constant of fixed32.8 (): fixed32.8 cannot hold NaN"
    );
}

#[test]
fn declarations_and_outputs_are_checked() {
    let mut p = Program::new(2).expect("program");
    let e = fails(p.input(2, Type::Bit, Shape::Scalar, "x"));
    assert_eq!(e.kind, ErrorKind::Usage);
    assert_eq!(
        e.message,
        "input \"x\": party 2 does not exist; the program has parties 0 to 1"
    );
    let x = p.input(0, Type::Bit, Shape::Scalar, "x").expect("x");
    let e = fails(p.input(1, Type::Bit, Shape::Scalar, "x"));
    assert_eq!(
        e.message,
        "input \"x\": an input or public parameter is already named \"x\""
    );
    let e = fails(p.input(1, Type::Bit, Shape::Scalar, "a b"));
    assert_eq!(
        e.message,
        "input \"a b\": a name is 1 to 64 ASCII letters, digits, '_' and '-'"
    );
    let e = fails(p.input(1, Type::UInt(64), Shape::Matrix(1 << 20, 1 << 20), "big"));
    assert_eq!(e.kind, ErrorKind::Shape);
    let mut other = Program::new(2).expect("program");
    let e = fails(other.unary(UnOp::Neg, &x));
    assert_eq!(
        e.message,
        "neg: the value bit () belongs to another program"
    );
    p.reveal(&x, Receiver::Party(1), "out").expect("reveal");
    let e = fails(p.reveal(&x, Receiver::All, "out"));
    assert_eq!(
        e.message,
        "reveal \"out\": an output is already named \"out\""
    );
    let e = fails(p.reveal(&x, Receiver::Party(5), "out2"));
    assert!(e.message.contains("party 5 does not exist"));
    let e = fails(Program::new(1).expect("program").compile());
    assert_eq!(
        e.message,
        "the program reveals nothing: reveal at least one value"
    );
    assert!(Program::new(0).is_err());
}
