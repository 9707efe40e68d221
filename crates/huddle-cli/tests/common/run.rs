//! `huddle local` and `huddle party` invocations built from the settings
//! the tests repeat, and what the tests read from a finished command.

use super::huddle;
use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// One `huddle` command line: `local` or `party` with the settings the
/// tests repeat as methods, anything else through [`Run::arg`] and
/// [`Run::args`]. Runs like [`huddle`] (the ledger of spent deals in the
/// build's scratch folder).
#[derive(Clone)]
pub struct Run {
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
}

/// `huddle local --protocol PROTOCOL`.
pub fn local(protocol: &str) -> Run {
    Run::new(["local"]).protocol(protocol)
}

/// `huddle party --config CFG --id ID` (the protocol and the rest to add).
pub fn party(cfg: &Path, id: usize) -> Run {
    Run::new(["party", "--config"])
        .arg(cfg)
        .args(["--id", &id.to_string()])
}

impl Run {
    /// `huddle ARGS`, for a command line that fits neither [`local`] nor
    /// [`party`].
    pub fn new<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Run {
        Run {
            args: Vec::new(),
            env: Vec::new(),
        }
        .args(args)
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Run {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    pub fn args<S: AsRef<OsStr>>(self, args: impl IntoIterator<Item = S>) -> Run {
        args.into_iter().fold(self, Run::arg)
    }

    /// `--protocol NAME`.
    pub fn protocol(self, name: &str) -> Run {
        self.args(["--protocol", name])
    }

    /// `--circuit PATH`.
    pub fn circuit(self, path: impl AsRef<OsStr>) -> Run {
        self.arg("--circuit").arg(path)
    }

    /// One `--input VALUE` for each of `values`, in order.
    pub fn input(self, values: &[&str]) -> Run {
        values.iter().fold(self, |run, v| run.args(["--input", v]))
    }

    /// `--batch N`.
    pub fn batch(self, n: u64) -> Run {
        self.args(["--batch", &n.to_string()])
    }

    /// `--parties N`.
    pub fn parties(self, n: usize) -> Run {
        self.args(["--parties", &n.to_string()])
    }

    /// `--check`.
    pub fn check(self) -> Run {
        self.arg("--check")
    }

    /// `--json`.
    pub fn json(self) -> Run {
        self.arg("--json")
    }

    /// An environment variable of the process.
    pub fn env(mut self, key: &str, value: &str) -> Run {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The command, ready to run.
    pub fn command(&self) -> Command {
        let mut c = huddle();
        c.args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        c
    }

    /// Runs the command to its end: its exit status, stdout and stderr.
    pub fn output(&self) -> Output {
        self.command().output().expect("run huddle")
    }

    /// Starts the command with stdout and stderr piped, to be awaited.
    pub fn spawn(&self) -> Child {
        self.command()
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn huddle")
    }
}

/// The command line as it would be typed, for failure messages.
impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("huddle")?;
        for a in &self.args {
            write!(f, " {}", a.to_string_lossy())?;
        }
        Ok(())
    }
}

/// `huddle ARGS` to its end.
pub fn run(args: &[&str]) -> Output {
    huddle().args(args).output().expect("run huddle")
}

/// What a finished command wrote to stderr.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The JSON report of a command that must have succeeded (`what` names
/// the run in a failure).
pub fn json_of(o: &Output, what: &str) -> serde_json::Value {
    assert!(
        o.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("json")
}
