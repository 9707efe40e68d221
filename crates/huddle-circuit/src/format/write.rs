//! Writing a circuit: as text in Bristol Fashion or the arithmetic format
//! ([`write_circuit`]), in the old Bristol format ([`write_old_bristol`]),
//! and in the canonical binary form parties hash to compare circuits
//! ([`write_canonical`]). Gate lines are built by hand in 64 KiB pieces:
//! large circuits are written, and hashed, at every run's start.

use crate::model::{Circuit, Domain, Op, WireId};
use std::io::{self, Write};

/// Writes `circuit` in Bristol Fashion, or in the arithmetic format if it has
/// ring wires. Output values must be the last wires, in order; where they are
/// not, EQW copies to fresh wires at the end are added.
pub fn write_circuit(circuit: &Circuit, mut out: impl Write) -> io::Result<()> {
    let outputs: Vec<WireId> = circuit
        .outputs()
        .iter()
        .flat_map(|v| v.wires.iter().copied())
        .collect();
    let n = circuit.num_wires();
    let in_place = outputs
        .iter()
        .enumerate()
        .all(|(i, &w)| w as usize == n - outputs.len() + i);
    let extra = if in_place { 0 } else { outputs.len() };
    if let Some(r) = circuit.ring() {
        writeln!(out, "ring {}", r.bits())?;
    }
    writeln!(out, "{} {}", circuit.gates().len() + extra, n + extra)?;
    let width = |d: Domain, w: u32| {
        if d == Domain::Ring {
            format!(" {w}r")
        } else {
            format!(" {w}")
        }
    };
    write!(out, "{}", circuit.inputs().len())?;
    for v in circuit.inputs() {
        write!(out, "{}", width(v.domain, v.wires))?;
    }
    write!(out, "\n{}", circuit.outputs().len())?;
    for v in circuit.outputs() {
        write!(out, "{}", width(v.domain, v.wires.len() as u32))?;
    }
    writeln!(out, "\n")?;
    write_gates(circuit, &mut out)?;
    if !in_place {
        for (i, &w) in outputs.iter().enumerate() {
            writeln!(out, "1 1 {w} {} EQW", n + i)?;
        }
    }
    Ok(())
}

/// Writes every gate line of `circuit`, in 64 KiB pieces (a hash or a
/// file takes few large writes faster than a write per line).
fn write_gates(circuit: &Circuit, out: &mut impl Write) -> io::Result<()> {
    let mut text = Vec::with_capacity(PIECE + 256);
    for g in circuit.gates() {
        write_gate(
            &mut text,
            g.op,
            circuit.gate_inputs(g),
            circuit.gate_outputs(g),
        );
        write_full_piece(&mut text, out)?;
    }
    out.write_all(&text)
}

/// Bytes collected before a write (a hash or a file takes few large writes
/// faster than many small ones).
const PIECE: usize = 1 << 16;

/// Writes `buf` out and empties it once it holds a piece.
fn write_full_piece(buf: &mut Vec<u8>, out: &mut impl Write) -> io::Result<()> {
    if buf.len() >= PIECE {
        out.write_all(buf)?;
        buf.clear();
    }
    Ok(())
}

/// A gate's literal, written before its input wires (constants) or after
/// them (a constant operand, a truncation).
fn literals(op: Op) -> (Option<u64>, Option<u64>) {
    match op {
        Op::ConstBit(b) => (Some(u64::from(b)), None),
        Op::ConstRing(c) => (Some(c), None),
        Op::AddConst(c) | Op::MulConst(c) => (None, Some(c)),
        Op::DotTrunc(f) => (None, Some(u64::from(f))),
        _ => (None, None),
    }
}

fn write_gate(line: &mut Vec<u8>, op: Op, ins: &[WireId], outs: &[WireId]) {
    let (literal_first, literal_last) = literals(op);
    let n_in =
        ins.len() + usize::from(literal_first.is_some()) + usize::from(literal_last.is_some());
    push_decimal(line, n_in as u64);
    line.push(b' ');
    push_decimal(line, outs.len() as u64);
    let numbers = literal_first
        .into_iter()
        .chain(ins.iter().map(|&w| u64::from(w)))
        .chain(literal_last)
        .chain(outs.iter().map(|&w| u64::from(w)));
    for v in numbers {
        line.push(b' ');
        push_decimal(line, v);
    }
    line.push(b' ');
    line.extend_from_slice(op.name().as_bytes());
    line.push(b'\n');
}

/// Appends `v` in decimal (what `write!` does, several times faster: large
/// circuits are written, and hashed as text, at every run's start).
fn push_decimal(line: &mut Vec<u8>, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    line.extend_from_slice(&digits[at..]);
}

