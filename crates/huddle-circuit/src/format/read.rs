//! Reading a circuit: the entry points, which read the header
//! (`header.rs`), then the gates (`gates.rs`), then check what the header
//! claimed against what the file showed ([`check_claims`]).

use super::error::ReadError;
use super::gates::read_gates;
use super::header::{read_header, Header};
use super::options::{Format, ReadOptions};
use super::tokens::Tokens;
use crate::model::{Circuit, CircuitAssembler, ModelError, WireId};
use std::io::{self, BufRead};

/// Input wires that no gate of the file could read, tolerated beyond the
/// file's own size (a value wider than what the circuit uses is harmless at
/// this size, and refusing it would reject reasonable files).
const UNREAD_INPUT_SLACK: u64 = 1 << 16;

/// Reads a circuit from `input` with default limits.
pub fn read_circuit(input: impl BufRead) -> Result<Circuit, ReadError> {
    read_circuit_with(input, ReadOptions::default())
}

/// Reads a circuit file from disk, using its length to bound header counts.
pub fn read_circuit_file(path: &std::path::Path, format: Format) -> Result<Circuit, ReadError> {
    let file = std::fs::File::open(path)?;
    let file_len = file.metadata().ok().map(|m| m.len());
    let options = ReadOptions {
        format,
        file_len,
        ..ReadOptions::default()
    };
    read_circuit_with(io::BufReader::with_capacity(1 << 16, file), options)
}

/// Reads a circuit from `input`.
pub fn read_circuit_with(input: impl BufRead, options: ReadOptions) -> Result<Circuit, ReadError> {
    let mut t = Tokens::new(input);
    let header = read_header(&mut t, &options)?;
    let Header {
        line: header_line,
        ring,
        gates,
        wires,
        inputs,
        outputs,
    } = header;
    let mut asm = CircuitAssembler::new(wires, ring, inputs).map_err(|e| ReadError::Model {
        line: header_line,
        source: e,
    })?;
    asm.reserve(gates.min(1 << 20) as usize);
    read_gates(&mut t, &mut asm, gates, wires, ring)?;
    check_claims(&t, &asm, wires, header_line)?;
    // Outputs are the last wires, value 0 first.
    let output_wires: u64 = outputs.iter().map(|v| u64::from(v.wires)).sum();
    let mut next = wires - output_wires;
    let mut outs = Vec::with_capacity(outputs.len());
    for spec in outputs {
        let list: Vec<WireId> = (next..next + u64::from(spec.wires))
            .map(|w| w as WireId)
            .collect();
        next += u64::from(spec.wires);
        outs.push((spec, list));
    }
    asm.finish(outs).map_err(|e| ReadError::Model {
        line: t.line(),
        source: e,
    })
}

/// The header's claims checked against what the file showed, before anything
/// is allocated per wire: every gate output was spelled out (the assembler
/// counted them), and inputs beyond what the file's gates could read are
/// refused (a B-byte file names at most B/2 wires; unread input wires up to
/// UNREAD_INPUT_SLACK are tolerated).
fn check_claims<R: BufRead>(
    t: &Tokens<R>,
    asm: &CircuitAssembler,
    wires: u64,
    header_line: usize,
) -> Result<(), ReadError> {
    if asm.written() != wires {
        return Err(ReadError::Model {
            line: t.line(),
            source: ModelError::UnwrittenWires {
                written: asm.written(),
                wires,
            },
        });
    }
    let readable = t.bytes / 2 + UNREAD_INPUT_SLACK;
    if asm.input_wires() > readable {
        return Err(ReadError::Syntax {
            line: header_line,
            cause: format!(
                "the header declares {} input wires, but the gates of this {}-byte file can read at most {}",
                asm.input_wires(),
                t.bytes,
                t.bytes / 2
            ),
        });
    }
    Ok(())
}
