//! Reading and writing circuit files.
//!
//! Three text formats share one gate syntax, `<#in> <#out> <inputs> <outputs> <OP>`:
//!
//! * **Bristol Fashion**, with the multi-input AND extension `k 1 i1 .. ik o AND`
//!   (k = 3..16) and MAND batches `2k k a1..ak b1..bk o1..ok MAND`.
//! * **Old Bristol format**: header `<#gates> <#wires>` then `<n1> <n2> <n3>`
//!   (inputs of n1 and n2 bits, n2 = 0 for one input; one output of n3 bits).
//! * **huddle arithmetic format** for arithmetic and mixed circuits: a first
//!   line `ring K` (K = 8, 16, 32, 64), then Bristol Fashion where a value
//!   width `Nr` means N ring wires (a plain `N` stays N bit wires), plus the
//!   gates documented in `docs/circuit-format.md`.
//!
//! Reading streams the file token by token and checks every gate as it
//! arrives, so a 100 MB file parses in linear time and memory, and the first
//! problem is reported with its line number. Nothing is allocated from a
//! header count before the file has shown it is that large.

use crate::model::{Circuit, CircuitAssembler, Domain, ModelError, Op, ValueSpec, WireId};
use huddle_core::RingWidth;
use std::io::{self, BufRead, Write};

/// Which format to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// Arithmetic format if the file starts with `ring`; old Bristol if the
    /// second header line is `<n1> <n2> <n3>` with n1 != 2; else Bristol Fashion.
    #[default]
    Auto,
    Bristol,
    OldBristol,
}

/// Limits applied while reading untrusted files.
#[derive(Clone, Copy, Debug)]
pub struct ReadOptions {
    pub format: Format,
    /// The largest wire count accepted from a header.
    pub max_wires: u64,
    /// The file's length, if known: a header that declares more gate outputs
    /// than the file could possibly spell out is rejected before any allocation.
    pub file_len: Option<u64>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            format: Format::Auto,
            max_wires: 1 << 30,
            file_len: None,
        }
    }
}

/// A reading failure, with the 1-based line it was found on.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("line {line}: {cause}")]
    Syntax { line: usize, cause: String },
    #[error("line {line}: {source}")]
    Model { line: usize, source: ModelError },
    #[error("the file ends early: {expected} expected after line {line}")]
    Truncated { line: usize, expected: String },
    #[error("reading failed: {0}")]
    Io(#[from] io::Error),
}

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

/// What a file's header declares, checked against the limits and the file's
/// length but not yet against its gates.
struct Header {
    line: usize,
    ring: Option<RingWidth>,
    gates: u64,
    wires: u64,
    inputs: Vec<ValueSpec>,
    outputs: Vec<ValueSpec>,
}

/// Reads the optional `ring K` line, the counts and the value widths.
fn read_header<R: BufRead>(t: &mut Tokens<R>, options: &ReadOptions) -> Result<Header, ReadError> {
    if !t.advance()? {
        return Err(ReadError::Truncated {
            line: 0,
            expected: "the header".into(),
        });
    }
    let ring = if t.current() == b"ring" {
        let line = t.line();
        let bits = t.next_number("the ring width after `ring`")?;
        let ring = u32::try_from(bits)
            .ok()
            .and_then(RingWidth::from_bits)
            .ok_or_else(|| ReadError::Syntax {
                line,
                cause: format!("ring width {bits} is not supported (use 8, 16, 32 or 64)"),
            })?;
        t.expect_more("the gate count")?;
        Some(ring)
    } else {
        None
    };
    let line = t.line();
    let gates = t.number("the gate count")?;
    let wires = t.next_number("the wire count")?;
    if wires > options.max_wires {
        return Err(ReadError::Syntax {
            line,
            cause: format!(
                "the header declares {wires} wires, above the limit of {}",
                options.max_wires
            ),
        });
    }
    t.expect_more("the input counts")?;
    let second_line = t.line();
    let second = t.rest_of_line()?;
    let old = match options.format {
        Format::OldBristol => true,
        Format::Bristol => false,
        // Numerically, so "02" inputs is Bristol Fashion as "2" is.
        Format::Auto => {
            ring.is_none()
                && second.len() == 3
                && parse_u64(&second[0], second_line, "").map_or(true, |n| n != 2)
        }
    };
    let (inputs, outputs) = if old {
        if ring.is_some() {
            return Err(ReadError::Syntax {
                line: second_line,
                cause: "the old Bristol format has no rings".into(),
            });
        }
        old_bristol_values(&second, second_line)?
    } else {
        // Token-based from here: the line-2 lookahead first, then the stream.
        let mut lookahead = second.into_iter();
        let mut next = |what: &str| -> Result<(Vec<u8>, usize), ReadError> {
            if let Some(tok) = lookahead.next() {
                return Ok((tok, second_line));
            }
            t.expect_more(what)?;
            Ok((t.current().to_vec(), t.line()))
        };
        let ins = value_list(&mut next, "input", ring)?;
        let outs = value_list(&mut next, "output", ring)?;
        if lookahead.len() > 0 {
            return Err(ReadError::Syntax {
                line: second_line,
                cause: "unexpected tokens after the output widths".into(),
            });
        }
        (ins, outs)
    };
    let input_wires: u64 = inputs.iter().map(|v| u64::from(v.wires)).sum();
    if let Some(len) = options.file_len {
        // Each gate output is spelled with at least two bytes ("7 ").
        if wires.saturating_sub(input_wires) > len / 2 + 1 {
            return Err(ReadError::Syntax {
                line,
                cause: format!(
                    "the header declares {wires} wires, more than a {len}-byte file can write"
                ),
            });
        }
    }
    let output_wires: u64 = outputs.iter().map(|v| u64::from(v.wires)).sum();
    if output_wires > wires {
        return Err(ReadError::Syntax {
            line,
            cause: format!(
                "the outputs need {output_wires} wires, but the header declares {wires}"
            ),
        });
    }
    Ok(Header {
        line,
        ring,
        gates,
        wires,
        inputs,
        outputs,
    })
}

