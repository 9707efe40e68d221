//! How a command fails: a message and the kind of failure, whose exit code
//! ([`Exit`], the one table of codes) tells the kinds apart, so scripts can
//! react without parsing messages. Every error names its kind where it is
//! made: a string error is not bad input by default.

use huddle_engine::error::RunError;
use huddle_engine::exit::Exit;
use huddle_engine::LocalError;
use huddle_net::NetError;

pub struct Failure {
    pub exit: Exit,
    pub message: String,
}

impl Failure {
    pub fn new(exit: Exit, message: impl Into<String>) -> Failure {
        Failure {
            exit,
            message: message.into(),
        }
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

impl From<RunError> for Failure {
    fn from(e: RunError) -> Failure {
        Failure::new(e.exit(), e.to_string())
    }
}

impl From<LocalError> for Failure {
    fn from(e: LocalError) -> Failure {
        Failure::new(e.error.exit(), e.to_string())
    }
}

impl From<NetError> for Failure {
    fn from(e: NetError) -> Failure {
        RunError::Net(e).into()
    }
}
