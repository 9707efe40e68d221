//! How a command fails: a message and the kind of failure, whose exit code
//! ([`Exit`], the one table of codes) tells the kinds apart, so scripts can
//! react without parsing messages. Every error names its kind where it is
//! made: a string error is not bad input by default. A failure from the
//! engine keeps its [`RunError`], whose typed payloads `--json` prints
//! ([`Failure::json`], documented in docs/cli.md).

use huddle_engine::error::{FailedCheck, Refusal, RoleLane, RunError};
use huddle_engine::exit::Exit;
use huddle_engine::LocalError;
use huddle_net::{NetError, PartyId};
use serde::Serialize;

pub struct Failure {
    pub exit: Exit,
    pub message: String,
    /// The engine's error this failure is, if it is one (boxed: a
    /// `Result` carries a failure as small as it can).
    error: Option<Box<RunError>>,
    /// The party whose failure this is, where one is known.
    party: Option<PartyId>,
}

impl Failure {
    pub fn new(exit: Exit, message: impl Into<String>) -> Failure {
        Failure {
            exit,
            message: message.into(),
            error: None,
            party: None,
        }
    }

    /// This failure as party `party`'s (unless it names another already).
    pub fn of_party(mut self, party: PartyId) -> Failure {
        self.party = self.party.or(Some(party));
        self
    }

    /// The failure as `--json` prints it on stdout (docs/cli.md): one
    /// object under the key `error`, its keys in the documented order.
    pub fn json(&self) -> serde_json::Result<String> {
        let e = self.error.as_deref();
        let check = match e {
            Some(RunError::Abort { check, lane, .. }) => Some(CheckJson {
                check,
                role_lane: lane.as_ref(),
            }),
            _ => None,
        };
        let json = ErrorJson {
            kind: e.map_or(self.exit.name(), RunError::kind),
            exit: self.exit.name(),
            exit_code: self.exit.code(),
            message: &self.message,
            party: self.party,
            culprit: e.and_then(RunError::culprit),
            refusal: match e {
                Some(RunError::Refused { refusal, .. }) => Some(refusal),
                _ => None,
            },
            check,
        };
        serde_json::to_string_pretty(&Printed { error: json })
    }

    /// A benchmark or the demo failed.
    pub fn other(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Other, message)
    }

    /// Bad input from the user or a file; nothing secret was sent.
    pub fn input(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Input, message)
    }

    /// The outputs (or a file asked for) could not be written.
    pub fn output(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Output, message)
    }

    /// `--check` found outputs that differ from the expected ones.
    pub fn check(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Check, message)
    }

    pub fn network(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Network, message)
    }

    pub fn internal(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Internal, message)
    }
}

/// What `--json` prints on failure.
#[derive(Serialize)]
struct Printed<'a> {
    error: ErrorJson<'a>,
}

/// A failure as `--json` prints it (docs/cli.md documents each field).
#[derive(Serialize)]
struct ErrorJson<'a> {
    kind: &'static str,
    exit: &'static str,
    exit_code: u8,
    message: &'a str,
    party: Option<PartyId>,
    culprit: Option<PartyId>,
    refusal: Option<&'a Refusal>,
    check: Option<CheckJson<'a>>,
}

/// An abort's check: its kind and fields, and in a `--split-roles` run the
/// lane whose roles its party numbers are.
#[derive(Serialize)]
struct CheckJson<'a> {
    #[serde(flatten)]
    check: &'a FailedCheck,
    #[serde(skip_serializing_if = "Option::is_none")]
    role_lane: Option<&'a RoleLane>,
}

/// `result`, and with `json` its failure printed on stdout as
/// [`Failure::json`] (the message still goes to stderr, as without).
pub fn json_on_failure<T>(json: bool, result: Result<T, Failure>) -> Result<T, Failure> {
    if let (true, Err(failure)) = (json, &result) {
        // Best effort: the failure is reported anyway (stderr, exit code),
        // and a closed stdout is its cause or moot. (The JSON of these
        // types cannot fail to serialize: no maps, string keys only.)
        if let Ok(text) = failure.json() {
            use std::io::Write;
            let _ = writeln!(std::io::stdout().lock(), "{text}");
        }
    }
    result
}

impl From<RunError> for Failure {
    fn from(e: RunError) -> Failure {
        let mut failure = Failure::new(e.exit(), e.to_string());
        failure.error = Some(Box::new(e));
        failure
    }
}

impl From<LocalError> for Failure {
    fn from(e: LocalError) -> Failure {
        let mut failure = Failure::new(e.error.exit(), e.to_string());
        failure.error = Some(Box::new(e.error));
        failure.party = Some(e.party);
        failure
    }
}

impl From<NetError> for Failure {
    fn from(e: NetError) -> Failure {
        RunError::Net(e).into()
    }
}
