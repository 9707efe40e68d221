//! The life of a `huddle.Program`: built, then compiled once (by
//! `compile()` or by its first run; the circuit then kept), or spent by a
//! failed compile. Building after compiling is a ProgramError saying so.

use crate::circuit::Circuit;
use crate::errors::{program_error, program_misuse};
use crate::program::Program;
use huddle_circuit::program::{ErrorKind, Program as Inner, ProgramError as BuildError};
use pyo3::prelude::*;
use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard};

pub(crate) enum State {
    Building(Box<Building>),
    /// Compiled; `returned`: compile() has given the circuit out.
    Compiled {
        circuit: Circuit,
        returned: bool,
    },
    /// compile() failed with this message, consuming the program.
    Failed(String),
}

impl State {
    pub(crate) fn new(program: Inner) -> Mutex<State> {
        Mutex::new(State::Building(Box::new(Building {
            program,
            names: HashSet::new(),
            outputs: HashSet::new(),
        })))
    }
}

/// The program being built and the names the binding chose or saw, so
/// that default names ("in0", "out0") never collide with given ones.
pub(crate) struct Building {
    pub(crate) program: Inner,
    names: HashSet<String>,
    outputs: HashSet<String>,
}

impl Building {
    /// `given`, or the first free name `in<n>` of an input.
    pub(crate) fn input_name(&self, given: Option<String>) -> String {
        given.unwrap_or_else(|| free("in", &self.names))
    }

    /// `given`, or the first free name `out<n>` of an output.
    pub(crate) fn output_name(&self, given: Option<String>) -> String {
        given.unwrap_or_else(|| free("out", &self.outputs))
    }

    /// Notes an input or public parameter declared as `name`.
    pub(crate) fn declared(&mut self, name: String) {
        self.names.insert(name);
    }

    /// Notes an output revealed as `name`.
    pub(crate) fn revealed(&mut self, name: String) {
        self.outputs.insert(name);
    }
}

fn free(prefix: &str, taken: &HashSet<String>) -> String {
    (taken.len()..)
        .map(|n| format!("{prefix}{n}"))
        .find(|n| !taken.contains(n))
        .unwrap_or_default()
}

impl Program {
    fn state(&self) -> MutexGuard<'_, State> {
        // Nothing panics while the lock is held; a poisoned lock still
        // holds a consistent state.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// "building", "compiled" or "failed to compile".
    pub(crate) fn status(&self) -> &'static str {
        match &*self.state() {
            State::Building(_) => "building",
            State::Compiled { .. } => "compiled",
            State::Failed(_) => "failed to compile",
        }
    }

    /// Runs `f` on the program if it is still being built.
    pub(crate) fn build<R>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut Building) -> Result<R, BuildError>,
    ) -> PyResult<R> {
        match &mut *self.state() {
            State::Building(b) => f(b).map_err(|e| program_error(py, &e)),
            State::Compiled { .. } => Err(program_misuse(
                py,
                ErrorKind::Usage,
                "this program is compiled (by compile() or a run) and cannot grow: \
                 build a new huddle.Program",
            )),
            State::Failed(why) => Err(failed(py, why)),
        }
    }

    /// The compiled program, compiling it on first use (a run of a Program).
    pub(crate) fn compiled(&self, py: Python<'_>) -> PyResult<Circuit> {
        self.compile_once(py, false)
    }

    /// compile(): once; `by_caller` false for a run's compile, which the
    /// caller's compile() may follow and get the same circuit.
    pub(crate) fn compile_once(&self, py: Python<'_>, by_caller: bool) -> PyResult<Circuit> {
        let mut state = self.state();
        match &mut *state {
            State::Compiled { returned: true, .. } if by_caller => {
                return Err(program_misuse(
                    py,
                    ErrorKind::Usage,
                    "compile: this program is compiled already; use the Circuit the first \
                     compile() returned",
                ))
            }
            State::Compiled { circuit, returned } => {
                *returned |= by_caller;
                return Ok(circuit.clone());
            }
            State::Failed(why) => return Err(failed(py, why)),
            State::Building(_) => {}
        }
        let State::Building(b) = std::mem::replace(&mut *state, State::Failed(String::new()))
        else {
            unreachable!("matched above")
        };
        match b.program.compile() {
            Ok(compiled) => {
                let (circuit, interface) = compiled.into_parts();
                let circuit = Circuit::program(circuit, interface);
                *state = State::Compiled {
                    circuit: circuit.clone(),
                    returned: by_caller,
                };
                Ok(circuit)
            }
            Err(e) => {
                *state = State::Failed(e.message.clone());
                Err(program_error(py, &e))
            }
        }
    }
}

fn failed(py: Python<'_>, why: &str) -> PyErr {
    program_misuse(
        py,
        ErrorKind::Usage,
        format!("this program's compile failed ({why}); build a new huddle.Program"),
    )
}
