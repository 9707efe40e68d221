"""The current program of a thread (`with huddle.Program(parties=n):`) and
the module-level functions that build it: each forwards to the method of
the same name of the current `huddle.Program` (sugar only; the native
Program builds every gate)."""

import threading as _threading
from collections import namedtuple as _namedtuple

from ._huddle import ProgramError as _ProgramError

Rows = _namedtuple("Rows", ["values", "valid"])
Rows.__doc__ = """A variable-length input (huddle.input_rows): `values`, the rows up to
the declared maximum (zeros after the rows given), and `valid`, one bit per
row (1 for a row the party gave)."""

_local = _threading.local()


def _stack():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def _enter(program):
    """Program.__enter__: `program` becomes this thread's current program."""
    _stack().append(program)


def _exit(program):
    """Program.__exit__: the program entered before becomes current again."""
    stack = _stack()
    if stack and stack[-1] is program:
        stack.pop()
    elif program in stack:
        stack.remove(program)


def current():
    """The program of the innermost `with` block of this thread; ProgramError outside one."""
    stack = _stack()
    if not stack:
        error = _ProgramError(
            "no current program: build inside `with huddle.Program(parties=n):` "
            "or call prog.input(...)"
        )
        error.kind = "usage"
        raise error
    return stack[-1]


def input(party, type, shape=(), name=None):
    """A secret input of `party`, of `type` and `shape` (see Program.input)."""
    return current().input(party, type, shape, name)


def input_rows(party, type, max_rows, columns=None, name=None):
    """A variable-length input: Rows(values, valid) (see Program.input_rows)."""
    return current().input_rows(party, type, max_rows, columns, name)


def public(name, type, shape=()):
    """A public parameter every party gives at run time (see Program.public)."""
    return current().public(name, type, shape)


def constant(values, type):
    """Public numbers as a value of `type` (see Program.constant)."""
    return current().constant(values, type)


def reveal(value, to="all", name=None):
    """Makes `value` an output for party `to` or "all" (see Program.reveal)."""
    return current().reveal(value, to, name)


def select(cond, a, b):
    """`a` where the bit `cond` is 1, else `b`, elementwise."""
    return current().select(cond, a, b)


def sum(value):
    """The sum of all elements of `value` (wrapping)."""
    return current().sum(value)


def dot(a, b):
    """The dot product of two vectors."""
    return current().dot(a, b)


def matmul(a, b):
    """The matrix product (also `a @ b`)."""
    return current().matmul(a, b)


def min(a, b=None):
    """The least element of `a`, or the smaller of `a` and `b` elementwise."""
    return current().min(a, b)


def max(a, b=None):
    """The largest element of `a`, or the larger of `a` and `b` elementwise."""
    return current().max(a, b)


def abs(value):
    """|value| elementwise (also the builtin abs())."""
    return current().abs(value)


def stack(values):
    """Scalars into a vector, or vectors into a matrix (a row each)."""
    return current().stack(values)


def convert(value, type):
    """`value` as `type` (Rust's `as`; A2B / B2A between domains)."""
    return current().convert(value, type)
