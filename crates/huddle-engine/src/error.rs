//! The engine's error type: every failure of a run, by kind, each kind with
//! its exit code ([`crate::exit`]).

use crate::exit::Exit;
use huddle_net::{NetError, PartyId};

/// Why a run failed. The kinds are distinct so that callers and tests can
/// tell a typo from a cheating peer, and the CLI exits with a code per kind
/// ([`RunError::exit`]).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Bad input from the user or a file: request, options, circuit, input
    /// values, dealt material. Nothing was sent, or the run stopped before
    /// anything secret was.
    #[error("{0}")]
    Input(String),
    /// A request refused for a reason a caller may act on, told by its
    /// kind ([`Refusal`]); like [`RunError::Input`], nothing was sent.
    #[error("{message}")]
    Refused {
        /// Why, as a type.
        refusal: Refusal,
        /// Why, as the user reads it.
        message: String,
    },
    /// A check of the protocol failed: a peer deviated (or a message was
    /// tampered with). Every honest party that sees it stops without output.
    #[error("abort: {check}")]
    Abort {
        /// The check that failed.
        check: String,
        /// The party the failed check points at, where one does.
        culprit: Option<PartyId>,
    },
    /// The network failed or a peer broke the transport's rules (names the peer).
    #[error(transparent)]
    Net(#[from] NetError),
    /// The run would exceed a resource of this machine (memory).
    #[error("{0}")]
    Resource(String),
    /// The operating system gave no randomness.
    #[error("no randomness from the operating system: {0}")]
    Entropy(String),
    /// A bug in huddle: an invariant did not hold.
    #[error("internal error (a bug in huddle): {0}")]
    Internal(String),
}

/// The kind of a [`RunError::Refused`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The party count gives no security (a corruption threshold of 0):
    /// the protocol needs at least `smallest` parties.
    NoSecurity {
        /// The smallest party count with any security.
        smallest: usize,
    },
    /// An option does not apply to the protocol, or not together with
    /// another option; `option` is its command-line name.
    Option {
        /// The option refused (`split-roles`, `corrupt`, ...).
        option: &'static str,
    },
}

impl RunError {
    /// A failed check that points at `culprit`.
    pub fn abort(check: impl Into<String>, culprit: Option<PartyId>) -> RunError {
        RunError::Abort {
            check: check.into(),
            culprit,
        }
    }

    /// A refusal of kind `refusal`, saying `message`.
    pub fn refused(refusal: Refusal, message: impl Into<String>) -> RunError {
        RunError::Refused {
            refusal,
            message: message.into(),
        }
    }

    /// How the command ends ([`Exit`]: the exit-code table).
    pub fn exit(&self) -> Exit {
        match self {
            RunError::Input(_) | RunError::Refused { .. } => Exit::Input,
            RunError::Abort { .. } => Exit::Abort,
            // A peer that sends what the protocol never sends broke its rules.
            RunError::Net(
                NetError::UnexpectedLength { .. }
                | NetError::Oversized { .. }
                | NetError::Link { .. },
            ) => Exit::Abort,
            RunError::Net(NetError::Mismatch(_)) => Exit::Mismatch,
            RunError::Net(NetError::Interrupted(_)) => Exit::Interrupted,
            // A peer stopped the run (what it saw is in its own exit code).
            RunError::Net(_) => Exit::Network,
            RunError::Resource(_) => Exit::Resource,
            RunError::Entropy(_) | RunError::Internal(_) => Exit::Internal,
        }
    }

    /// The process exit code of [`RunError::exit`].
    pub fn exit_code(&self) -> u8 {
        self.exit().code()
    }
}
