//! How long building a program of about 10^6 gates from scalar operations
//! takes (the Python package wraps this layer; building such a program from
//! Python must stay under 2 s, so this must be far under). Not a test: a
//! measurement, run with
//! `cargo run --profile checked -p huddle-circuit --example program_build`
//! (or `--release` for the number to report).

use huddle_circuit::program::{BinOp, CmpOp, Program, Receiver, Shape, Type};
use huddle_core::RingWidth;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let start = Instant::now();
    // Ring scalars: a multiply-accumulate chain, about two gates a step.
    let mut p = Program::new(2)?;
    let ty = Type::Int(RingWidth::W64);
    let x = p.input(0, ty, Shape::Scalar, "x")?;
    let y = p.input(1, ty, Shape::Scalar, "y")?;
    let mut acc = x.clone();
    for _ in 0..500_000 {
        let t = p.binary(BinOp::Mul, &acc, &y)?;
        acc = p.binary(BinOp::Add, &t, &x)?;
    }
    p.reveal(&acc, Receiver::All, "acc")?;
    let ring = p.compile()?;
    let ring_time = start.elapsed();

    // Boolean scalars: 32-bit additions and comparisons.
    let start = Instant::now();
    let mut p = Program::new(2)?;
    let ty = Type::UInt(32);
    let x = p.input(0, ty, Shape::Scalar, "x")?;
    let y = p.input(1, ty, Shape::Scalar, "y")?;
    let mut acc = x.clone();
    let mut bits = Vec::new();
    while bits.len() < 2_000 {
        acc = p.binary(BinOp::Add, &acc, &y)?;
        bits.push(p.compare(CmpOp::Lt, &acc, &x)?);
    }
    let flags = p.stack(&bits)?;
    p.reveal(&acc, Receiver::All, "acc")?;
    p.reveal(&flags, Receiver::All, "flags")?;
    let boolean = p.compile()?;
    let boolean_time = start.elapsed();

    for (what, c, t) in [
        ("ring64 multiply-add", &ring, ring_time),
        ("u32 add and compare", &boolean, boolean_time),
    ] {
        println!(
            "{what}: {} gates built and compiled in {:.3} s",
            c.circuit().gates().len(),
            t.as_secs_f64()
        );
    }
    Ok(())
}
