//! The header of a circuit file: the optional `ring K` line, the gate and
//! wire counts, and the value widths in Bristol Fashion (`N` bits, `Nr` ring
//! wires) or the old format's `<n1> <n2> <n3>`, checked against the limits
//! and the file's length before any gate is read ([`read_header`]).

use super::error::ReadError;
use super::options::{Format, ReadOptions};
use super::tokens::{parse_u64, Tokens};
use crate::model::{Domain, ValueSpec};
use huddle_core::RingWidth;
use std::io::BufRead;

/// What a file's header declares, checked against the limits and the file's
/// length but not yet against its gates.
pub(super) struct Header {
    pub(super) line: usize,
    pub(super) ring: Option<RingWidth>,
    pub(super) gates: u64,
    pub(super) wires: u64,
    pub(super) inputs: Vec<ValueSpec>,
    pub(super) outputs: Vec<ValueSpec>,
}

/// Reads the optional `ring K` line, the counts and the value widths.
pub(super) fn read_header<R: BufRead>(
    t: &mut Tokens<R>,
    options: &ReadOptions,
) -> Result<Header, ReadError> {
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
