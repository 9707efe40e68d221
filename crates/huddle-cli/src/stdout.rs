//! Writing to stdout. A listing (`protocols`, `circuit gen`, `circuit
//! eval`, ...) whose reader went away (`huddle circuit gen aes128 | head -1`)
//! ends quietly and successfully; a run's outputs that cannot be written are
//! a failure of their own kind ([`Exit::Output`]), since the run itself
//! succeeded. Every benchmark prints its report here ([`print_report`]).

use crate::failure::Failure;
use huddle_engine::exit::Exit;
use std::fmt::Display;
use std::io::{self, Write};

/// What a failed write to stdout means for a listing.
pub fn listing_error(e: io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe {
        // The reader has what it wanted.
        Failure::new(Exit::Success, "")
    } else {
        Failure::output(format!("writing to stdout: {e}"))
    }
}

/// What a failed write of a run's outputs to stdout means.
pub fn output_error(e: io::Error) -> Failure {
    Failure::output(format!("the outputs could not be written to stdout: {e}"))
}

/// A line of a listing.
pub fn listing(text: impl Display) -> Result<(), Failure> {
    writeln!(io::stdout().lock(), "{text}").map_err(listing_error)
}

/// A line of a run's outputs (or its report).
pub fn output(text: impl Display) -> Result<(), Failure> {
    writeln!(io::stdout().lock(), "{text}").map_err(output_error)
}

/// Prints a benchmark's results: the JSON report, or a header and one line per result.
pub fn print_report(
    as_json: bool,
    header: &str,
    report: serde_json::Map<String, serde_json::Value>,
    lines: &[String],
) -> Result<(), String> {
    if as_json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::Value::Object(report))
                .map_err(|e| e.to_string())?
        );
    } else {
        println!("{header}");
        for l in lines {
            println!("  {l}");
        }
    }
    Ok(())
}
