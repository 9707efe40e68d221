//! How data fields look: their format, how an input file maps onto the
//! circuit's values, and the whole style of a file's fields ([`Style`]).

use super::records::Delimiter;
use clap::ValueEnum;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DataFormat {
    /// Hexadecimal: as many digits as the field's width when written; fewer
    /// are read as zero-extended.
    Hex,
    /// Decimal integers (two's complement with --signed).
    Dec,
}

/// How an input file maps onto the circuit's input values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Shape {
    /// One instance per line.
    Rows,
    /// The whole file is one instance: a table whose columns fill the
    /// circuit's table input, padded to its maximum rows with validity bits
    /// (docs/circuit-format.md).
    Vector,
}

/// How fields are written and read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    pub format: DataFormat,
    /// Ring elements as fixed-point decimals with this many fractional
    /// bits (x·2^f rounded; `--frac`), signed.
    pub frac: Option<u8>,
    /// Decimal fields as two's complement numbers.
    pub signed: bool,
    /// A header line: skipped in --inputs, the output values' names in
    /// --outputs.
    pub header: bool,
    /// The separator of files read; None: detected.
    pub delimiter: Option<Delimiter>,
    /// How --inputs maps onto the input values (--expect: always rows).
    pub shape: Shape,
}

impl Style {
    /// The style of every data flag left at its default.
    pub const DEFAULT: Style = Style {
        format: DataFormat::Hex,
        frac: None,
        signed: false,
        header: false,
        delimiter: None,
        shape: Shape::Rows,
    };
}
