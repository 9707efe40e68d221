//! Data files and values (`--inputs FILE`, `--outputs FILE`, `--expect`,
//! `circuit eval --input`, and the outputs `local` and `party` print):
//! CSV, one instance per line (or, `--as vector`, one table per file; see
//! [`table`]). A Boolean value is one field; a ring value of n elements is
//! n fields, element 0 first. A field is hex (zero-extended when shorter
//! than its width), decimal (`--format dec`; two's complement with
//! `--signed`) or fixed point (`--frac F`, ring elements); [`field`] reads
//! and writes one. Every reading error names the line and the column
//! (field) before anything is sent; every rendering of an output value,
//! to a file, to stdout or into `--json`, goes through [`Rendered`].

mod atomic;
mod field;
mod records;
mod style;
mod table;
#[cfg(test)]
mod tests;

pub use atomic::abandon_pending;
pub use records::{parse_delimiter, Delimiter};
pub use style::{DataFormat, Shape, Style};

use crate::failure::Failure;
use clap::Args;
use field::{codec, get_bits, put_bits, Codec};
use huddle_circuit::{BitMatrix, Circuit, Domain};
use huddle_engine::exit::Exit;
use records::Records;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

/// The data flags of `local`, `party` and `circuit eval`.
#[derive(Args, Clone)]
pub struct DataArgs {
    /// The fields of --input, --inputs, --outputs, --expect and of the
    /// printed outputs: hex (fewer digits than the width are
    /// zero-extended) or dec (decimal).
    #[arg(long, value_enum, default_value_t = DataFormat::Hex)]
    pub format: DataFormat,
    /// Fixed point: ring elements as decimals with this many fractional
    /// bits (x·2^F rounded), e.g. 1.5 or -0.25.
    #[arg(long, value_name = "F")]
    pub frac: Option<u8>,
    /// Decimal fields are two's complement numbers: a minus sign is read,
    /// and values with the top bit set are written as negative (without
    /// it, negative numbers are refused).
    #[arg(long)]
    pub signed: bool,
    /// --inputs starts with a header line (skipped); --outputs gets one
    /// (the output values' names).
    #[arg(long)]
    pub header: bool,
    /// The field separator of --inputs and --expect: ',', ';', tab or
    /// space (default: detected from the first line).
    #[arg(long, value_name = "SEP", value_parser = parse_delimiter)]
    pub delimiter: Option<Delimiter>,
    /// --inputs as `rows` (one instance per line) or `vector` (the whole
    /// file is one instance: each column a table input of the circuit,
    /// padded to its maximum rows; docs/circuit-format.md).
    #[arg(long = "as", id = "shape", value_enum, default_value_t = Shape::Rows)]
    pub shape: Shape,
}

impl DataArgs {
    pub fn style(&self) -> Style {
        Style {
            format: self.format,
            frac: self.frac,
            signed: self.signed,
            header: self.header,
            delimiter: self.delimiter,
            shape: self.shape,
        }
    }
}

/// Why data could not be read or written. Every reading error is bad input
/// (nothing was sent); a write after the run is not.
#[derive(Debug)]
pub enum DataError {
    Input(String),
    Write(String),
    /// Writing to stdout failed because its reader went away.
    StdoutClosed(String),
    /// `--check`: the outputs differ from `--expect`'s.
    Mismatch(String),
    /// A signal ended the process while its outputs were written (the
    /// file was left as it was).
    Interrupted(String),
}

impl std::fmt::Display for DataError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DataError::Input(m)
            | DataError::Write(m)
            | DataError::StdoutClosed(m)
            | DataError::Mismatch(m)
            | DataError::Interrupted(m) => f.write_str(m),
        }
    }
}

impl From<DataError> for Failure {
    fn from(e: DataError) -> Failure {
        match e {
            DataError::Input(m) => Failure::input(m),
            DataError::Mismatch(m) => Failure::check(m),
            DataError::Interrupted(m) => Failure::new(Exit::Interrupted, m),
            DataError::Write(m) | DataError::StdoutClosed(m) => Failure::output(m),
        }
    }
}

impl From<DataError> for String {
    fn from(e: DataError) -> String {
        e.to_string()
    }
}

/// One field of a line: of input or output value `value` (an index into
/// the values read or written), at bit `at` of it.
#[derive(Clone, Copy, Debug)]
struct Field {
    value: usize,
    at: usize,
    codec: Codec,
}

