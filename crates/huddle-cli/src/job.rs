//! `--job job.toml`: one file that every party of a run is given, so that
//! the hosts of a deployment run the same computation without repeating a
//! long command line on each. It names the circuit (a file or a generator),
//! the protocol and its options, who owns which input value and who learns
//! the outputs, and where each party's data files are.
//!
//! Each of its settings goes into the hello as a setting of its own, and
//! their hash too: hosts given different jobs stop at connect, and the error
//! names the setting that differs. The data files' paths are left out of the hash
//! (each host has its own), as is the circuit's path (the hello compares the
//! circuit's content).

use huddle_net::{Form, Settings, Value};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The job file as written; every setting optional (the command line's
/// defaults apply), none both here and on the command line.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Job {
    pub protocol: Option<String>,
    /// A circuit file, relative to the job file.
    pub circuit: Option<PathBuf>,
    /// Or a circuit from `huddle circuit gen`'s generators.
    pub generate: Option<Generate>,
    /// `huddle local` only; `huddle party` checks it against the parties file.
    pub parties: Option<usize>,
    pub batch: Option<usize>,
    /// The party that owns each input value, in order (default: round robin).
    pub owners: Option<Vec<usize>>,
    /// The party that learns the outputs, or "all" (the default).
    pub reveal_to: Option<RevealTo>,
    pub threads: Option<Threads>,
    pub split_roles: Option<bool>,
    pub share_memory: Option<usize>,
    pub preprocess: Option<String>,
    pub truncation: Option<String>,
    pub opt: Option<String>,
    pub linear: Option<String>,
    pub net: Option<String>,
    pub max_fan_in: Option<usize>,
    pub verify_every: Option<usize>,
    /// `protocol = "auto"`: the requirements and objective of the choice
    /// (as `--security`, `--corruptions`, `--allow-dealer`, `--objective`).
    pub security: Option<String>,
    pub corruptions: Option<usize>,
    pub allow_dealer: Option<bool>,
    pub objective: Option<String>,
    /// Role r played by party `roles[r]` (as `--roles`).
    pub roles: Option<Vec<usize>>,
    /// Data files: hex or dec.
    pub format: Option<String>,
    pub frac: Option<u8>,
    pub signed: Option<bool>,
    pub header: Option<bool>,
    /// Each party's input file (the values it owns), by party id: a path,
    /// or a table `{ file, as, delimiter }`. Per host, so not in the hello.
    #[serde(default, skip_serializing)]
    pub inputs: BTreeMap<String, InputFile>,
    /// Each party's output file, by party id.
    #[serde(default)]
    pub outputs: BTreeMap<String, PathBuf>,
}

/// `[generate]`: the arguments of `huddle circuit gen`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Generate {
    pub kind: String,
    pub bits: Option<u32>,
    /// A number or a list (`size = 3` is `size = [3]`).
    #[serde(default, deserialize_with = "one_or_many")]
    pub size: Vec<u32>,
    pub frac: Option<u8>,
    pub fanin: Option<usize>,
    /// Table aggregates: the parties that give a table each.
    pub parties: Option<u32>,
    /// `table-count-above`: the public threshold.
    pub threshold: Option<i64>,
    /// `table-histogram`: the public bucket bounds.
    #[serde(default)]
    pub bounds: Vec<i64>,
    /// Table aggregates: the values are signed.
    pub signed: Option<bool>,
}

impl Generate {
    /// As `huddle circuit gen` takes it, with its defaults.
    pub fn spec(&self) -> crate::circuit_cmd::GenSpec {
        crate::circuit_cmd::GenSpec {
            kind: self.kind.clone(),
            bits: self.bits.unwrap_or(64),
            size: self.size.clone(),
            frac: self.frac.unwrap_or(16),
            fanin: self.fanin.unwrap_or(2),
            parties: self.parties.unwrap_or(1),
            threshold: self.threshold,
            bounds: self.bounds.clone(),
            signed: self.signed.unwrap_or(false),
        }
    }
}

