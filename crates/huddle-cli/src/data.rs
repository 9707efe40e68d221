//! Input and output files (`--inputs FILE`, `--outputs FILE`): one
//! instance per line, fields separated by commas and/or spaces (CSV works).
//! A Boolean input value is one field; a ring value of n elements is n
//! fields, one per element. Fields are hex (the `--input` convention: as
//! many digits as the value's width) or decimal integers (`--format dec`;
//! negative numbers as two's complement of the field's width). Every error
//! names the line and the column (field) before anything is sent.

use clap::ValueEnum;
use huddle_circuit::{hex, BitMatrix, Circuit, Domain};
use std::io::{BufRead, BufReader, Write};
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
    /// A header line: skipped in --inputs, the output values' names in
    /// --outputs.
    pub header: bool,
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

/// Parses one field of `bits` bits into words (at least two).
fn parse(text: &str, bits: usize, format: DataFormat) -> Result<Vec<u64>, String> {
    match format {
        DataFormat::Hex => hex::decode(text, bits).map_err(|e| e.to_string()),
        DataFormat::Dec => parse_decimal(text, bits),
    }
}

/// The number of significant bits of a little-endian word string.
fn bit_length(words: &[u64]) -> usize {
    words
        .iter()
        .rposition(|&w| w != 0)
        .map_or(0, |i| i * 64 + 64 - words[i].leading_zeros() as usize)
}

/// Two's complement of `words` within `bits` bits, in place.
fn negate(words: &mut [u64], bits: usize) {
    let mut carry = 1u64;
    for w in words.iter_mut() {
        let (v, c) = (!*w).overflowing_add(carry);
        *w = v;
        carry = u64::from(c);
    }
    mask_to(words, bits);
}

/// Clears every bit from `bits` on.
fn mask_to(words: &mut [u64], bits: usize) {
    for (i, w) in words.iter_mut().enumerate() {
        let from = i * 64;
        if from >= bits {
            *w = 0;
        } else if bits - from < 64 {
            *w &= (1u64 << (bits - from)) - 1;
        }
    }
}

/// A decimal integer of any width; a minus sign for two's complement.
fn parse_decimal(text: &str, bits: usize) -> Result<Vec<u64>, String> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("`{text}` is not a decimal integer"));
    }
    let mut words = vec![0u64; bits.div_ceil(64).max(2) + 1];
    for d in digits.bytes() {
        let mut carry = u128::from(d - b'0');
        for w in words.iter_mut() {
            let v = u128::from(*w) * 10 + carry;
            *w = v as u64;
            carry = v >> 64;
        }
        // Too wide already: stop before the number grows without bound.
        if carry != 0 || bit_length(&words) > bits + 1 {
            return Err(if negative {
                format!("{text} is below the {bits}-bit range")
            } else {
                format!("{text} does not fit {bits} bits")
            });
        }
    }
    let length = bit_length(&words);
    if negative {
        // At most 2^(bits-1) in magnitude.
        let lowest = length == bits && words.iter().map(|w| w.count_ones()).sum::<u32>() == 1;
        if length >= bits && !lowest {
            return Err(format!("{text} is below the {bits}-bit range"));
        }
        negate(&mut words, bits);
    } else if length > bits {
        return Err(format!("{text} does not fit {bits} bits"));
    }
    words.pop();
    Ok(words)
}

/// `words` (masked to `bits`) as a decimal integer.
fn format_decimal(words: &[u64], bits: usize) -> String {
    const CHUNK: u128 = 10_000_000_000_000_000_000; // 10^19 < 2^64
    let mut w: Vec<u64> = words.iter().copied().take(bits.div_ceil(64)).collect();
    mask_to(&mut w, bits);
    let mut chunks = Vec::new();
    loop {
        let mut rem = 0u128;
        for x in w.iter_mut().rev() {
            let cur = (rem << 64) | u128::from(*x);
            *x = (cur / CHUNK) as u64;
            rem = cur % CHUNK;
        }
        chunks.push(rem as u64);
        if w.iter().all(|&x| x == 0) {
            break;
        }
    }
    let mut out = String::new();
    for (i, c) in chunks.iter().rev().enumerate() {
        if i == 0 {
            out.push_str(&c.to_string());
        } else {
            out.push_str(&format!("{c:019}"));
        }
    }
    out
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
    let top = bits
        .checked_sub(1)
        .and_then(|t| words.get(t / 64).map(|w| (w >> (t % 64)) & 1 == 1));
    if style.format == DataFormat::Dec && style.signed && top == Some(true) {
        let mut magnitude = words.to_vec();
        negate(&mut magnitude, bits);
        return format!("-{}", format_decimal(&magnitude, bits));
    }
    format_field(words, bits, style.format)
}