/// The fields of `values` (input or output values of `circuit` as
/// (domain, bits)), in order.
fn fields(circuit: &Circuit, values: &[(Domain, usize)], style: Style) -> Vec<Field> {
    let mut out = Vec::new();
    for (slot, &(domain, bits)) in values.iter().enumerate() {
        let codec = codec(circuit, domain, bits, style);
        out.extend((0..bits / codec.bits.max(1)).map(|j| Field {
            value: slot,
            at: j * codec.bits,
            codec,
        }));
    }
    out
}

/// Refuses a style `circuit`'s values cannot take (checked before a run,
/// so that the outputs can be shown after it).
pub fn check_style(circuit: &Circuit, style: Style) -> Result<(), String> {
    check_frac(style, circuit)
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

/// Rows of one value collected line by line in fixed-size chunks, so that
/// a long file grows the store without doubling reallocations.
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

/// Input values `values` of `circuit` as (domain, bits).
fn input_specs(circuit: &Circuit, values: &[usize]) -> Vec<(Domain, usize)> {
    values
        .iter()
        .map(|&i| (circuit.inputs()[i].domain, circuit.input_bits(i)))
        .collect()
}

/// The output values of `circuit` as (domain, bits).
fn output_specs(circuit: &Circuit) -> Vec<(Domain, usize)> {
    (0..circuit.outputs().len())
        .map(|o| (circuit.outputs()[o].domain, circuit.output_bits(o)))
        .collect()
}

/// Reads the input values `values` (indices into the circuit's inputs)
/// from `path` (`-`: stdin): one matrix per value, one row per instance
/// (per line, or one for `--as vector`).
pub fn read_inputs(
    path: &Path,
    circuit: &Circuit,
    values: &[usize],
    style: Style,
) -> Result<Vec<BitMatrix>, DataError> {
    let name = format!("--inputs {}", path.display());
    with_reader(path, &name, |reader| {
        read_values(reader, circuit, values, style)
    })
}

/// Every instance's expected outputs from `path` (`--expect`), in the form
/// --outputs writes them: one matrix per output value, one row per line.
pub fn read_expected(
    path: &Path,
    circuit: &Circuit,
    style: Style,
) -> Result<Vec<BitMatrix>, DataError> {
    let name = format!("--expect {}", path.display());
    let specs = output_specs(circuit);
    with_reader(path, &name, |reader| {
        check_frac(style, circuit)?;
        let records = Records::open(reader, style.delimiter).map_err(|e| e.to_string())?;
        read_rows(records, circuit, &specs, style)
    })
}

/// Runs `read` on the file `path` (`-`: stdin), `name` before its errors.
fn with_reader<T>(
    path: &Path,
    name: &str,
    read: impl FnOnce(&mut dyn BufRead) -> Result<T, String>,
) -> Result<T, DataError> {
    let result = if path == Path::new("-") {
        read(&mut std::io::stdin().lock())
    } else {
        match std::fs::File::open(path) {
            Ok(file) => read(&mut BufReader::with_capacity(1 << 16, file)),
            Err(e) => Err(e.to_string()),
        }
    };
    result.map_err(|e| DataError::Input(format!("{name}: {e}")))
}

/// [`read_inputs`] from any reader.
fn read_values(
    reader: impl BufRead,
    circuit: &Circuit,
    values: &[usize],
    style: Style,
) -> Result<Vec<BitMatrix>, String> {
    check_frac(style, circuit)?;
    let specs = input_specs(circuit, values);
    let records = Records::open(reader, style.delimiter).map_err(|e| e.to_string())?;
    match style.shape {
        Shape::Rows => read_rows(records, circuit, &specs, style),
        Shape::Vector => {
            let layout = table::Layout::of(circuit, values, style)?;
            layout.read(records, style)
        }
    }
}

/// The values `specs` (input or output values of `circuit`) of every line
/// of `records`. One line is held at a time; values go straight into
/// their rows.
fn read_rows(
    mut records: Records<impl BufRead>,
    circuit: &Circuit,
    specs: &[(Domain, usize)],
    style: Style,
) -> Result<Vec<BitMatrix>, String> {
    let fields = fields(circuit, specs, style);
    let mut stores: Vec<RowStore> = specs.iter().map(|s| RowStore::new(s.1)).collect();
    let mut header_skipped = !style.header;
    while let Some(line) = records.next_line()? {
        if !header_skipped {
            header_skipped = true;
            continue;
        }
        if line.count() != fields.len() {
            return Err(line.wrong_count(
                fields.len(),
                "one per Boolean value, one per element of a ring value",
            ));
        }
        // Fields come value by value (see `fields`): one new row per value.
        let mut columns = fields.iter().zip(line.fields()).enumerate().peekable();
        for (v, store) in stores.iter_mut().enumerate() {
            let row = store.push();
            while let Some((c, (field, text))) = columns.next_if(|(_, (f, _))| f.value == v) {
                let words = text
                    .and_then(|t| field.codec.parse(t))
                    .map_err(|e| format!("line {} column {}: {e}", line.number, c + 1))?;
                put_bits(row, field.at, &words, field.codec.bits);
            }
        }
    }
    if stores.first().is_some_and(|s| s.rows == 0) {
        return Err("no instances (one per line)".into());
    }
    Ok(stores
        .into_iter()
        .zip(specs)
        .map(|(store, &(_, bits))| store.into_matrix(bits))
        .collect())
}

/// One input value `index` of `circuit` from text (`circuit eval
/// --input`): its fields as in a line of --inputs (a ring value in hex may
/// also be one number of all its bits, element 0 lowest).
pub fn parse_value(
    text: &str,
    circuit: &Circuit,
    index: usize,
    style: Style,
) -> Result<Vec<u64>, DataError> {
    let bad = |e: String| DataError::Input(format!("input value {index}: {e}"));
    check_frac(style, circuit).map_err(bad)?;
    let (domain, bits) = input_specs(circuit, &[index])[0];
    let mut fields = fields(circuit, &[(domain, bits)], style);
    let mut records =
        Records::open(text.as_bytes(), style.delimiter).map_err(|e| bad(e.to_string()))?;
    let line = records
        .next_line()
        .map_err(bad)?
        .ok_or_else(|| bad("no value given".into()))?;
    if domain == Domain::Ring
        && style.format == DataFormat::Hex
        && style.frac.is_none()
        && line.count() == 1
    {
        let codec = Codec {
            bits,
            ..fields[0].codec
        };
        fields = vec![Field {
            value: 0,
            at: 0,
            codec,
        }];
    }
    if line.count() != fields.len() {
        let wrong = line.wrong_count(fields.len(), "one per element of a ring value");
        return Err(bad(wrong.replacen("line 1 has", "it has", 1)));
    }
    let mut value = vec![0u64; bits.div_ceil(64)];
    for (c, (field, text)) in fields.iter().zip(line.fields()).enumerate() {
        let words = text.and_then(|t| field.codec.parse(t)).map_err(|e| {
            bad(if fields.len() > 1 {
                format!("element {c}: {e}")
            } else {
                e
            })
        })?;
        put_bits(&mut value, field.at, &words, field.codec.bits);
    }
    Ok(value)
}

/// Output values rendered as text: every field of one instance, value by
/// value; the one form of stdout, `--json` and the lines of --outputs.
pub struct Rendered {
    /// Per output value, its fields' texts and whether each is a JSON number.
    values: Vec<Vec<(String, bool)>>,
}

impl Rendered {
    /// Instance `r` of `outputs` (one matrix per output value of `circuit`).
    pub fn of(
        circuit: &Circuit,
        outputs: &[BitMatrix],
        r: usize,
        style: Style,
    ) -> Result<Rendered, DataError> {
        check_frac(style, circuit).map_err(DataError::Input)?;
        let fields = fields(circuit, &output_specs(circuit), style);
        Ok(Rendered::row(&fields, outputs, r))
    }

    /// Instance `r` of `outputs`, whose fields are `fields`.
    fn row(fields: &[Field], outputs: &[BitMatrix], r: usize) -> Rendered {
        let mut values: Vec<Vec<(String, bool)>> = vec![Vec::new(); outputs.len()];
        for f in fields {
            if let Some(m) = outputs.get(f.value).filter(|m| r < m.rows()) {
                let words = get_bits(m.row(r), f.at, f.codec.bits);
                values[f.value].push((f.codec.render(&words), f.codec.json_number()));
            }
        }
        Rendered { values }
    }

    /// One line per output value, its fields separated by commas.
    pub fn lines(&self) -> impl Iterator<Item = String> + '_ {
        self.values.iter().map(|v| {
            let texts: Vec<&str> = v.iter().map(|(t, _)| t.as_str()).collect();
            texts.join(",")
        })
    }

    /// Every field on one line (a line of --outputs).
    fn line(&self) -> String {
        let texts: Vec<&str> = self
            .values
            .iter()
            .flatten()
            .map(|(t, _)| t.as_str())
            .collect();
        texts.join(",")
    }

    /// `--json`'s outputs: an array of fields per output value; decimal
    /// integers of at most 53 bits as numbers, every other field as the
    /// string printed.
    pub fn json(&self) -> serde_json::Value {
        use serde_json::Value;
        let field = |(text, number): &(String, bool)| match number.then(|| text.parse::<i64>()) {
            Some(Ok(n)) => Value::from(n),
            _ => Value::from(text.as_str()),
        };
        let values: Vec<Value> = self
            .values
            .iter()
            .map(|v| Value::Array(v.iter().map(field).collect()))
            .collect();
        Value::Array(values)
    }
}