/// A number or a list of numbers, as a list.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(u32),
        Many(Vec<u32>),
    }
    match OneOrMany::deserialize(d) {
        Ok(OneOrMany::One(n)) => Ok(vec![n]),
        Ok(OneOrMany::Many(v)) => Ok(v),
        Err(_) => Err(serde::de::Error::custom(
            "size must be a number or a list of numbers, e.g. 3 or [784, 128, 10]",
        )),
    }
}

/// An `[inputs]` entry: `0 = "file.csv"`, or a table
/// `[inputs.0] file = "ages.csv"`, `as = "vector"`, `delimiter = ";"`.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "toml::Value")]
pub struct InputFile {
    pub file: PathBuf,
    /// rows (one instance per line) or vector (the file is one table).
    pub shape: Option<crate::data::Shape>,
    pub delimiter: Option<crate::data::Delimiter>,
}

impl TryFrom<toml::Value> for InputFile {
    type Error = String;
    fn try_from(v: toml::Value) -> Result<InputFile, String> {
        let table = match v {
            toml::Value::String(path) => {
                return Ok(InputFile {
                    file: path.into(),
                    shape: None,
                    delimiter: None,
                })
            }
            toml::Value::Table(t) => t,
            other => {
                return Err(format!(
                    "an input is a file name or a table {{ file, as, delimiter }}, not {other}"
                ))
            }
        };
        let text = |key: &str| match table.get(key) {
            None => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!("`{key}` must be a string, not {other}")),
        };
        if let Some(key) = table
            .keys()
            .find(|k| !["file", "as", "delimiter"].contains(&k.as_str()))
        {
            return Err(format!(
                "unknown key `{key}` in an input table (file, as, delimiter)"
            ));
        }
        Ok(InputFile {
            file: text("file")?
                .ok_or("an input table needs `file = \"...\"`")?
                .into(),
            shape: text("as")?
                .map(|s| {
                    <crate::data::Shape as clap::ValueEnum>::from_str(&s, false)
                        .map_err(|_| format!("`as` must be \"rows\" or \"vector\", not \"{s}\""))
                })
                .transpose()?,
            delimiter: text("delimiter")?
                .map(|d| crate::data::parse_delimiter(&d))
                .transpose()?,
        })
    }
}

