//! Input and output files (`--inputs FILE`, `--outputs FILE`): one
//! instance per line, fields separated by commas and/or spaces (CSV works).
//! A Boolean input value is one field; a ring value of n elements is n
//! fields, one per element. Fields are hex (the `--input` convention: as
//! many digits as the value's width) or decimal integers (`--format dec`;
//! negative numbers as two's complement of the field's width). Every error
//! names the line and the column (field) before anything is sent.

use clap::ValueEnum;
use huddle_circuit::{hex, BitMatrix, Circuit, Domain};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DataFormat {
    /// Hexadecimal, as many digits as the field's width.
    Hex,
    /// Decimal integers; a minus sign for two's complement.
    Dec,
}

/// How fields are written and read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    pub format: DataFormat,
    /// Ring elements as fixed-point decimals with this many fractional
    /// bits (x·2^f rounded; `--frac`), signed.
    pub frac: Option<u8>,
    /// Decimal output of values with the top bit set as negative numbers.
    pub signed: bool,
}

/// One field of a line: `bits` wide, at bit `at` of input value `value`.
#[derive(Clone, Copy, Debug)]
struct Field {
    value: usize,
    at: usize,
    bits: usize,
    ring: bool,
}

/// The fields of `values` (input or output values of `circuit`), in order.
fn fields(circuit: &Circuit, values: &[(usize, Domain, usize)]) -> Vec<Field> {
    let k = circuit.ring().map_or(0, |r| r.bits() as usize);
    let mut out = Vec::new();
    for (slot, &(_, domain, bits)) in values.iter().enumerate() {
        match domain {
            Domain::Bit => out.push(Field {
                value: slot,
                at: 0,
                bits,
                ring: false,
            }),
            Domain::Ring => out.extend((0..bits / k.max(1)).map(|j| Field {
                value: slot,
                at: j * k,
                bits: k,
                ring: true,
            })),
        }
    }
    out
}

/// Refuses `--frac` as wide as the ring (or wider).
fn check_frac(style: Style, circuit: &Circuit) -> Result<(), String> {
    match (style.frac, circuit.ring()) {
        (Some(f), Some(r)) if f == 0 || u32::from(f) >= r.bits() => Err(format!(
            "--frac must be 1 to {} for {r}, not {f}",
            r.bits() - 1
        )),
        _ => Ok(()),
    }
}

/// Parses one field (fixed point for ring elements where `style` says).
fn parse_field(
    text: &str,
    field: &Field,
    style: Style,
    ring: Option<huddle_core::RingWidth>,
) -> Result<Vec<u64>, String> {
    match (style.frac, ring) {
        (Some(f), Some(r)) if field.ring => {
            let x: f64 = text
                .parse()
                .map_err(|_| format!("`{text}` is not a decimal number"))?;
            let limit = 2f64.powi(r.bits() as i32 - 1 - i32::from(f));
            if !x.is_finite() || x.abs() >= limit {
                return Err(format!(
                    "{text} is outside the fixed-point range of {r} with {f} fractional bits (±{limit})"
                ));
            }
            Ok(vec![huddle_circuit::builder::to_fixed(x, f, r), 0])
        }
        _ => parse(text, field.bits, style.format),
    }
}

/// Parses one field of `bits` bits into words.
fn parse(text: &str, bits: usize, format: DataFormat) -> Result<Vec<u64>, String> {
    match format {
        DataFormat::Hex => hex::decode(text, bits).map_err(|e| e.to_string()),
        DataFormat::Dec => {
            if bits > 128 {
                return Err(format!(
                    "a {bits}-bit value is too wide for decimal (128 bits at most): use --format hex"
                ));
            }
            let (negative, digits) = match text.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, text),
            };
            let magnitude: u128 = digits
                .parse()
                .map_err(|_| format!("`{text}` is not a decimal integer"))?;
            let limit = if bits == 128 {
                u128::MAX
            } else {
                (1u128 << bits) - 1
            };
            let value = if negative {
                let least = 1u128 << (bits - 1).min(127);
                if magnitude > least {
                    return Err(format!("{text} is below the {bits}-bit range"));
                }
                magnitude.wrapping_neg() & limit
            } else {
                if magnitude > limit {
                    return Err(format!("{text} does not fit {bits} bits"));
                }
                magnitude
            };
            Ok(vec![value as u64, (value >> 64) as u64])
        }
    }
}

