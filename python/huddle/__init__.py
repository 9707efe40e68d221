"""huddle: secure multiparty computation from Python.

Circuits (`Circuit.load`, `huddle.gen`), runs of every party in this
process (`run_local`), one party of a run across hosts (`Party`) and the
plaintext evaluator (`evaluate`); errors are
`HuddleError` subclasses, one per category of huddle's exit codes.
Reference: docs/python.md.
"""

import sys as _sys

from ._huddle import (
    AbortError,
    Circuit,
    HuddleError,
    InputError,
    InternalError,
    InterruptedRunError,
    MismatchError,
    NetworkError,
    Outputs,
    Party,
    RefusedError,
    Report,
    ResourceError,
    RunResult,
    evaluate,
    gen,
    protocols,
    run_local,
)

# The native submodule becomes importable as `huddle.gen` too.
_sys.modules[__name__ + ".gen"] = gen

__all__ = [
    "AbortError",
    "Circuit",
    "HuddleError",
    "InputError",
    "InternalError",
    "InterruptedRunError",
    "MismatchError",
    "NetworkError",
    "Outputs",
    "Party",
    "RefusedError",
    "Report",
    "ResourceError",
    "RunResult",
    "evaluate",
    "gen",
    "protocols",
    "run_local",
]