/// Formats one field.
fn format_field(words: &[u64], bits: usize, format: DataFormat) -> String {
    match format {
        DataFormat::Hex => hex::encode(words, bits),
        DataFormat::Dec => format_decimal(words, bits),
    }
}

/// Rows of one input value collected line by line in fixed-size chunks,
/// so that a long file grows the store without doubling reallocations.
struct RowStore {
    words_per_row: usize,
    rows: usize,
    chunks: Vec<Vec<u64>>,
}

/// Rows per chunk of a [`RowStore`].
const CHUNK_ROWS: usize = 1 << 14;

impl RowStore {
    fn new(bits: usize) -> Self {
        RowStore {
            words_per_row: bits.div_ceil(64),
            rows: 0,
            chunks: Vec::new(),
        }
    }

    /// A new zero row.
    fn push(&mut self) -> &mut [u64] {
        let w = self.words_per_row;
        if self.rows.is_multiple_of(CHUNK_ROWS) {
            self.chunks.push(Vec::with_capacity(CHUNK_ROWS * w));
        }
        self.rows += 1;
        let chunk = self.chunks.last_mut().expect("a chunk was just pushed");
        let at = chunk.len();
        chunk.resize(at + w, 0);
        &mut chunk[at..]
    }

    /// The matrix; each chunk is freed once copied.
    fn into_matrix(self, bits: usize) -> BitMatrix {
        let mut data = Vec::with_capacity(self.rows * self.words_per_row);
        for chunk in self.chunks {
            data.extend_from_slice(&chunk);
        }
        BitMatrix::from_row_words(self.rows, bits, data).expect("every row has its words")
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
    read_file(
        "--inputs",
        path,
        circuit,
        &input_specs(circuit, values),
        style,
    )
}

/// Every instance's expected outputs from `path` (`--expect`), in the form
/// --outputs writes them: one matrix per output value, one row per line.
pub fn read_expected(
    path: &Path,
    circuit: &Circuit,
    style: Style,
) -> Result<Vec<BitMatrix>, String> {
    read_file("--expect", path, circuit, &output_specs(circuit), style)
}

/// Input values `values` of `circuit` as (index, domain, bits).
fn input_specs(circuit: &Circuit, values: &[usize]) -> Vec<(usize, Domain, usize)> {
    values
        .iter()
        .map(|&i| (i, circuit.inputs()[i].domain, circuit.input_bits(i)))
        .collect()
}

/// The output values of `circuit` as (index, domain, bits).
fn output_specs(circuit: &Circuit) -> Vec<(usize, Domain, usize)> {
    (0..circuit.outputs().len())
        .map(|o| (o, circuit.outputs()[o].domain, circuit.output_bits(o)))
        .collect()
}

/// The values `specs` of every line of `path` (`-`: stdin); `flag` names
/// the file in errors.
fn read_file(
    flag: &str,
    path: &Path,
    circuit: &Circuit,
    specs: &[(usize, Domain, usize)],
    style: Style,
) -> Result<Vec<BitMatrix>, String> {
    let name = format!("{flag} {}", path.display());
    if path == Path::new("-") {
        return read_lines(std::io::stdin().lock(), &name, circuit, specs, style);
    }
    let file = std::fs::File::open(path).map_err(|e| format!("{name}: {e}"))?;
    read_lines(
        BufReader::with_capacity(1 << 16, file),
        &name,
        circuit,
        specs,
        style,
    )
}

/// [`read_inputs`] from any reader, `name` in the errors.
#[cfg(test)]
fn read_input_lines(
    reader: impl BufRead,
    name: &str,
    circuit: &Circuit,
    values: &[usize],
    style: Style,
) -> Result<Vec<BitMatrix>, String> {
    read_lines(reader, name, circuit, &input_specs(circuit, values), style)
}

/// The values `specs` (input or output values of `circuit`) of every line
/// of `reader`, `name` in the errors. One line is held at a time; values
/// go straight into their rows.
fn read_lines(
    mut reader: impl BufRead,
    name: &str,
    circuit: &Circuit,
    specs: &[(usize, Domain, usize)],
    style: Style,
) -> Result<Vec<BitMatrix>, String> {
    check_frac(style, circuit)?;
    let fields = fields(circuit, specs);
    let mut stores: Vec<RowStore> = specs.iter().map(|s| RowStore::new(s.2)).collect();
    let mut line = Vec::new();
    let mut number = 0usize;
    let mut header_skipped = !style.header;
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("{name} line {}: {e}", number + 1))?;
        if read == 0 {
            break;
        }
        number += 1;
        let text = std::str::from_utf8(&line)
            .map_err(|_| format!("{name} line {number}: not UTF-8 text"))?
            .trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        if !header_skipped {
            header_skipped = true;
            continue;
        }
        let count = split_fields(text).count();
        if count != fields.len() {
            return Err(format!(
                "{name} line {number}: {count} fields, but {} are expected (one per Boolean \
                 value, one per element of a ring value)",
                fields.len()
            ));
        }
        // Fields come value by value (see `fields`): one new row per value.
        let mut columns = fields.iter().zip(split_fields(text)).enumerate().peekable();
        for (v, store) in stores.iter_mut().enumerate() {
            let row = store.push();
            while let Some((c, (field, text))) = columns.next_if(|(_, (f, _))| f.value == v) {
                let words = parse_field(text, field, style, circuit.ring())
                    .map_err(|e| format!("{name} line {number} column {}: {e}", c + 1))?;
                for b in 0..field.bits {
                    let bit = (words[b / 64] >> (b % 64)) & 1;
                    let at = field.at + b;
                    row[at / 64] |= bit << (at % 64);
                }
            }
        }
    }
    if stores.first().is_some_and(|s| s.rows == 0) {
        return Err(format!("{name}: no instances (one per line)"));
    }
    Ok(stores
        .into_iter()
        .zip(specs)
        .map(|(store, &(_, _, bits))| store.into_matrix(bits))
        .collect())
}