/// The header line of --outputs: each output value's name, a ring value's
/// elements as `name[j]`.
fn header(circuit: &Circuit, style: Style) -> String {
    let fields = fields(circuit, &output_specs(circuit), style);
    let names: Vec<String> = fields
        .iter()
        .map(|f| {
            let value = &circuit.outputs()[f.value];
            let name = if value.name.is_empty() {
                format!("output{}", f.value)
            } else {
                value.name.clone()
            };
            if value.domain == Domain::Ring && value.wires.len() > 1 {
                format!("{name}[{}]", f.at / f.codec.bits)
            } else {
                name
            }
        })
        .collect();
    names.join(",")
}

/// Writes every instance's outputs to `path` (`-`: stdout), one line each.
/// A file appears whole or not at all ([`atomic`]): a failure or a signal
/// leaves `path` as it was.
pub fn write_outputs(
    path: &Path,
    circuit: &Circuit,
    outputs: &[BitMatrix],
    style: Style,
) -> Result<(), DataError> {
    check_frac(style, circuit).map_err(DataError::Input)?;
    let fail = |e: std::io::Error| {
        let message = format!("--outputs {}: {e}", path.display());
        match (e.kind(), path == Path::new("-")) {
            (std::io::ErrorKind::BrokenPipe, true) => DataError::StdoutClosed(message),
            (std::io::ErrorKind::Interrupted, false) => DataError::Interrupted(message),
            _ => DataError::Write(message),
        }
    };
    let lines = |out: &mut dyn Write| -> std::io::Result<()> {
        if style.header {
            writeln!(out, "{}", header(circuit, style))?;
        }
        let fields = fields(circuit, &output_specs(circuit), style);
        for r in 0..outputs.first().map_or(0, BitMatrix::rows) {
            let line = Rendered::row(&fields, outputs, r).line();
            writeln!(out, "{line}")?;
        }
        Ok(())
    };
    if path == Path::new("-") {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        lines(&mut out).and_then(|()| out.flush()).map_err(fail)
    } else {
        atomic::write_whole(path, lines).map_err(fail)
    }
}