/// Formats one field as `style` says.
fn style_field(
    words: &[u64],
    field: &Field,
    style: Style,
    ring: Option<huddle_core::RingWidth>,
) -> String {
    let low = words.first().copied().unwrap_or(0);
    if let (Some(f), Some(r), true) = (style.frac, ring, field.ring) {
        return huddle_circuit::builder::from_fixed(low, f, r).to_string();
    }
    let bits = field.bits;
    let negative = (1..=64).contains(&bits) && (low >> (bits - 1)) & 1 == 1;
    if style.format == DataFormat::Dec && style.signed && negative {
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        return format!("-{}", low.wrapping_neg() & mask);
    }
    format_field(words, bits, style.format)
}

/// Formats one field.
fn format_field(words: &[u64], bits: usize, format: DataFormat) -> String {
    match format {
        DataFormat::Hex => hex::encode(words, bits),
        DataFormat::Dec => {
            let low = words.first().copied().unwrap_or(0) as u128;
            let high = words.get(1).copied().unwrap_or(0) as u128;
            let v = low | (high << 64);
            let mask = if bits >= 128 {
                u128::MAX
            } else {
                (1u128 << bits) - 1
            };
            (v & mask).to_string()
        }
    }
}

/// Reads the input values `values` (indices into the circuit's inputs) of
/// every instance from `path` (`-`: stdin): one matrix per value, one row
/// per line.
pub fn read_inputs(
    path: &Path,
    circuit: &Circuit,
    values: &[usize],
    style: Style,
) -> Result<Vec<BitMatrix>, String> {
    check_frac(style, circuit)?;
    let reader: Box<dyn Read> = if path == Path::new("-") {
        Box::new(std::io::stdin())
    } else {
        Box::new(
            std::fs::File::open(path).map_err(|e| format!("--inputs {}: {e}", path.display()))?,
        )
    };
    let specs: Vec<(usize, Domain, usize)> = values
        .iter()
        .map(|&i| (i, circuit.inputs()[i].domain, circuit.input_bits(i)))
        .collect();
    let fields = fields(circuit, &specs);
    let name = path.display();
    // Rows as words, value by value; grown line by line (no text kept).
    let mut rows: Vec<Vec<u64>> = vec![Vec::new(); specs.len()];
    let row_words: Vec<usize> = specs.iter().map(|s| s.2.div_ceil(64)).collect();
    let mut lines = 0usize;
    for (n, line) in BufReader::new(reader).lines().enumerate() {
        let line = line.map_err(|e| format!("--inputs {name} line {}: {e}", n + 1))?;
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let got: Vec<&str> = text
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|f| !f.is_empty())
            .collect();
        if got.len() != fields.len() {
            return Err(format!(
                "--inputs {name} line {}: {} fields, but {} are expected (one per Boolean \
                 value, one per element of a ring value)",
                n + 1,
                got.len(),
                fields.len()
            ));
        }
        for (v, row) in rows.iter_mut().enumerate() {
            row.resize(row.len() + row_words[v], 0);
        }
        for (c, (field, text)) in fields.iter().zip(&got).enumerate() {
            let words = parse_field(text, field, style, circuit.ring())
                .map_err(|e| format!("--inputs {name} line {} column {}: {e}", n + 1, c + 1))?;
            let w = row_words[field.value];
            let row = &mut rows[field.value][lines * w..][..w];
            for b in 0..field.bits {
                let bit = (words[b / 64] >> (b % 64)) & 1;
                let at = field.at + b;
                row[at / 64] |= bit << (at % 64);
            }
        }
        lines += 1;
    }
    if lines == 0 {
        return Err(format!("--inputs {name}: no instances (one per line)"));
    }
    Ok(specs
        .iter()
        .zip(rows)
        .map(|(&(_, _, bits), words)| {
            let mut m = BitMatrix::zeros(lines, bits);
            let w = bits.div_ceil(64);
            for r in 0..lines {
                m.row_mut(r).copy_from_slice(&words[r * w..][..w]);
            }
            m
        })
        .collect())
}

