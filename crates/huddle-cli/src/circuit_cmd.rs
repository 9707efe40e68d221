//! `huddle circuit ...`: statistics, plaintext evaluation and conversion.

use crate::failure::Failure;
use clap::{Subcommand, ValueEnum};
use huddle_circuit::format::write_old_bristol;
use huddle_circuit::{
    read_circuit_file, read_circuit_with, write_circuit, BitMatrix, Circuit, Format,
    PlainEvaluator, ReadOptions, Stats,
};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

#[derive(Subcommand)]
pub enum CircuitCommand {
    /// Print gate counts by type and fan-in, AND-depth, wires and value widths.
    Stats {
        /// Circuit file (Bristol Fashion, old Bristol, or huddle's arithmetic format); `-` reads stdin.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
        format: FormatArg,
    },
    /// Evaluate in the clear; prints one output value per line, its fields
    /// (a ring value: one per element, element 0 first) separated by commas.
    ///
    /// A hex field has at most one digit per 4 bits of the value (fewer are
    /// zero-extended); the value's lowest-numbered wire is its least
    /// significant bit. Negative decimals take --signed; a value starting
    /// with `-` that is not a single number (e.g. `-5,2`) needs `=`:
    /// `--input=-5,2` (else it reads as a flag); `--input -5` works.
    Eval {
        file: PathBuf,
        /// One per input value, in order, in the fields of a line of
        /// --inputs, e.g. `--input 1f`, `--input 12,639,90,5` (a ring value
        /// of four elements; in hex also one number of all its bits).
        #[arg(long = "input", value_name = "VALUE", allow_negative_numbers = true)]
        inputs: Vec<String>,
        /// Every input value from a file instead, one instance per line (as
        /// `huddle local --inputs`); prints one line per instance, as
        /// `--outputs` files hold them.
        #[arg(long = "inputs", value_name = "FILE", conflicts_with = "inputs")]
        inputs_file: Option<PathBuf>,
        #[command(flatten)]
        data: crate::data::DataArgs,
        /// The circuit file's format.
        #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
        circuit_format: FormatArg,
    },
    /// Generate a circuit (Bristol Fashion, k-input ANDs as `k 1 in.. out AND`).
    ///
    /// KIND is listed below. Adders output n + 1 bits (the carry on top),
    /// multipliers 2n bits. AES and SHA-256 ignore --bits and take their
    /// inputs in the order of the public circuits (key or round keys, then
    /// plaintext; block, then state); for AES --fanin picks the S-box: 2 =
    /// depth 4, 3 = depth 3, 4 or more = depth 2. Applications: see --bits
    /// and --size. Table aggregates run over --parties P tables of --size N
    /// rows of --bits b values (docs/circuit-format.md, "Table inputs").
    Gen {
        #[command(flatten)]
        spec: GenSpec,
        /// Output file; stdout if omitted.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Rewrite a Boolean circuit into an equivalent one of lower AND-depth
    /// with ANDs of up to L inputs; prints depth, ANDs by fan-in and the
    /// estimated MFI-3PC communication before and after (to stderr when the
    /// circuit goes to stdout).
    Optimize {
        file: PathBuf,
        /// Largest AND fan-in the result may use.
        #[arg(long, default_value_t = 4)]
        fanin: usize,
        /// Output file; stdout if omitted.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Aim for this AND-depth instead of the least found: the slack is
        /// spent on cheaper (narrower) ANDs.
        #[arg(long)]
        depth: Option<u32>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
        format: FormatArg,
    },
    /// Convert between Bristol Fashion and the old Bristol format.
    Convert {
        file: PathBuf,
        /// Target format.
        #[arg(long, value_enum)]
        to: Target,
        /// Output file; stdout if omitted.
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
        format: FormatArg,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum FormatArg {
    /// Detect from the header.
    Auto,
    Bristol,
    /// The older Bristol format (`<n1> <n2> <n3>` header).
    Old,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Target {
    Bristol,
    Old,
}

pub fn run(cmd: CircuitCommand) -> Result<(), Failure> {
    match cmd {
        CircuitCommand::Stats { file, json, format } => {
            let c = load(&file, format).map_err(Failure::input)?;
            let s = Stats::of(&c);
            if json {
                crate::stdout::listing(
                    serde_json::to_string_pretty(&s)
                        .map_err(|e| Failure::internal(e.to_string()))?,
                )
            } else {
                print_stats(&mut std::io::stdout().lock(), &file, &s)
                    .map_err(crate::stdout::listing_error)
            }
        }
        CircuitCommand::Eval {
            file,
            inputs,
            inputs_file,
            data,
            circuit_format,
        } => eval(
            &file,
            &inputs,
            inputs_file.as_deref(),
            data.style(),
            circuit_format,
        ),
        CircuitCommand::Gen { spec, output } => {
            let c = generate(&spec).map_err(Failure::input)?;
            let mut buf = Vec::new();
            write_circuit(&c, &mut buf).map_err(|e| Failure::internal(e.to_string()))?;
            write_out(output.as_deref(), &buf)
        }
        CircuitCommand::Optimize {
            file,
            fanin,
            output,
            depth,
            json,
            format,
        } => {
            use huddle_circuit::optimize::{optimize, Summary};
            let c = load(&file, format).map_err(Failure::input)?;
            let out = optimize(&c, fanin, depth)
                .map_err(|e| Failure::input(format!("{}: {e}", file.display())))?;
            let (before, after) = (Summary::of(&c), Summary::of(&out));
            let report = if json {
                serde_json::to_string_pretty(&serde_json::json!({
                    "before": before,
                    "after": after,
                }))
                .map_err(|e| Failure::internal(e.to_string()))?
            } else {
                let line = |name: &str, s: &Summary| {
                    let by: Vec<String> = s
                        .and_by_fanin
                        .iter()
                        .map(|(k, n)| format!("{k}-input {n}"))
                        .collect();
                    format!(
                        "{name:<7} AND-depth {:>4}  ANDs {:>7} ({})  MFI-3PC bytes per party per 1000 instances {}",
                        s.and_depth,
                        s.and_count,
                        by.join(", "),
                        s.mfi_bits_per_party * 1000 / 8
                    )
                };
                format!("{}\n{}", line("before", &before), line("after", &after))
            };
            write_out(output.as_deref(), &bristol(&out)?)?;
            if output.is_some() {
                crate::stdout::listing(report)?;
            } else {
                eprintln!("{report}");
            }
            Ok(())
        }
        CircuitCommand::Convert {
            file,
            to,
            output,
            format,
        } => {
            let c = load(&file, format).map_err(Failure::input)?;
            let buf = match to {
                Target::Bristol => bristol(&c)?,
                Target::Old => {
                    let mut buf = Vec::new();
                    write_old_bristol(&c, &mut buf).map_err(|e| {
                        Failure::input(format!("cannot convert {}: {e}", file.display()))
                    })?;
                    buf
                }
            };
            write_out(output.as_deref(), &buf)
        }
    }
}

/// `huddle circuit gen`'s arguments (also a job's `[generate]`).
#[derive(clap::Args, Clone, Debug)]
pub struct GenSpec {
    #[arg(help = kinds_help(), value_name = "KIND")]
    pub kind: String,
    /// Width of each input value in bits; for the applications (vecmat,
    /// perceptron, auction, ...) the ring width (8, 16, 32, 64); for the
    /// table aggregates (table-*) the width of a table's values.
    #[arg(long, default_value_t = 64)]
    pub bits: u32,
    /// Applications: vecmat N (an N×N matrix), auction N (bidders),
    /// perceptron INPUTS,HIDDEN,OUTPUTS; table aggregates: N, the most rows
    /// of each party's table (public; the row counts stay private).
    #[arg(long, value_delimiter = ',')]
    pub size: Vec<u32>,
    /// Applications: fractional bits of fixed-point values (perceptron).
    #[arg(long, default_value_t = 16)]
    pub frac: u8,
    /// Largest AND fan-in the circuit may use.
    #[arg(long, default_value_t = 2)]
    pub fanin: usize,
    /// Table aggregates: the parties that give a table each (table p is
    /// party p's).
    #[arg(long, default_value_t = 1)]
    pub parties: u32,
    /// table-count-above: count the values above this public threshold.
    #[arg(long, allow_negative_numbers = true)]
    pub threshold: Option<i64>,
    /// table-histogram: the public bucket bounds b1 < b2 < ..., buckets
    /// below b1, [b1, b2), ..., b_last and above.
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub bounds: Vec<i64>,
    /// Table aggregates: the values are signed (two's complement) numbers.
    #[arg(long)]
    pub signed: bool,
}

/// `circuit gen`'s kinds, from the generators' own lists.
fn kinds_help() -> String {
    use huddle_circuit::{aggregates, apps, gen};
    format!(
        "What to generate. Building blocks: {}. Applications: {}. Table aggregates \
         (one or several, comma-separated): {}",
        gen::KINDS.join(", "),
        apps::KINDS.join(", "),
        aggregates::KINDS.join(", ")
    )
}

/// The circuit `spec` asks for: a table aggregate, an application or a
/// Boolean building block.
pub fn generate(spec: &GenSpec) -> Result<Circuit, String> {
    use huddle_circuit::{aggregates, apps, gen};
    if aggregates::is_kind(&spec.kind) {
        let [rows] = spec.size[..] else {
            return Err(format!(
                "{} takes --size N: the most rows of each party's table",
                spec.kind
            ));
        };
        let table = aggregates::TableSpec {
            rows,
            parties: spec.parties,
            bits: spec.bits,
            signed: spec.signed,
            threshold: spec.threshold,
            bounds: spec.bounds.clone(),
        };
        aggregates::generate(&spec.kind, &table)
    } else if apps::KINDS.contains(&spec.kind.as_str()) {
        apps::generate(&spec.kind, spec.bits, &spec.size, spec.frac)
    } else {
        gen::generate(&spec.kind, spec.bits, spec.fanin)
    }
}

/// `huddle circuit eval`: the outputs of `--input` values (one line per
/// output value) or of every instance of `--inputs` (one line each).
fn eval(
    file: &Path,
    inputs: &[String],
    inputs_file: Option<&Path>,
    style: crate::data::Style,
    format: FormatArg,
) -> Result<(), Failure> {
    let c = load(file, format).map_err(Failure::input)?;
    let all: Vec<usize> = (0..c.inputs().len()).collect();
    let values = match inputs_file {
        Some(path) => crate::data::read_inputs(path, &c, &all, style)?,
        None => {
            if inputs.len() != c.inputs().len() {
                let widths: Vec<String> = all
                    .iter()
                    .map(|&i| format!("{} bits", c.input_bits(i)))
                    .collect();
                return Err(Failure::input(format!(
                    "{} takes {} input values ({}), but {} --input given",
                    file.display(),
                    c.inputs().len(),
                    widths.join(", "),
                    inputs.len()
                )));
            }
            all.iter()
                .zip(inputs)
                .map(|(&i, text)| {
                    let words =
                        crate::data::parse_value(text, &c, i, style).map_err(Failure::input)?;
                    BitMatrix::from_row_words(1, c.input_bits(i), words).ok_or_else(|| {
                        Failure::internal("a value's words do not fill one row of its width")
                    })
                })
                .collect::<Result<_, Failure>>()?
        }
    };
    let outputs = PlainEvaluator::new(&c)
        .evaluate(&values)
        .map_err(|e| Failure::input(format!("{}: {e}", file.display())))?;
    if inputs_file.is_some() {
        // A listing: a reader that stops reading ends it quietly.
        return match crate::data::write_outputs(Path::new("-"), &c, &outputs, style) {
            Err(crate::data::DataError::StdoutClosed(_)) => Ok(()),
            written => Ok(written?),
        };
    }
    let rendered = crate::data::Rendered::of(&c, &outputs, 0, style)?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    let written = rendered
        .lines()
        .try_for_each(|line| writeln!(out, "{line}"))
        .and_then(|()| out.flush());
    written.map_err(crate::stdout::listing_error)
}

/// Reads a circuit, naming the file in any error.
pub fn load(path: &Path, format: FormatArg) -> Result<Circuit, String> {
    let format = match format {
        FormatArg::Auto => Format::Auto,
        FormatArg::Bristol => Format::Bristol,
        FormatArg::Old => Format::OldBristol,
    };
    let result = if path.as_os_str() == "-" {
        read_circuit_with(
            std::io::stdin().lock(),
            ReadOptions {
                format,
                ..ReadOptions::default()
            },
        )
    } else {
        read_circuit_file(path, format)
    };
    result.map_err(|e| format!("{}: {e}", path.display()))
}

/// A circuit in Bristol Fashion (the extended format where it needs it).
fn bristol(c: &Circuit) -> Result<Vec<u8>, Failure> {
    let mut buf = Vec::new();
    write_circuit(c, &mut buf).map_err(|e| Failure::internal(e.to_string()))?;
    Ok(buf)
}

/// Writes a circuit to `path` (`-o`), or lists it on stdout.
fn write_out(path: Option<&Path>, bytes: &[u8]) -> Result<(), Failure> {
    match path {
        Some(p) => {
            std::fs::write(p, bytes).map_err(|e| Failure::output(format!("{}: {e}", p.display())))
        }
        None => {
            let mut out = BufWriter::new(std::io::stdout().lock());
            out.write_all(bytes)
                .and_then(|()| out.flush())
                .map_err(crate::stdout::listing_error)
        }
    }
}

fn print_stats(out: &mut impl Write, path: &Path, s: &Stats) -> std::io::Result<()> {
    writeln!(out, "{}", path.display())?;
    writeln!(out, "  gates      {}", s.gates)?;
    writeln!(out, "  wires      {}", s.wires)?;
    writeln!(out, "  inputs     {:?} bits", s.inputs)?;
    writeln!(out, "  outputs    {:?} bits", s.outputs)?;
    writeln!(out, "  AND-depth  {}", s.and_depth)?;
    writeln!(out, "  ANDs       {} in all", s.and_count)?;
    for (fan_in, n) in &s.and_by_fanin {
        writeln!(out, "    {fan_in}-input AND  {n}")?;
    }
    writeln!(
        out,
        "  MAND {}  XOR {}  INV {}  EQ {}  EQW {}",
        s.mand, s.xor, s.inv, s.eq, s.eqw
    )?;
    if s.dead_gates > 0 {
        writeln!(
            out,
            "  dead gates {} (results reach no output)",
            s.dead_gates
        )?;
    }
    if let Some(a) = &s.arithmetic {
        writeln!(out, "  ring       Z_2^{}", a.ring_bits)?;
        writeln!(
            out,
            "  ADD {}  SUB {}  NEG {}  ADDC {}  MULC {}  CONST {}  A2B {}  B2A {}",
            a.add, a.sub, a.neg, a.add_const, a.mul_const, a.const_ring, a.a2b, a.b2a
        )?;
        for (fan_in, n) in &a.mul_by_fanin {
            writeln!(out, "    {fan_in}-input MUL  {n}")?;
        }
        for (len, n) in &a.dot_by_len {
            writeln!(out, "    length-{len} DOT  {n}")?;
        }
        for (len, n) in &a.dot_trunc_by_len {
            writeln!(out, "    length-{len} DOTTR  {n}")?;
        }
        if a.eqz > 0 {
            writeln!(out, "  EQZ {}", a.eqz)?;
        }
        if a.ltz > 0 {
            writeln!(out, "  LTZ {}", a.ltz)?;
        }
    }
    Ok(())
}