/// The old format's `<n1> <n2> <n3>`: one or two inputs, one output.
fn old_bristol_values(
    tokens: &[Vec<u8>],
    line: usize,
) -> Result<(Vec<ValueSpec>, Vec<ValueSpec>), ReadError> {
    let nums = tokens
        .iter()
        .map(|tok| parse_u64(tok, line, "an old-format header count"))
        .collect::<Result<Vec<_>, _>>()?;
    if nums.len() != 3 {
        return Err(ReadError::Syntax {
            line,
            cause: format!(
                "the old Bristol header needs 3 counts `<n1> <n2> <n3>`, found {}",
                nums.len()
            ),
        });
    }
    let mut ins = vec![width_spec(nums[0], Domain::Bit, "input", 0, line)?];
    if nums[1] > 0 {
        ins.push(width_spec(nums[1], Domain::Bit, "input", 1, line)?);
    }
    Ok((
        ins,
        vec![width_spec(nums[2], Domain::Bit, "output", 0, line)?],
    ))
}

/// Reads exactly `gates` gate lines into `asm`, each checked as it arrives.
fn read_gates<R: BufRead>(
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

fn width_spec(
    n: u64,
    domain: Domain,
    kind: &str,
    index: usize,
    line: usize,
) -> Result<ValueSpec, ReadError> {
    let wires = u32::try_from(n).map_err(|_| ReadError::Syntax {
        line,
        cause: format!("{kind} value {index} is {n} wires wide"),
    })?;
    if wires == 0 {
        return Err(ReadError::Syntax {
            line,
            cause: format!("{kind} value {index} has width 0"),
        });
    }
    Ok(ValueSpec {
        name: format!("{kind}{index}"),
        domain,
        wires,
    })
}

/// Parses `<count> <width> ...` where a width is `N` (bits) or `Nr` (ring wires).
fn value_list(
    next: &mut impl FnMut(&str) -> Result<(Vec<u8>, usize), ReadError>,
    kind: &str,
    ring: Option<RingWidth>,
) -> Result<Vec<ValueSpec>, ReadError> {
    let (tok, line) = next(&format!("the number of {kind} values"))?;
    let count = parse_u64(&tok, line, &format!("the number of {kind} values"))?;
    // Each width takes a token, so a hostile count fails at end of file, not at allocation.
    let mut specs = Vec::with_capacity(count.min(64) as usize);
    for i in 0..count as usize {
        let what = format!("the width of {kind} value {i}");
        let (tok, line) = next(&what)?;
        let (digits, domain) = match tok.strip_suffix(b"r") {
            Some(d) if ring.is_some() => (d, Domain::Ring),
            Some(_) => {
                return Err(ReadError::Syntax {
                    line,
                    cause: format!(
                        "{kind} width `{}` is a ring width, but the file declares no ring",
                        String::from_utf8_lossy(&tok)
                    ),
                })
            }
            None => (tok.as_slice(), Domain::Bit),
        };
        specs.push(width_spec(
            parse_u64(digits, line, &what)?,
            domain,
            kind,
            i,
            line,
        )?);
    }
    Ok(specs)
}

fn parse_u64(tok: &[u8], line: usize, what: &str) -> Result<u64, ReadError> {
    let bad = || ReadError::Syntax {
        line,
        cause: format!("expected {what}, found `{}`", String::from_utf8_lossy(tok)),
    };
    if tok.is_empty() {
        return Err(bad());
    }
    let mut v: u64 = 0;
    let mut overflow = false;
    for &d in tok {
        if !d.is_ascii_digit() {
            return Err(bad());
        }
        match v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d - b'0')))
        {
            Some(next) => v = next,
            None => overflow = true,
        }
    }
    if overflow {
        return Err(ReadError::Syntax {
            line,
            cause: format!("{what} `{}` is too large", String::from_utf8_lossy(tok)),
        });
    }
    Ok(v)
}