/// The fields of a line: separated by commas and/or white space.
fn split_fields(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|f| !f.is_empty())
}

/// The header line of --outputs: each output value's name, a ring value's
/// elements as name[j].
fn header(circuit: &Circuit, fields: &[Field]) -> String {
    let names: Vec<String> = fields
        .iter()
        .map(|f| {
            let name = &circuit.outputs()[f.value].name;
            let name = if name.is_empty() {
                format!("output{}", f.value)
            } else {
                name.clone()
            };
            if f.ring && circuit.outputs()[f.value].wires.len() > 1 {
                format!("{name}[{}]", f.at / f.bits)
            } else {
                name
            }
        })
        .collect();
    names.join(",")
}

/// Writes every instance's outputs to `path` (`-`: stdout), one line each.
pub fn write_outputs(
    path: &Path,
    circuit: &Circuit,
    outputs: &[BitMatrix],
    style: Style,
) -> Result<(), String> {
    check_frac(style, circuit)?;
    let fields = fields(circuit, &output_specs(circuit));
    let name = path.display();
    let fail = |e: std::io::Error| format!("--outputs {name}: {e}");
    let mut out: Box<dyn Write> = if path == Path::new("-") {
        Box::new(std::io::stdout().lock())
    } else {
        Box::new(std::fs::File::create(path).map_err(fail)?)
    };
    let mut out = std::io::BufWriter::new(&mut out);
    if style.header {
        writeln!(out, "{}", header(circuit, &fields)).map_err(fail)?;
    }
    let instances = outputs.first().map_or(0, |m| m.rows());
    let mut words = Vec::new();
    for r in 0..instances {
        for (i, f) in fields.iter().enumerate() {
            let text = field_text(&outputs[f.value], r, f, &mut words, style, circuit);
            let sep = if i == 0 { "" } else { "," };
            write!(out, "{sep}{text}").map_err(fail)?;
        }
        writeln!(out).map_err(fail)?;
    }
    out.flush().map_err(fail)
}