/// Writes `circuit` in huddle's canonical binary form: what parties compare
/// (hashed) to know they hold the same circuit. It has everything that
/// decides what the circuit computes, as the written form does (ring, wires,
/// the inputs' and outputs' domains and wires, every gate's operation,
/// literal and operands), at fixed widths and little-endian, so one circuit
/// has one form and two circuits two; names and input owners are not in it.
/// Several times faster than writing the text, which for a large circuit
/// was a tenth of a party's start.
pub fn write_canonical(circuit: &Circuit, out: &mut impl Write) -> io::Result<()> {
    let mut buf: Vec<u8> = Vec::with_capacity(PIECE + 64);
    buf.extend_from_slice(b"huddle circuit 1\0");
    buf.extend_from_slice(&circuit.ring().map_or(0, |r| r.bits()).to_le_bytes());
    buf.extend_from_slice(&(circuit.num_wires() as u64).to_le_bytes());
    buf.extend_from_slice(&(circuit.inputs().len() as u64).to_le_bytes());
    for v in circuit.inputs() {
        buf.push(v.domain as u8);
        buf.extend_from_slice(&v.first_wire.to_le_bytes());
        buf.extend_from_slice(&v.wires.to_le_bytes());
    }
    buf.extend_from_slice(&(circuit.outputs().len() as u64).to_le_bytes());
    for v in circuit.outputs() {
        buf.push(v.domain as u8);
        buf.extend_from_slice(&(v.wires.len() as u64).to_le_bytes());
        for w in &v.wires {
            buf.extend_from_slice(&w.to_le_bytes());
        }
        write_full_piece(&mut buf, out)?;
    }
    buf.extend_from_slice(&(circuit.gates().len() as u64).to_le_bytes());
    // Each gate: its operation's name (0-terminated), its literal, its
    // operand counts, its operands.
    for g in circuit.gates() {
        buf.extend_from_slice(g.op.name().as_bytes());
        buf.push(0);
        let (first, last) = literals(g.op);
        buf.extend_from_slice(&first.or(last).unwrap_or(0).to_le_bytes());
        let (ins, outs) = (circuit.gate_inputs(g), circuit.gate_outputs(g));
        buf.extend_from_slice(&(ins.len() as u32).to_le_bytes());
        buf.extend_from_slice(&(outs.len() as u32).to_le_bytes());
        for wires in [ins, outs] {
            // Sized once, then filled: a loop the compiler vectorizes.
            let at = buf.len();
            buf.resize(at + 4 * wires.len(), 0);
            for (to, w) in buf[at..].chunks_exact_mut(4).zip(wires) {
                to.copy_from_slice(&w.to_le_bytes());
            }
        }
        write_full_piece(&mut buf, out)?;
    }
    out.write_all(&buf)
}

/// Why a circuit cannot be written in the old Bristol format.
#[derive(Debug, thiserror::Error)]
pub enum OldFormatError {
    /// The circuit uses something the format cannot express (named in the message).
    #[error("the old Bristol format has {0}")]
    Unsupported(String),
    /// The writer failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Writes `circuit` in the old Bristol format: one or two Boolean inputs, one
/// output on the last wires, only XOR, 2-input AND and INV gates.
pub fn write_old_bristol(circuit: &Circuit, mut out: impl Write) -> Result<(), OldFormatError> {
    let unsupported = |s: String| Err(OldFormatError::Unsupported(s));
    if !circuit.is_boolean() {
        return unsupported("no arithmetic wires".into());
    }
    let ins = circuit.inputs();
    if ins.is_empty() || ins.len() > 2 || circuit.outputs().len() != 1 {
        return unsupported(format!(
            "room for one or two inputs and one output, not {} and {}",
            ins.len(),
            circuit.outputs().len()
        ));
    }
    let n = circuit.num_wires();
    let out_wires = &circuit.outputs()[0].wires;
    if out_wires
        .iter()
        .enumerate()
        .any(|(i, &w)| w as usize != n - out_wires.len() + i)
    {
        return unsupported("its output on the last wires only".into());
    }
    for g in circuit.gates() {
        match g.op {
            Op::Xor | Op::Inv => {}
            Op::And if g.num_inputs() == 2 => {}
            Op::And => return unsupported(format!("no {}-input AND", g.num_inputs())),
            other => return unsupported(format!("no {} gates", other.name())),
        }
    }
    writeln!(out, "{} {}", circuit.gates().len(), n)?;
    writeln!(
        out,
        "{} {} {}\n",
        ins[0].wires,
        ins.get(1).map_or(0, |v| v.wires),
        out_wires.len()
    )?;
    write_gates(circuit, &mut out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::push_decimal;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn decimals_are_what_display_writes(v: u64, prefix in "[a-z ]{0,3}") {
            let mut line = prefix.clone().into_bytes();
            push_decimal(&mut line, v);
            prop_assert_eq!(line, format!("{prefix}{v}").into_bytes());
        }
    }

    #[test]
    fn decimal_edges() {
        for v in [0, 9, 10, 99, 100, u64::from(u32::MAX), u64::MAX] {
            let mut line = Vec::new();
            push_decimal(&mut line, v);
            assert_eq!(line, v.to_string().into_bytes());
        }
    }
}
