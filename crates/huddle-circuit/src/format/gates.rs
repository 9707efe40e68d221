//! The gate lines of a circuit file: each read and checked as it arrives
//! ([`read_gates`]), its operation name mapped to an [`Op`] with the
//! literal some gates carry among their inputs ([`parse_op`]).

use super::error::ReadError;
use super::tokens::Tokens;
use crate::model::{CircuitAssembler, ModelError, Op, WireId};
use huddle_core::RingWidth;
use std::io::BufRead;

/// Reads exactly `gates` gate lines into `asm`, each checked as it arrives.
pub(super) fn read_gates<R: BufRead>(
    t: &mut Tokens<R>,
    asm: &mut CircuitAssembler,
    gates: u64,
    wires: u64,
    ring: Option<RingWidth>,
) -> Result<(), ReadError> {
    let mut nums: Vec<u64> = Vec::new();
    let mut wire_buf: Vec<WireId> = Vec::new();
    let mut seen = 0u64;
    while t.advance()? {
        let line = t.line();
        seen += 1;
        if seen > gates {
            return Err(ReadError::Syntax {
                line,
                cause: format!("more gates than the {gates} the header declares"),
            });
        }
        let n_in = t.number("the gate's input count")?;
        let n_out = t.next_number("the gate's output count")?;
        if n_in.saturating_add(n_out) > wires.saturating_mul(2) + 2 {
            return Err(ReadError::Syntax { line, cause: format!("a gate with {n_in} inputs and {n_out} outputs cannot exist in a {wires}-wire circuit") });
        }
        nums.clear();
        for _ in 0..n_in + n_out {
            nums.push(t.next_number("a gate operand")?);
        }
        t.expect_more("the gate's operation name")?;
        let n_in = n_in as usize;
        let (op, literal) = parse_op(t.current(), &nums[..n_in], ring)
            .map_err(|cause| ReadError::Syntax { line, cause })?;
        let wire_operands = match literal {
            Literal::None => &nums[..],
            Literal::First => &nums[1..],
            Literal::Last => {
                nums.remove(n_in - 1);
                &nums[..]
            }
        };
        wire_buf.clear();
        for &w in wire_operands {
            if w >= wires {
                return Err(ReadError::Model {
                    line,
                    source: ModelError::WireOutOfRange { wire: w, wires },
                });
            }
            wire_buf.push(w as WireId);
        }
        let ins = n_in - usize::from(literal != Literal::None);
        asm.push(op, &wire_buf[..ins], &wire_buf[ins..])
            .map_err(|e| ReadError::Model { line, source: e })?;
    }
    if seen < gates {
        return Err(ReadError::Truncated {
            line: t.line(),
            expected: format!("{gates} gates, found {seen}"),
        });
    }
    Ok(())
}

/// Where a gate line carries a literal among its inputs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Literal {
    None,
    /// `1 1 v out EQ`, `1 1 c out CONST`.
    First,
    /// `2 1 a c out ADDC`, `2 1 a c out MULC`.
    Last,
}

/// Maps an operation name and its numeric inputs to an [`Op`].
fn parse_op(name: &[u8], inputs: &[u64], ring: Option<RingWidth>) -> Result<(Op, Literal), String> {
    let name_str = || String::from_utf8_lossy(name).into_owned();
    let op = match name {
        b"XOR" => Op::Xor,
        b"AND" => Op::And,
        b"INV" | b"NOT" => Op::Inv,
        b"EQW" => Op::Copy,
        b"MAND" => Op::Mand,
        b"EQ" => {
            return match inputs {
                [0] => Ok((Op::ConstBit(false), Literal::First)),
                [1] => Ok((Op::ConstBit(true), Literal::First)),
                [v] => Err(format!("EQ sets a constant bit, but the literal is {v}")),
                _ => Err(format!("EQ expects 1 literal input, got {}", inputs.len())),
            }
        }
        b"ADD" | b"SUB" | b"NEG" | b"MUL" | b"A2B" | b"B2A" | b"CONST" | b"ADDC" | b"MULC"
        | b"DOT" | b"DOTTR" | b"LTZ"
            if ring.is_none() =>
        {
            return Err(format!(
                "`{}` is an arithmetic gate, but the file declares no ring (first line `ring K`)",
                name_str()
            ))
        }
        b"ADD" => Op::Add,
        b"SUB" => Op::Sub,
        b"NEG" => Op::Neg,
        b"MUL" => Op::Mul,
        b"A2B" => Op::BitDecompose,
        b"B2A" => Op::BitInject,
        b"DOT" => Op::Dot,
        b"LTZ" => Op::Ltz,
        b"EQZ" => Op::Eqz,
        b"BX2A" => Op::BitMul,
        b"DOTTR" => {
            return match inputs.last() {
                Some(&f) if inputs.len() % 2 == 1 && inputs.len() >= 3 => match u8::try_from(f) {
                    Ok(f) => Ok((Op::DotTrunc(f), Literal::Last)),
                    Err(_) => Err(format!(
                        "DOTTR truncates by {f} bits, more than any ring has"
                    )),
                },
                _ => Err(format!(
                "DOTTR expects 2l input wires and 1 literal (the fractional bits), got {} inputs",
                inputs.len()
            )),
            }
        }
        b"CONST" => {
            return match inputs {
                [c] => Ok((Op::ConstRing(*c), Literal::First)),
                _ => Err(format!(
                    "CONST expects 1 literal input, got {}",
                    inputs.len()
                )),
            }
        }
        b"ADDC" | b"MULC" => {
            return match inputs {
                [_, c] => Ok((
                    if name == b"ADDC" {
                        Op::AddConst(*c)
                    } else {
                        Op::MulConst(*c)
                    },
                    Literal::Last,
                )),
                _ => Err(format!(
                    "{} expects 1 input wire and 1 literal, got {} inputs",
                    name_str(),
                    inputs.len()
                )),
            }
        }
        _ => return Err(format!("unknown gate `{}`", name_str())),
    };
    Ok((op, Literal::None))
}
