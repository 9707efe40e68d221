//! [`ReadError`], what every step of reading returns: each failure with the
//! line it was found on. Below the token stream, which reports it too.

use crate::model::ModelError;
use std::io;

/// A reading failure, with the 1-based line it was found on.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A token or line that does not fit the format.
    #[error("line {line}: {cause}")]
    Syntax {
        /// The 1-based line.
        line: usize,
        /// What is wrong with it.
        cause: String,
    },
    /// Well-formed syntax describing a circuit that is not well formed.
    #[error("line {line}: {source}")]
    Model {
        /// The 1-based line.
        line: usize,
        /// Why the circuit is rejected.
        source: ModelError,
    },
    /// The input ends before the header or gate list is complete.
    #[error("the file ends early: {expected} expected after line {line}")]
    Truncated {
        /// The last 1-based line read (0 if none).
        line: usize,
        /// What was still expected.
        expected: String,
    },
    /// The underlying reader failed.
    #[error("reading failed: {0}")]
    Io(#[from] io::Error),
}
