//! Multiparty garbling's cost model (in progress).

use super::options::Variant;
use crate::cost::Cost;
use crate::error::RunError;
use huddle_circuit::Circuit;

/// The traffic of a garbling run.
pub(crate) fn predict(
    variant: Variant,
    _parties: usize,
    _circuit: &Circuit,
    _instances: usize,
    _options: &crate::RunOptions,
) -> Result<Cost, RunError> {
    Err(RunError::Input(format!("{} has no cost model yet", variant.name())))
}
