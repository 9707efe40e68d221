//! The public circuit collection with known-answer vectors (`shared/circuits`
//! beside the repository, or wherever `HUDDLE_CIRCUITS` points), used by the
//! conformance suites. A fresh clone does not have it; callers skip then.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One circuit entry of `vectors.json`.
#[derive(Clone, Debug, Deserialize)]
pub struct CorpusCircuit {
    pub file: String,
    pub format: String,
    pub gates: usize,
    pub wires: usize,
    #[serde(default)]
    pub gate_counts: std::collections::BTreeMap<String, usize>,
    pub and_count: usize,
    pub and_depth: u32,
    pub input_widths: Vec<usize>,
    pub output_widths: Vec<usize>,
    pub vectors: Vec<Vector>,
}

/// A known-answer vector: hex inputs and outputs in the collection's bit order.
#[derive(Clone, Debug, Deserialize)]
pub struct Vector {
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
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

/// The collection's folder for a test, or `None` after telling the user the
/// test is skipped. The note is written straight to the stderr handle because
/// the test harness swallows `eprintln!` output of passing tests.
pub fn locate_or_skip(start: &Path) -> Option<PathBuf> {
    let found = locate(start);
    if found.is_none() {
        use std::io::Write;
        let test = std::thread::current().name().unwrap_or("a test").to_owned();
        let note = format!("SKIPPED {test}: no shared/circuits found above the checkout and HUDDLE_CIRCUITS is unset\n");
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
