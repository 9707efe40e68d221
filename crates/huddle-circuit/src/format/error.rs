//! [`ReadError`], what every step of reading returns: each failure with the
//! line it was found on. Below the token stream, which reports it too.

use crate::model::ModelError;
use std::io;

/// A reading failure, with the 1-based line it was found on.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("line {line}: {cause}")]
    Syntax { line: usize, cause: String },
    #[error("line {line}: {source}")]
    Model { line: usize, source: ModelError },
    #[error("the file ends early: {expected} expected after line {line}")]
    Truncated { line: usize, expected: String },
    #[error("reading failed: {0}")]
    Io(#[from] io::Error),
}
