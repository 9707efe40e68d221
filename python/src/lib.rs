//! The `huddle` Python package's native module (`huddle._huddle`): huddle's
//! typed secret programs, circuits, generators and runs for Python, through
//! huddle_circuit's and huddle_engine's public API only. python/huddle/
//! re-exports it; docs/python.md is its reference.

mod circuit;
mod errors;
mod gen;
mod indexing;
mod inputs;
mod pack;
mod party;
mod program;
mod program_data;
mod program_run;
mod program_state;
mod report;
mod run;
mod secret;
mod types;
mod values;

use pyo3::prelude::*;

#[pymodule]
fn _huddle(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // The allocator settings of the `huddle` command: without them a run
    // of every party in this process pays page faults for each round's
    // buffers (a third slower on 10^6 64-bit products).
    huddle_engine::keep_freed_memory();
    m.add_class::<circuit::Circuit>()?;
    m.add_class::<report::Outputs>()?;
    m.add_class::<report::Report>()?;
    m.add_class::<report::RunResult>()?;
    m.add_class::<party::Party>()?;
    m.add_class::<program_state::Program>()?;
    m.add_class::<secret::Value>()?;
    types::register(m)?;
    m.add_function(wrap_pyfunction!(run::run_local, m)?)?;
    m.add_function(wrap_pyfunction!(run::evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(protocols, m)?)?;
    m.add_submodule(&gen::module(py)?)?;
    errors::register(m)?;
    Ok(())
}

/// The protocols this build runs, by the names run_local takes.
#[pyfunction]
fn protocols() -> Vec<&'static str> {
    huddle_engine::Protocol::ALL
        .iter()
        .map(|p| p.name())
        .collect()
}