/// Writes every instance of the input values `values` of `circuit` (one
/// matrix per value) to `path` in the form `--inputs` reads back with
/// `style`: one line each (the harnesses of `huddle bench` hand parties
/// their data this way).
pub fn write_inputs(
    path: &Path,
    circuit: &Circuit,
    values: &[usize],
    matrices: &[BitMatrix],
    style: Style,
) -> Result<(), DataError> {
    let fields = fields(circuit, &input_specs(circuit, values), style);
    let lines = |out: &mut dyn Write| -> std::io::Result<()> {
        for r in 0..matrices.first().map_or(0, BitMatrix::rows) {
            writeln!(out, "{}", Rendered::row(&fields, matrices, r).line())?;
        }
        Ok(())
    };
    atomic::write_whole(path, lines)
        .map_err(|e| DataError::Write(format!("{}: {e}", path.display())))
}

/// Compares outputs with `--expect`'s: one line for every instance, or one
/// for instance 0. The first difference, named by instance, column and
/// both values; or a wrong line count.
pub fn check_expected(
    circuit: &Circuit,
    got: &[BitMatrix],
    want: &[BitMatrix],
    style: Style,
) -> Result<(), DataError> {
    let (instances, lines) = (
        got.first().map_or(0, BitMatrix::rows),
        want.first().map_or(0, BitMatrix::rows),
    );
    if lines != instances && lines != 1 {
        return Err(DataError::Input(format!(
            "--expect has {lines} lines for {instances} instances: give one line per instance, \
             or one for instance 0"
        )));
    }
    let fields = fields(circuit, &output_specs(circuit), style);
    for r in 0..lines {
        let (a, b) = (
            Rendered::row(&fields, got, r),
            Rendered::row(&fields, want, r),
        );
        let pairs = a.values.iter().flatten().zip(b.values.iter().flatten());
        for (c, ((x, _), (y, _))) in pairs.enumerate() {
            if x != y {
                return Err(DataError::Mismatch(format!(
                    "--check: instance {r} column {} (output value {}) is {x}, --expect says {y}",
                    c + 1,
                    fields[c].value
                )));
            }
        }
    }
    Ok(())
}