/// Writes every instance's outputs to `path` (`-`: stdout), one line each.
pub fn write_outputs(
    path: &Path,
    circuit: &Circuit,
    outputs: &[BitMatrix],
    style: Style,
) -> Result<(), String> {
    check_frac(style, circuit)?;
    let specs: Vec<(usize, Domain, usize)> = (0..circuit.outputs().len())
        .map(|o| (o, circuit.outputs()[o].domain, circuit.output_bits(o)))
        .collect();
    let fields = fields(circuit, &specs);
    let name = path.display();
    let fail = |e: std::io::Error| format!("--outputs {name}: {e}");
    let mut out: Box<dyn Write> = if path == Path::new("-") {
        Box::new(std::io::stdout().lock())
    } else {
        Box::new(std::fs::File::create(path).map_err(fail)?)
    };
    let mut out = std::io::BufWriter::new(&mut out);
    let instances = outputs.first().map_or(0, |m| m.rows());
    let mut words = Vec::new();
    for r in 0..instances {
        for (i, f) in fields.iter().enumerate() {
            // The field's bits from the row, from bit 0 (at least two words).
            let row = outputs[f.value].row(r);
            words.clear();
            words.resize(f.bits.div_ceil(64).max(2), 0);
            for b in 0..f.bits {
                let at = f.at + b;
                words[b / 64] |= ((row[at / 64] >> (at % 64)) & 1) << (b % 64);
            }
            // Decimal stops at 128 bits; wider Boolean values stay hex.
            let text = if f.bits > 128 {
                hex::encode(&words, f.bits)
            } else {
                style_field(&words, f, style, circuit.ring())
            };
            let sep = if i == 0 { "" } else { "," };
            write!(out, "{sep}{text}").map_err(fail)?;
        }
        writeln!(out).map_err(fail)?;
    }
    out.flush().map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn decimal_and_hex_fields_round_trip(v in any::<u128>(), bits in 1usize..=128) {
            let mask = if bits == 128 { u128::MAX } else { (1u128 << bits) - 1 };
            let v = v & mask;
            for format in [DataFormat::Dec, DataFormat::Hex] {
                let text = format_field(&[v as u64, (v >> 64) as u64], bits, format);
                let words = parse(&text, bits, format).expect("parses what it wrote");
                let back = words[0] as u128 | (words.get(1).copied().unwrap_or(0) as u128) << 64;
                prop_assert_eq!(back, v);
            }
        }

        #[test]
        fn negative_decimals_are_twos_complement(m in 1u128..=(1 << 15), bits in 16usize..=64) {
            let words = parse(&format!("-{m}"), bits, DataFormat::Dec).expect("in range");
            let v = words[0] as u128 | (words[1] as u128) << 64;
            prop_assert_eq!(v, (1u128 << bits) - m);
        }
    }

    #[test]
    fn wide_boolean_values_round_trip_through_files() {
        // 200 bits: hex whatever --format says (decimal stops at 128).
        let mut b = huddle_circuit::builder::Builder::boolean(2);
        let x = b.input("x", 200);
        b.output("y", x);
        let c = b.finish();
        let dir = tempfile::tempdir().expect("temp dir");
        let (input, output) = (dir.path().join("in.txt"), dir.path().join("out.txt"));
        let value = format!("{}{}", "1", "0".repeat(49));
        std::fs::write(&input, format!("{value}\n{}\n", "f".repeat(50))).expect("write");
        for format in [DataFormat::Hex, DataFormat::Dec] {
            let style = Style {
                format: DataFormat::Hex,
                frac: None,
                signed: false,
            };
            let m = read_inputs(&input, &c, &[0], style).expect("reads");
            let out_style = Style { format, ..style };
            write_outputs(&output, &c, &m, out_style).expect("writes");
            let text = std::fs::read_to_string(&output).expect("read");
            assert_eq!(text, format!("{value}\n{}\n", "f".repeat(50)));
        }
    }

    #[test]
    fn out_of_range_and_malformed_fields_are_refused() {
        assert!(parse("256", 8, DataFormat::Dec)
            .expect_err("refused")
            .contains("does not fit 8 bits"));
        assert!(parse("-129", 8, DataFormat::Dec)
            .expect_err("refused")
            .contains("below the 8-bit range"));
        assert!(parse("12a", 8, DataFormat::Dec)
            .expect_err("refused")
            .contains("not a decimal"));
        assert!(parse("1", 200, DataFormat::Dec)
            .expect_err("refused")
            .contains("--format hex"));
        assert_eq!(
            parse("-128", 8, DataFormat::Dec).expect("in range")[0],
            0x80
        );
    }
}
