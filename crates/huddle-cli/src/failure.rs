//! How a command fails: a message and an exit code that tells the kind of
//! failure apart (bad input, a peer caught cheating, the network, a resource
//! limit, a bug), so scripts can react without parsing messages.

use huddle_engine::ttp::{exit, RunError};
use huddle_engine::LocalError;
use huddle_net::NetError;

pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    /// A failure of no particular kind (benchmarks, the demo).
    pub fn other(message: impl Into<String>) -> Failure {
        Failure {
            code: exit::OTHER,
            message: message.into(),
        }
    }

    pub fn network(message: impl Into<String>) -> Failure {
        Failure {
            code: exit::NETWORK,
            message: message.into(),
        }
    }
}

/// Errors the commands spell out themselves are about their input.
impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure {
            code: exit::INPUT,
            message,
        }
    }
}

impl From<RunError> for Failure {
    fn from(e: RunError) -> Failure {
        Failure {
            code: e.exit_code(),
            message: e.to_string(),
        }
    }
}

impl From<LocalError> for Failure {
    fn from(e: LocalError) -> Failure {
        Failure {
            code: e.error.exit_code(),
            message: e.to_string(),
        }
    }
}

impl From<NetError> for Failure {
    fn from(e: NetError) -> Failure {
        RunError::Net(e).into()
    }
}
