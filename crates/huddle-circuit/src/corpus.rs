//! The public circuit collection with known-answer vectors (`shared/circuits`
//! beside the repository, or wherever `HUDDLE_CIRCUITS` points), used by the
//! conformance suites. A fresh clone does not have it; callers skip then.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One circuit entry of `vectors.json`.
#[derive(Clone, Debug, Deserialize)]
pub struct CorpusCircuit {
    /// The circuit's file name, relative to the collection's folder.
    pub file: String,
    /// The format's name as the collection spells it (e.g. `Bristol Fashion`).
    pub format: String,
    /// Gate lines.
    pub gates: usize,
    /// Wires, inputs included.
    pub wires: usize,
    /// Gate lines by gate name (`AND`, `XOR`, ...).
    #[serde(default)]
    pub gate_counts: std::collections::BTreeMap<String, usize>,
    /// Individual ANDs: AND gates plus n for every MAND of n outputs.
    pub and_count: usize,
    /// The largest number of AND/MAND gates on any input-to-output path.
    pub and_depth: u32,
    /// Input value widths in bits.
    pub input_widths: Vec<usize>,
    /// Output value widths in bits.
    pub output_widths: Vec<usize>,
    /// Its known-answer vectors.
    pub vectors: Vec<Vector>,
}

/// A known-answer vector: hex inputs and outputs in the collection's bit order.
#[derive(Clone, Debug, Deserialize)]
pub struct Vector {
    /// One hex string per input value.
    pub inputs: Vec<String>,
    /// One hex string per output value.
    pub outputs: Vec<String>,
    /// What the vector is (may be empty).
    #[serde(default)]
    pub note: String,
}

#[derive(Deserialize)]
struct VectorsFile {
    circuits: Vec<CorpusCircuit>,
}

/// The collection's folder: `$HUDDLE_CIRCUITS`, else `shared/circuits` in the
/// nearest ancestor of `start` that has one.
pub fn locate(start: &Path) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("HUDDLE_CIRCUITS") {
        return Some(PathBuf::from(dir));
    }
    start
        .ancestors()
        .map(|a| a.join("shared").join("circuits"))
        .find(|p| p.join("vectors.json").is_file())
}

/// Set (to anything but `0`) where the collection must be found: CI sets
/// it, so that a test that would skip there fails instead.
pub const REQUIRE: &str = "HUDDLE_REQUIRE_CIRCUITS";

/// The collection's folder for a test, or `None` after telling the user the
/// test is skipped (a fresh clone has no collection); where [`REQUIRE`] is
/// set, a missing collection fails the test. The note is written straight
/// to the stderr handle because the test harness swallows `eprintln!`
/// output of passing tests.
pub fn locate_or_skip(start: &Path) -> Option<PathBuf> {
    let required = std::env::var_os(REQUIRE).is_some_and(|v| v != "0");
    skip_unless_required(locate(start), required)
}

fn skip_unless_required(found: Option<PathBuf>, required: bool) -> Option<PathBuf> {
    if found.is_none() {
        let test = std::thread::current().name().unwrap_or("a test").to_owned();
        let why = "no shared/circuits found above the checkout and HUDDLE_CIRCUITS is unset";
        assert!(
            !required,
            "{test}: {why}, and {REQUIRE} says it must be there"
        );
        use std::io::Write;
        let note = format!("SKIPPED {test}: {why}\n");
        let _ = std::io::stderr().write_all(note.as_bytes());
    }
    found
}

/// Every circuit with its absolute path, from `vectors.json` and the
/// `vectors.json` of each subfolder that has one.
pub fn load(dir: &Path) -> Result<Vec<(PathBuf, CorpusCircuit)>, String> {
    let mut files = vec![dir.join("vectors.json")];
    let mut subdirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("vectors.json").is_file())
        .collect();
    subdirs.sort();
    files.extend(subdirs.into_iter().map(|d| d.join("vectors.json")));
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        let parsed: VectorsFile =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", f.display()))?;
        let base = f.parent().unwrap_or(dir).to_path_buf();
        // Entries name their file relative to the folder of their vectors.json,
        // or (in the top-level file) relative to the collection root.
        out.extend(parsed.circuits.into_iter().map(|c| {
            let direct = base.join(&c.file);
            let path = if direct.is_file() {
                direct
            } else {
                dir.join(&c.file)
            };
            (path, c)
        }));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::skip_unless_required;
    use std::path::PathBuf;

    #[test]
    fn a_missing_collection_skips_unless_required() {
        assert_eq!(skip_unless_required(None, false), None);
        let here = Some(PathBuf::from("/circuits"));
        assert_eq!(skip_unless_required(here.clone(), true), here);
    }

    #[test]
    #[should_panic(expected = "HUDDLE_REQUIRE_CIRCUITS says it must be there")]
    fn a_missing_collection_fails_where_required() {
        skip_unless_required(None, true);
    }
}