/// Field `f` of row `r` of `m`, formatted as `style` says (`words`: scratch).
fn field_text(
    m: &BitMatrix,
    r: usize,
    f: &Field,
    words: &mut Vec<u64>,
    style: Style,
    circuit: &Circuit,
) -> String {
    // The field's bits from the row, from bit 0 (at least two words).
    let row = m.row(r);
    words.clear();
    words.resize(f.bits.div_ceil(64).max(2), 0);
    for b in 0..f.bits {
        let at = f.at + b;
        words[b / 64] |= ((row[at / 64] >> (at % 64)) & 1) << (b % 64);
    }
    style_field(words, f, style, circuit.ring())
}

/// Compares outputs with `--expect`'s: one line for every instance, or one
/// for instance 0. The first difference, named by instance, column and
/// both values; or a wrong line count.
pub fn check_expected(
    circuit: &Circuit,
    got: &[BitMatrix],
    want: &[BitMatrix],
    style: Style,
) -> Result<(), String> {
    let (instances, lines) = (
        got.first().map_or(0, BitMatrix::rows),
        want.first().map_or(0, BitMatrix::rows),
    );
    if lines != instances && lines != 1 {
        return Err(format!(
            "--expect has {lines} lines for {instances} instances: give one line per instance, \
             or one for instance 0"
        ));
    }
    let fields = fields(circuit, &output_specs(circuit));
    let mut words = Vec::new();
    for r in 0..lines {
        for (c, f) in fields.iter().enumerate() {
            let (a, b) = (
                field_text(&got[f.value], r, f, &mut words, style, circuit),
                field_text(&want[f.value], r, f, &mut words, style, circuit),
            );
            if a != b {
                return Err(format!(
                    "--check: instance {r} column {} (output value {}) is {a}, --expect says {b}",
                    c + 1,
                    f.value
                ));
            }
        }
    }
    Ok(())
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
            let dec = format_field(&[v as u64, (v >> 64) as u64], bits, DataFormat::Dec);
            prop_assert_eq!(&dec, &v.to_string());
            for format in [DataFormat::Dec, DataFormat::Hex] {
                let text = format_field(&[v as u64, (v >> 64) as u64], bits, format);
                let words = parse(&text, bits, format).expect("parses what it wrote");
                let back = words[0] as u128 | (words.get(1).copied().unwrap_or(0) as u128) << 64;
                prop_assert_eq!(back, v);
            }
        }

        /// Wider than 128 bits: decimal against hex (an independent
        /// conversion), both ways, signed too.
        #[test]
        fn wide_decimals_round_trip(words in proptest::collection::vec(any::<u64>(), 1..6), cut in 0usize..64) {
            let bits = (words.len() * 64 - cut).max(1);
            let mut v = words.clone();
            mask_to(&mut v, bits);
            let text = format_decimal(&v, bits);
            let back = parse_decimal(&text, bits).expect("parses what it wrote");
            prop_assert_eq!(&back[..v.len()], &v[..]);
            // Decimal digits times 10 is a shift-and-add; compare with hex.
            let hex_back = parse(&hex::encode(&v, bits), bits, DataFormat::Hex).expect("hex");
            prop_assert_eq!(&hex_back[..v.len()], &back[..v.len()]);
            let field = Field { value: 0, at: 0, bits, ring: false };
            let style = Style { format: DataFormat::Dec, frac: None, signed: true, header: false };
            let signed = style_field(&v, &field, style, None);
            let again = parse_decimal(&signed, bits).expect("in range");
            prop_assert_eq!(&again[..v.len()], &v[..]);
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
        // 200 bits, hex in; hex and decimal (2^196 and 2^200 - 1) out.
        let mut b = huddle_circuit::builder::Builder::boolean(2);
        let x = b.input("x", 200);
        b.output("y", x);
        let c = b.finish();
        let dir = tempfile::tempdir().expect("temp dir");
        let (input, output) = (dir.path().join("in.txt"), dir.path().join("out.txt"));
        let value = format!("{}{}", "1", "0".repeat(49));
        std::fs::write(&input, format!("{value}\n{}\n", "f".repeat(50))).expect("write");
        let decimal = "100433627766186892221372630771322662657637687111424552206336\n\
                       1606938044258990275541962092341162602522202993782792835301375\n";
        for (format, want) in [
            (DataFormat::Hex, format!("{value}\n{}\n", "f".repeat(50))),
            (DataFormat::Dec, decimal.to_string()),
        ] {
            let style = Style {
                format: DataFormat::Hex,
                frac: None,
                signed: false,
                header: false,
            };
            let m = read_inputs(&input, &c, &[0], style).expect("reads");
            let out_style = Style { format, ..style };
            write_outputs(&output, &c, &m, out_style).expect("writes");
            let text = std::fs::read_to_string(&output).expect("read");
            assert_eq!(text, want);
            // And back in as decimal.
            if format == DataFormat::Dec {
                let again = read_inputs(&output, &c, &[0], out_style).expect("reads");
                assert_eq!(again, m);
            }
        }
    }

    /// 10^7 lines stream through the reader: the reading thread never holds
    /// more than the parsed rows twice over (the chunks and the matrix they
    /// become) and a line, while the text is several times larger.
    #[test]
    fn ten_million_lines_stream_without_holding_the_text() {
        let mut b = huddle_circuit::builder::Builder::arithmetic(huddle_core::RingWidth::W8, 2);
        let x = b.ring_input("x", 8);
        b.ring_output("y", x);
        let c = b.finish();
        const LINES: usize = 10_000_000;
        const LINE: &[u8] = b"-128,127,-1,0,5,100,-77,64\n";
        /// The text, made as it is read: no copy of it anywhere.
        struct Lines(usize, usize);
        impl std::io::Read for Lines {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let mut n = 0;
                while n < buf.len() && self.0 < LINES {
                    let take = (LINE.len() - self.1).min(buf.len() - n);
                    buf[n..n + take].copy_from_slice(&LINE[self.1..self.1 + take]);
                    (n, self.1) = (n + take, self.1 + take);
                    if self.1 == LINE.len() {
                        (self.0, self.1) = (self.0 + 1, 0);
                    }
                }
                Ok(n)
            }
        }
        let style = Style {
            format: DataFormat::Dec,
            frac: None,
            signed: false,
            header: false,
        };
        crate::counting_alloc::reset_peak();
        let before = crate::counting_alloc::live();
        let m =
            read_input_lines(BufReader::new(Lines(0, 0)), "test", &c, &[0], style).expect("reads");
        let peak = crate::counting_alloc::peak() - before;
        let rows = (LINES * 8) as isize;
        let text = (LINES * LINE.len()) as isize;
        assert!(
            peak <= 2 * rows + (2 << 20) && peak < text,
            "peak {peak} bytes for {rows} bytes of rows and {text} of text"
        );
        assert_eq!(m[0].rows(), LINES);
        let want = u64::from_le_bytes([0x80, 0x7f, 0xff, 0, 5, 100, (256 - 77) as u8, 64]);
        assert!([0, LINES / 2, LINES - 1]
            .iter()
            .all(|&r| m[0].row(r) == [want]));
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
        // 2^200 - 1 fits 200 bits, 2^200 does not; -2^199 is the least.
        let max = "1606938044258990275541962092341162602522202993782792835301375";
        assert_eq!(parse(max, 200, DataFormat::Dec).expect("fits")[3], 0xff);
        let over = "1606938044258990275541962092341162602522202993782792835301376";
        assert!(parse(over, 200, DataFormat::Dec)
            .expect_err("refused")
            .contains("does not fit 200 bits"));
        let least = "-803469022129495137770981046170581301261101496891396417650688";
        assert_eq!(parse(least, 200, DataFormat::Dec).expect("fits")[3], 0x80);
        let below = "-803469022129495137770981046170581301261101496891396417650689";
        assert!(parse(below, 200, DataFormat::Dec)
            .expect_err("refused")
            .contains("below the 200-bit range"));
        assert!(parse(&"9".repeat(100_000), 64, DataFormat::Dec)
            .expect_err("refused")
            .contains("does not fit"));
        assert!(parse("-", 8, DataFormat::Dec)
            .expect_err("refused")
            .contains("not a decimal"));
        assert_eq!(
            parse("-128", 8, DataFormat::Dec).expect("in range")[0],
            0x80
        );
    }
}