/// Whitespace-separated tokens with line numbers, read one line at a time.
struct Tokens<R> {
    reader: R,
    /// The current line.
    buf: Vec<u8>,
    /// Where scanning for the next token resumes in `buf`.
    pos: usize,
    /// The current token is `buf[start..pos]`.
    start: usize,
    line: usize,
    /// Bytes read so far: what the file has shown, against which its claims are checked.
    bytes: u64,
}

impl<R: BufRead> Tokens<R> {
    fn new(reader: R) -> Self {
        Tokens {
            reader,
            buf: Vec::new(),
            pos: 0,
            start: 0,
            line: 0,
            bytes: 0,
        }
    }

    fn line(&self) -> usize {
        self.line
    }

    fn current(&self) -> &[u8] {
        &self.buf[self.start..self.pos]
    }

    /// Moves to the next token, reading lines as needed; false at end of input.
    fn advance(&mut self) -> io::Result<bool> {
        loop {
            while self.pos < self.buf.len() && self.buf[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if self.pos < self.buf.len() {
                self.start = self.pos;
                while self.pos < self.buf.len() && !self.buf[self.pos].is_ascii_whitespace() {
                    self.pos += 1;
                }
                return Ok(true);
            }
            self.buf.clear();
            self.pos = 0;
            self.start = 0;
            let read = self.reader.read_until(b'\n', &mut self.buf)?;
            if read == 0 {
                return Ok(false);
            }
            self.bytes += read as u64;
            self.line += 1;
        }
    }

    fn expect_more(&mut self, what: &str) -> Result<(), ReadError> {
        if self.advance()? {
            Ok(())
        } else {
            Err(ReadError::Truncated {
                line: self.line,
                expected: what.into(),
            })
        }
    }

    /// The current token as a number.
    fn number(&self, what: &str) -> Result<u64, ReadError> {
        parse_u64(self.current(), self.line, what)
    }

    fn next_number(&mut self, what: &str) -> Result<u64, ReadError> {
        if let Some(v) = self.next_number_on_line() {
            return Ok(v);
        }
        self.expect_more(what)?;
        self.number(what)
    }

    /// The common case of [`Self::next_number`] in one pass: a number of at
    /// most 19 digits (no overflow possible) later on the current line.
    /// Anything else (a line break, a stray byte, a longer number) is left
    /// to the general path, which reports it.
    fn next_number_on_line(&mut self) -> Option<u64> {
        let buf = &self.buf;
        let mut p = self.pos;
        while p < buf.len() && (buf[p] == b' ' || buf[p] == b'\t') {
            p += 1;
        }
        let start = p;
        let mut v: u64 = 0;
        while p < buf.len() && buf[p].is_ascii_digit() && p - start < 19 {
            v = v * 10 + u64::from(buf[p] - b'0');
            p += 1;
        }
        let ends = p == buf.len() || buf[p].is_ascii_whitespace();
        if p == start || !ends {
            return None;
        }
        self.start = start;
        self.pos = p;
        Some(v)
    }

    /// The current token and the rest of its line, consumed; empty at end of input.
    fn rest_of_line(&mut self) -> io::Result<Vec<Vec<u8>>> {
        if self.start == self.pos {
            return Ok(Vec::new());
        }
        let mut out = vec![self.current().to_vec()];
        out.extend(
            self.buf[self.pos..]
                .split(u8::is_ascii_whitespace)
                .filter(|t| !t.is_empty())
                .map(<[u8]>::to_vec),
        );
        self.pos = self.buf.len();
        self.start = self.pos;
        Ok(out)
    }
}

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
    #[error("the old Bristol format has {0}")]
    Unsupported(String),
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
