//! Shared by the program tests: run a program on numbers through the
//! plaintext evaluator, and Rust's integer semantics of every type.
#![allow(dead_code)]

use huddle_circuit::program::{
    CompiledProgram, Data, Number, Pads, Program, Receiver, Result, Shape, Type, Value,
};
use huddle_circuit::PlainEvaluator;
use huddle_core::RingWidth;

/// The widths every integer test covers (a random one is added by proptest).
pub const WIDTHS: [u32; 7] = [1, 7, 8, 31, 32, 63, 64];

/// Numbers of `ty` as the data the interface takes.
pub fn data(ty: Type, xs: &[i128]) -> Data {
    match ty {
        Type::Bit => Data::Bools(xs.iter().map(|&x| x == 1).collect()),
        Type::UInt(_) => Data::UInts(xs.iter().map(|&x| x as u64).collect()),
        Type::Fixed(..) => Data::Floats(xs.iter().map(|&x| x as f64).collect()),
        _ => Data::Ints(xs.iter().map(|&x| x as i64).collect()),
    }
}

/// The data's numbers as integers.
pub fn ints(d: &Data) -> Vec<i128> {
    match d {
        Data::Bools(v) => v.iter().map(|&b| i128::from(b)).collect(),
        Data::Ints(v) => v.iter().map(|&x| i128::from(x)).collect(),
        Data::UInts(v) => v.iter().map(|&x| i128::from(x)).collect(),
        Data::Floats(v) => panic!("floats {v:?} where integers were expected"),
    }
}

/// Evaluates `c` with each party's inputs given by name (a batch of
/// `batch` instances) and returns every output's data.
pub fn run(c: &CompiledProgram, batch: usize, given: &[(usize, &str, Data)]) -> Vec<Data> {
    let iface = c.interface();
    let mut per_party = Vec::new();
    for party in 0..iface.parties {
        let mut inputs = iface.party_inputs(party, batch);
        for (p, name, d) in given {
            if *p == party {
                inputs.set(name, d).expect("inputs encode");
            }
        }
        per_party.push(inputs.finish().expect("every input given"));
    }
    let (rows, pads): (Vec<_>, Vec<_>) = per_party.into_iter().unzip();
    let all = iface.merge(rows).expect("merge");
    let outs = PlainEvaluator::new(c.circuit())
        .evaluate(&all)
        .expect("evaluates");
    let pads = Pads::join(pads).expect("every party's pads");
    let decoded = pads.decode(iface, &outs).expect("decodes");
    assert_eq!(decoded.learned().count(), iface.outputs.len());
    decoded.into_learned().into_iter().map(|(_, d)| d).collect()
}

/// f(x, y) over scalars x (party 0) and y (party 1) of `ty`, evaluated on
/// the pairs (xs[i], ys[i]); the output as integers.
pub fn binary(
    ty: Type,
    xs: &[i128],
    ys: &[i128],
    f: impl Fn(&mut Program, &Value, &Value) -> Result<Value>,
) -> Vec<i128> {
    let mut p = Program::new(2).expect("program");
    let x = p.input(0, ty, Shape::Scalar, "x").expect("x");
    let y = p.input(1, ty, Shape::Scalar, "y").expect("y");
    let z = f(&mut p, &x, &y).expect("operator builds");
    p.reveal(&z, Receiver::All, "z").expect("reveal");
    let c = p.compile().expect("compiles");
    let out = run(
        &c,
        xs.len(),
        &[(0, "x", data(ty, xs)), (1, "y", data(ty, ys))],
    );
    ints(&out[0])
}

/// f(x) over scalars x of `ty`.
pub fn unary(
    ty: Type,
    xs: &[i128],
    f: impl Fn(&mut Program, &Value) -> Result<Value>,
) -> Vec<i128> {
    let mut p = Program::new(1).expect("program");
    let x = p.input(0, ty, Shape::Scalar, "x").expect("x");
    let z = f(&mut p, &x).expect("operator builds");
    p.reveal(&z, Receiver::All, "z").expect("reveal");
    let c = p.compile().expect("compiles");
    ints(&run(&c, xs.len(), &[(0, "x", data(ty, xs))])[0])
}

/// Bits of an element of `ty`.
pub fn width(ty: Type) -> u32 {
    ty.bits()
}

/// `v` wrapped to `ty` as Rust's `as` would: the low bits, read signed or not.
pub fn wrap(ty: Type, v: i128) -> i128 {
    let w = width(ty);
    let low = v & ((1i128 << w) - 1);
    if ty.is_signed() && low >> (w - 1) == 1 {
        low - (1i128 << w)
    } else {
        low
    }
}

/// The least and greatest numbers of an integer type.
pub fn range(ty: Type) -> (i128, i128) {
    let w = width(ty);
    if ty.is_signed() {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    }
}

/// 0, 1, −1 (wrapped), the least and the greatest number of `ty`.
pub fn edges(ty: Type) -> Vec<i128> {
    let (min, max) = range(ty);
    let mut e = vec![0, wrap(ty, 1), wrap(ty, -1), min, max];
    e.sort();
    e.dedup();
    e
}

/// The integer types of one width: unsigned, signed, and the ring integer
/// where the width is a ring's.
pub fn int_types(w: u32) -> Vec<Type> {
    let mut t = vec![Type::UInt(w), Type::SInt(w)];
    if w == 1 {
        t.push(Type::Bit);
    }
    if let Some(r) = RingWidth::from_bits(w) {
        t.push(Type::Int(r));
    }
    t
}

/// All pairs of edge values, then `random` (raw bits, wrapped into the type).
pub fn pairs(ty: Type, random: &[(u64, u64)]) -> (Vec<i128>, Vec<i128>) {
    let e = edges(ty);
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for &a in &e {
        for &b in &e {
            xs.push(a);
            ys.push(b);
        }
    }
    for &(a, b) in random {
        xs.push(wrap(ty, i128::from(a)));
        ys.push(wrap(ty, i128::from(b)));
    }
    (xs, ys)
}

/// A number for a literal.
pub fn num(x: i128) -> Number {
    Number::Int(x)
}
