//! The exceptions: `huddle.HuddleError` and one subclass per category of
//! the engine's exit-code table ([`Exit`]), so that a Python caller tells a
//! typo from a cheating peer as the CLI's exit code does. Messages are the
//! engine's, unchanged; the category's name and exit code are class
//! attributes taken from [`Exit`] (not restated here).

use huddle_circuit::program::{ErrorKind, ProgramError as BuildError};
use huddle_engine::error::{Refusal, RunError};
use huddle_engine::exit::Exit;
use huddle_engine::LocalError;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};

pyo3::create_exception!(
    huddle,
    HuddleError,
    PyException,
    "Base of every error huddle raises. `category` and `exit_code` are the \
     row of huddle's exit-code table (docs/cli.md) the error belongs to; \
     `party`, where set, is the party of a local run whose error it is."
);
pyo3::create_exception!(
    huddle,
    InputError,
    HuddleError,
    "Bad input: circuit, protocol, options, input values. Nothing secret was sent."
);
pyo3::create_exception!(
    huddle,
    RefusedError,
    InputError,
    "A request refused for a reason a caller may act on: `refusal` is \
     'option' (then `option` names it) or 'no-security' (then `smallest` is \
     the least party count that gives any)."
);
pyo3::create_exception!(
    huddle,
    AbortError,
    HuddleError,
    "A check of the protocol failed: a party deviated or a message was \
     tampered with; no output was released. `culprit` is the party the \
     check points at, or None."
);
pyo3::create_exception!(
    huddle,
    NetworkError,
    HuddleError,
    "The network failed, or a peer stopped the run."
);
pyo3::create_exception!(
    huddle,
    MismatchError,
    HuddleError,
    "The parties disagree on the run (settings, circuit, ...); found at connect."
);
pyo3::create_exception!(
    huddle,
    ResourceError,
    HuddleError,
    "A resource of this machine (memory) would be exceeded."
);
pyo3::create_exception!(
    huddle,
    InternalError,
    HuddleError,
    "A bug in huddle (please report it), or no randomness from the OS."
);
pyo3::create_exception!(
    huddle,
    InterruptedRunError,
    HuddleError,
    "The run was cancelled (Ctrl-C in this process raises KeyboardInterrupt instead)."
);

/// Adds the classes to the module, each with its row of the exit table.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let classes: [(&str, Bound<'_, PyType>, Option<Exit>); 9] = [
        ("HuddleError", py.get_type::<HuddleError>(), None),
        ("InputError", py.get_type::<InputError>(), Some(Exit::Input)),
        (
            "RefusedError",
            py.get_type::<RefusedError>(),
            Some(Exit::Input),
        ),
        ("AbortError", py.get_type::<AbortError>(), Some(Exit::Abort)),
        (
            "NetworkError",
            py.get_type::<NetworkError>(),
            Some(Exit::Network),
        ),
        (
            "MismatchError",
            py.get_type::<MismatchError>(),
            Some(Exit::Mismatch),
        ),
        (
            "ResourceError",
            py.get_type::<ResourceError>(),
            Some(Exit::Resource),
        ),
        (
            "InternalError",
            py.get_type::<InternalError>(),
            Some(Exit::Internal),
        ),
        (
            "InterruptedRunError",
            py.get_type::<InterruptedRunError>(),
            Some(Exit::Interrupted),
        ),
    ];
    for (name, class, exit) in classes {
        class.setattr("category", exit.map(Exit::name))?;
        class.setattr("exit_code", exit.map(Exit::code))?;
        for attribute in ["party", "culprit", "refusal", "option", "smallest"] {
            if !class.hasattr(attribute)? {
                class.setattr(attribute, py.None())?;
            }
        }
        m.add(name, class)?;
    }
    let program = program_error_type(py)?;
    program.setattr("category", Exit::Input.name())?;
    program.setattr("exit_code", Exit::Input.code())?;
    program.setattr("kind", py.None())?;
    m.add("ProgramError", program)?;
    Ok(())
}

