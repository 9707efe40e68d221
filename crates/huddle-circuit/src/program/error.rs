//! Why a program cannot be built, compiled or fed: [`ProgramError`], a
//! message naming the operation and the types or shapes involved, and a
//! [`ErrorKind`] a binding maps to its own exception classes.

use std::fmt;

/// What kind of mistake an error reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Operand types that do not fit the operation (e.g. `u8 + i8`).
    Type,
    /// Shapes that do not fit the operation.
    Shape,
    /// A ring width other than the program's one ring.
    Ring,
    /// A number or name that is not valid where it is given.
    Value,
    /// A program used wrongly: a party it does not have, a value of another
    /// program, an input not given.
    Usage,
    /// The operating system's random generator failed (drawing pads).
    Entropy,
}

/// A mistake in building, compiling or feeding a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramError {
    /// What kind of mistake.
    pub kind: ErrorKind,
    /// The message, naming the operation and what it was given.
    pub message: String,
}

impl ProgramError {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> ProgramError {
        ProgramError {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for ProgramError {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str(&self.message)
    }
}

impl std::error::Error for ProgramError {}

/// A `Result` of the program layer.
pub type Result<T> = std::result::Result<T, ProgramError>;

pub(crate) fn type_error<T>(message: impl Into<String>) -> Result<T> {
    Err(ProgramError::new(ErrorKind::Type, message))
}

pub(crate) fn shape_error<T>(message: impl Into<String>) -> Result<T> {
    Err(ProgramError::new(ErrorKind::Shape, message))
}

pub(crate) fn value_error<T>(message: impl Into<String>) -> Result<T> {
    Err(ProgramError::new(ErrorKind::Value, message))
}

pub(crate) fn usage_error<T>(message: impl Into<String>) -> Result<T> {
    Err(ProgramError::new(ErrorKind::Usage, message))
}