/// `--threads`: a count, or `auto`: this host's cores shared by the
/// parties it runs, at least 1. Where that is 1 (at most a core per
/// party), the engine runs a second lane that fills the first one's waits
/// when the batch is long enough to pay for its memory
/// ([`huddle_engine::FILLER_MIN_SLICES`]), and gives the TTP and
/// garbling two threads.
///
/// Lanes are independent runs on slices of the batch, so a lane waiting for
/// a message leaves the core to another: on the 2-core machines measured,
/// three Trio and four Quad parties ran long batches faster with two lanes
/// each than with one (docs/perf/2026-11-26-session-first.md), and batches
/// of fewer than 8 slices faster as one lane of half the slice
/// (docs/perf/2026-11-28-threads-auto-one-lane.md).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(untagged, try_from = "Setting")]
pub enum Threads {
    Count(usize),
    Auto(Auto),
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Auto {
    Auto,
}

impl std::str::FromStr for Threads {
    type Err = String;
    fn from_str(s: &str) -> Result<Threads, String> {
        match s {
            "auto" => Ok(Threads::Auto(Auto::Auto)),
            n => match n.parse::<usize>() {
                Ok(k) if k >= 1 => Ok(Threads::Count(k)),
                _ => Err(format!(
                    "`{n}` is neither `auto` nor a number of threads from 1"
                )),
            },
        }
    }
}

/// A job setting that is a number or a word, as written (to name a bad
/// value in the error rather than serde's untagged-enum message).
#[derive(Deserialize)]
#[serde(untagged)]
enum Setting {
    Number(i64),
    Word(String),
}

impl TryFrom<Setting> for Threads {
    type Error = String;
    fn try_from(v: Setting) -> Result<Threads, String> {
        match v {
            Setting::Number(n) if n >= 1 => Ok(Threads::Count(n as usize)),
            Setting::Word(w) if w == "auto" => Ok(Threads::Auto(Auto::Auto)),
            Setting::Number(n) => Err(format!("threads must be at least 1 or \"auto\", not {n}")),
            Setting::Word(w) => Err(format!("threads must be a number or \"auto\", not \"{w}\"")),
        }
    }
}

impl TryFrom<Setting> for RevealTo {
    type Error = String;
    fn try_from(v: Setting) -> Result<RevealTo, String> {
        match v {
            Setting::Number(n) if n >= 0 => Ok(RevealTo::Party(n as usize)),
            Setting::Word(w) if w == "all" => Ok(RevealTo::Everyone(Everyone::All)),
            Setting::Number(n) => Err(format!("reveal_to must be a party id or \"all\", not {n}")),
            Setting::Word(w) => Err(format!(
                "reveal_to must be a party id or \"all\", not \"{w}\""
            )),
        }
    }
}

impl Threads {
    /// The count for a party on a host that runs `parties_here` parties,
    /// and whether it was `auto`'s choice.
    pub fn resolve(self, parties_here: usize) -> (usize, bool) {
        match self {
            Threads::Count(k) => (k, false),
            Threads::Auto(_) => {
                let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
                ((cores / parties_here.max(1)).max(1), true)
            }
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(untagged, try_from = "Setting")]
pub enum RevealTo {
    Party(usize),
    Everyone(Everyone),
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Everyone {
    All,
}

/// A job read from its file.
pub struct LoadedJob {
    pub job: Job,
    /// The file, as given (for errors).
    pub path: PathBuf,
    dir: PathBuf,
}

impl LoadedJob {
    pub fn read(path: &Path) -> Result<LoadedJob, String> {
        let name = format!("--job {}", path.display());
        let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
        let job: Job = toml::from_str(&text).map_err(|e| format!("{name}: {e}"))?;
        match (&job.circuit, &job.generate) {
            (Some(_), Some(_)) => {
                return Err(format!(
                    "{name}: give `circuit` (a file) or `[generate]`, not both"
                ))
            }
            (None, None) => {
                return Err(format!(
                    "{name}: no circuit: give `circuit = \"file\"` or a `[generate]` table"
                ))
            }
            _ => {}
        }
        let inputs = job.inputs.keys();
        for (what, keys) in [
            ("inputs", inputs.collect::<Vec<_>>()),
            ("outputs", job.outputs.keys().collect()),
        ] {
            for key in keys {
                if key.parse::<usize>().is_err() {
                    return Err(format!(
                        "{name}: [{what}] keys are party ids (0, 1, ...), not `{key}`"
                    ));
                }
            }
        }
        Ok(LoadedJob {
            job,
            path: path.to_path_buf(),
            dir: path.parent().unwrap_or(Path::new(".")).to_path_buf(),
        })
    }

    /// A path of the job, relative to the job file's folder.
    pub fn resolve(&self, path: &Path) -> PathBuf {
        if path.is_absolute() || path == Path::new("-") {
            path.to_path_buf()
        } else {
            self.dir.join(path)
        }
    }

    /// The circuit the job names: its file (resolved), or generated.
    pub fn circuit(&self) -> Result<CircuitSource, String> {
        if let Some(file) = &self.job.circuit {
            return Ok(CircuitSource::File(self.resolve(file)));
        }
        let Some(g) = &self.job.generate else {
            return Err(format!("--job {}: no circuit", self.path.display()));
        };
        let circuit = crate::circuit_cmd::generate(&g.spec())
            .map_err(|e| format!("--job {} [generate]: {e}", self.path.display()))?;
        Ok(CircuitSource::Generated(Box::new(circuit)))
    }

    /// Every party's file in `[inputs]` (`outputs` false) or `[outputs]`:
    /// (party id, path resolved); the ids were checked when reading.
    pub fn files(&self, outputs: bool) -> Vec<(usize, PathBuf)> {
        let files: Vec<(&String, &Path)> = if outputs {
            self.job
                .outputs
                .iter()
                .map(|(k, f)| (k, f.as_path()))
                .collect()
        } else {
            self.job
                .inputs
                .iter()
                .map(|(k, f)| (k, f.file.as_path()))
                .collect()
        };
        files
            .into_iter()
            .filter_map(|(k, f)| Some((k.parse().ok()?, self.resolve(f))))
            .collect()
    }

    /// Party `party`'s input file's own `as` and `delimiter`, if any.
    pub fn input_options(
        &self,
        party: usize,
    ) -> (Option<crate::data::Shape>, Option<crate::data::Delimiter>) {
        self.job
            .inputs
            .iter()
            .find(|(k, _)| k.parse() == Ok(party))
            .map_or((None, None), |(_, f)| (f.shape, f.delimiter))
    }

    /// How party `party`'s input file reads: [`LoadedJob::input_options`]
    /// over `base` (the command line's).
    pub fn input_style(&self, party: usize, base: crate::data::Style) -> crate::data::Style {
        let (shape, delimiter) = self.input_options(party);
        crate::data::Style {
            shape: shape.unwrap_or(base.shape),
            delimiter: delimiter.or(base.delimiter),
            ..base
        }
    }

    /// The hello's settings of the job: every key that changes the joint
    /// computation as `job.<key>` (always all of them, so that two jobs
    /// line up key by key and a difference is named), and a hash of them.
    pub fn hello_settings(&self) -> (Settings, String) {
        use sha2::{Digest, Sha256};
        // Paths are per host: the circuit's content is compared instead.
        let shared = Job {
            circuit: None,
            inputs: BTreeMap::new(),
            outputs: BTreeMap::new(),
            ..self.job.clone()
        };
        let mut settings = Settings::new();
        let mut hash = Sha256::new();
        if let Ok(serde_json::Value::Object(map)) = serde_json::to_value(&shared) {
            for (key, v) in map {
                if key == "circuit" || key == "inputs" || key == "outputs" {
                    continue;
                }
                hash.update(format!("{key}={v}\n").as_bytes());
                let value = match v {
                    serde_json::Value::Null => Value::Absent,
                    serde_json::Value::Bool(b) => Value::Bool(b),
                    serde_json::Value::String(s) => Value::Text(s),
                    serde_json::Value::Number(n) => n
                        .as_u64()
                        .map_or_else(|| Value::Text(n.to_string()), Value::Number),
                    other => Value::Text(other.to_string()),
                };
                settings.set(format!("job.{key}"), Form::Job, value);
            }
        }
        let digest: String = hash.finalize()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        (settings, digest)
    }
}

/// Where a run's circuit comes from.
pub enum CircuitSource {
    File(PathBuf),
    Generated(Box<huddle_circuit::Circuit>),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(text: &str) -> Result<LoadedJob, String> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("job.toml");
        std::fs::write(&path, text).expect("write");
        LoadedJob::read(&path)
    }

    #[test]
    fn jobs_name_what_is_wrong_with_them() {
        let e = job("protocol = \"trio\"\n").err().expect("no circuit");
        assert!(e.contains("no circuit"), "{e}");
        let e = job("circuit = \"a.txt\"\n[generate]\nkind = \"adder\"\n")
            .err()
            .expect("both");
        assert!(e.contains("not both"), "{e}");
        let e = job("circuit = \"a.txt\"\nprotocl = \"trio\"\n")
            .err()
            .expect("typo");
        assert!(e.contains("unknown field `protocl`"), "{e}");
        let e = job("circuit = \"a.txt\"\n[inputs]\nalice = \"a.csv\"\n")
            .err()
            .expect("key");
        assert!(e.contains("party ids"), "{e}");
        let e = job("circuit = \"a.txt\"\nbatch = \"ten\"\n")
            .err()
            .expect("type");
        assert!(e.contains("batch"), "{e}");
        // Settings that take a number or a word name both.
        for (text, want) in [
            (
                "threads = \"many\"",
                "threads must be a number or \"auto\", not \"many\"",
            ),
            (
                "threads = 0",
                "threads must be at least 1 or \"auto\", not 0",
            ),
            (
                "reveal_to = \"some\"",
                "reveal_to must be a party id or \"all\", not \"some\"",
            ),
            (
                "reveal_to = -1",
                "reveal_to must be a party id or \"all\", not -1",
            ),
        ] {
            let e = job(&format!("circuit = \"a.txt\"\n{text}\n"))
                .err()
                .expect(text);
            assert!(e.contains(want), "{text}: {e}");
        }
        for (text, threads, reveal) in [
            (
                "threads = \"auto\"\nreveal_to = \"all\"",
                Threads::Auto(Auto::Auto),
                RevealTo::Everyone(Everyone::All),
            ),
            (
                "threads = 3\nreveal_to = 2",
                Threads::Count(3),
                RevealTo::Party(2),
            ),
        ] {
            let j = job(&format!("circuit = \"a.txt\"\n{text}\n")).expect(text);
            assert_eq!(
                (j.job.threads, j.job.reveal_to),
                (Some(threads), Some(reveal))
            );
        }
    }

    #[test]
    fn sizes_and_input_tables_read_in_either_form() {
        let j = job("[generate]\nkind = \"vecmat\"\nsize = 3\n").expect("one number");
        assert_eq!(
            j.job.generate.as_ref().map(|g| g.size.clone()),
            Some(vec![3])
        );
        let j = job("[generate]\nkind = \"perceptron\"\nsize = [4, 2, 1]\n").expect("a list");
        assert_eq!(j.job.generate.map(|g| g.size), Some(vec![4, 2, 1]));
        let e = job("[generate]\nkind = \"vecmat\"\nsize = \"3\"\n")
            .err()
            .expect("a word");
        assert!(
            e.contains("size must be a number or a list of numbers"),
            "{e}"
        );
        let j = job(
            "circuit = \"c.txt\"\n[inputs]\n0 = \"a.csv\"\n[inputs.1]\nfile = \"b.csv\"\n\
             as = \"vector\"\ndelimiter = \";\"\n",
        )
        .expect("both forms");
        let files: Vec<String> = j
            .files(false)
            .iter()
            .map(|(p, f)| {
                format!(
                    "{p}:{}",
                    f.file_name().map_or("".into(), |n| n.to_string_lossy())
                )
            })
            .collect();
        assert_eq!(files, ["0:a.csv", "1:b.csv"]);
        assert_eq!(j.input_options(0), (None, None));
        assert_eq!(
            j.input_options(1),
            (
                Some(crate::data::Shape::Vector),
                Some(crate::data::parse_delimiter(";").expect("sep"))
            )
        );
        for (table, want) in [
            (
                "as = \"column\"\nfile = \"b.csv\"",
                "`as` must be \"rows\" or \"vector\"",
            ),
            (
                "file = \"b.csv\"\nshape = \"vector\"",
                "unknown key `shape`",
            ),
            ("as = \"vector\"", "needs `file"),
            ("file = \"b.csv\"\ndelimiter = \"|\"", "not a separator"),
        ] {
            let e = job(&format!("circuit = \"c.txt\"\n[inputs.1]\n{table}\n"))
                .err()
                .expect(table);
            assert!(e.contains(want), "{table}: {e}");
        }
    }

    #[test]
    fn the_hello_names_each_setting_and_ignores_paths() {
        let a = job(
            "circuit = \"a.txt\"\nprotocol = \"trio\"\nowners = [1, 0]\n[inputs]\n0 = \"x.csv\"\n",
        )
        .expect("job");
        let b = job("circuit = \"/b/c.txt\"\nprotocol = \"trio\"\nowners = [0, 1]\n[inputs]\n0 = \"y.csv\"\n")
            .expect("job");
        let same = job("circuit = \"z.txt\"\nprotocol = \"trio\"\nowners = [1, 0]\n").expect("job");
        let ((sa, ha), (sb, hb)) = (a.hello_settings(), b.hello_settings());
        assert_eq!(
            (&sa, &ha),
            (&same.hello_settings().0, &same.hello_settings().1)
        );
        assert_ne!(ha, hb);
        let differ: Vec<(&str, &Value, &Value)> = sa
            .iter()
            .zip(sb.iter())
            .filter(|(x, y)| x != y)
            .map(|(x, y)| (x.name.as_str(), &x.value, &y.value))
            .collect();
        assert_eq!(differ.len(), 1, "{differ:?}");
        assert_eq!(
            differ[0],
            (
                "job.owners",
                &Value::Text("[1,0]".into()),
                &Value::Text("[0,1]".into())
            )
        );
        let protocol = sa.get("job.protocol").map(|s| (s.form, s.value.clone()));
        assert_eq!(protocol, Some((Form::Job, Value::Text("trio".into()))));
        assert_eq!(sa.get("job.batch").map(|s| &s.value), Some(&Value::Absent));
    }
}