/// `huddle.ProgramError`: a HuddleError and a ValueError (two bases, so
/// made by `type()` rather than `create_exception!`), made once.
fn program_error_type(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
    static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let class = CLASS.get_or_try_init(py, || -> PyResult<Py<PyType>> {
        let namespace = PyDict::new(py);
        namespace.set_item("__module__", "huddle")?;
        namespace.set_item(
            "__doc__",
            "A program cannot be built, compiled or fed as written: the message \
             names the operation and the types or shapes involved. `kind` is \
             'type', 'shape', 'ring' (a second ring width), 'value' or 'usage'.",
        )?;
        let bases = (
            py.get_type::<HuddleError>(),
            py.get_type::<pyo3::exceptions::PyValueError>(),
        );
        let class =
            py.import("builtins")?
                .getattr("type")?
                .call1(("ProgramError", bases, namespace))?;
        Ok(class.cast_into::<PyType>()?.unbind())
    })?;
    Ok(class.bind(py).clone())
}

/// The `huddle.ProgramError` of the program layer's error.
pub(crate) fn program_error(py: Python<'_>, error: &BuildError) -> PyErr {
    let kind = match error.kind {
        ErrorKind::Type => "type",
        ErrorKind::Shape => "shape",
        ErrorKind::Ring => "ring",
        ErrorKind::Value => "value",
        ErrorKind::Usage => "usage",
        ErrorKind::Entropy => "entropy",
    };
    match program_error_type(py) {
        Ok(class) => {
            let err = PyErr::from_type(class, error.message.clone());
            // Best effort, as the other attributes: the class is right regardless.
            let _ = err.value(py).setattr("kind", kind);
            err
        }
        Err(e) => e,
    }
}

/// A [`program_error`] of `kind` the binding itself finds (a shape that
/// is no shape, a program used after compiling).
pub(crate) fn program_misuse(py: Python<'_>, kind: ErrorKind, message: impl Into<String>) -> PyErr {
    program_error(
        py,
        &BuildError {
            kind,
            message: message.into(),
        },
    )
}

/// An [`InputError`] saying `message`: for input the binding itself
/// refuses (a value that does not fit its width, an unknown key).
pub(crate) fn input(message: impl Into<String>) -> PyErr {
    InputError::new_err(message.into())
}

/// The exception of a run's error, the message as the engine words it.
pub(crate) fn run_error(py: Python<'_>, error: &RunError) -> PyErr {
    raise(py, error, error.to_string(), None)
}

/// The exception of a local run's error: the engine's `party N: ...`.
pub(crate) fn local_error(py: Python<'_>, error: &LocalError) -> PyErr {
    raise(py, &error.error, error.to_string(), Some(error.party))
}

fn raise(py: Python<'_>, error: &RunError, message: String, party: Option<usize>) -> PyErr {
    let err = match error.exit() {
        Exit::Input if matches!(error, RunError::Refused { .. }) => RefusedError::new_err(message),
        Exit::Input => InputError::new_err(message),
        Exit::Abort => AbortError::new_err(message),
        Exit::Network => NetworkError::new_err(message),
        Exit::Mismatch => MismatchError::new_err(message),
        Exit::Resource => ResourceError::new_err(message),
        Exit::Internal => InternalError::new_err(message),
        Exit::Interrupted => InterruptedRunError::new_err(message),
        _ => HuddleError::new_err(message),
    };
    // Attributes are best effort: an exception without them is still right.
    let value = err.value(py);
    let _ = value.setattr("party", party);
    match error {
        RunError::Abort { culprit, .. } => {
            let _ = value.setattr("culprit", *culprit);
        }
        RunError::Refused { refusal, .. } => match refusal {
            Refusal::Option { option } => {
                let _ = value.setattr("refusal", "option");
                let _ = value.setattr("option", *option);
            }
            Refusal::NoSecurity { smallest } => {
                let _ = value.setattr("refusal", "no-security");
                let _ = value.setattr("smallest", *smallest);
            }
            // Refusal is non-exhaustive: a new kind is still a RefusedError.
            _ => {}
        },
        _ => {}
    }
    err
}
