# Type stubs of huddle (the native module huddle._huddle); docs/python.md.
from os import PathLike
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from . import gen as gen

_Path = Union[str, "PathLike[str]"]
# One input value: integers, bytes, or a 0/1 array (see run_local).
_Value = Union[int, bytes, Sequence[int], npt.ArrayLike]
_Inputs = Union[Sequence[_Value], Mapping[Union[int, str], Union[_Value, Sequence[_Value]]]]

class Circuit:
    """A Boolean, arithmetic or mixed circuit."""

    @staticmethod
    def load(path: _Path, format: str = "auto") -> Circuit: ...
    def save(self, path: _Path) -> None: ...
    def stats(self) -> Dict[str, Any]: ...
    def optimize(self, fanin: int = 4, depth: Optional[int] = None) -> Circuit: ...
    def hash(self) -> str: ...
    @property
    def inputs(self) -> List[Dict[str, Any]]: ...
    @property
    def outputs(self) -> List[Dict[str, Any]]: ...
    @property
    def ring(self) -> Optional[int]: ...
    @property
    def gates(self) -> int: ...

class Outputs:
    """Output values: uint8 bits (instances x bits) or uint64 ring elements (instances x elements)."""

    def __len__(self) -> int: ...
    def __getitem__(self, key: Union[int, str]) -> np.ndarray: ...
    def __iter__(self) -> Iterator[np.ndarray]: ...
    @property
    def names(self) -> List[str]: ...
    def integers(self, key: Union[int, str], signed: bool = False) -> np.ndarray: ...

class Report:
    """What a run cost (the JSON of `huddle local --json`)."""

    @property
    def protocol(self) -> str: ...
    @property
    def parties(self) -> int: ...
    @property
    def batch(self) -> int: ...
    @property
    def online_rounds(self) -> int: ...
    @property
    def rounds(self) -> Dict[str, int]: ...
    @property
    def bytes(self) -> Dict[str, Dict[str, int]]: ...
    @property
    def total_bytes(self) -> int: ...
    @property
    def seconds(self) -> Dict[str, float]: ...
    @property
    def wall_seconds(self) -> float: ...
    @property
    def gates_per_second(self) -> float: ...
    @property
    def threads(self) -> int: ...
    @property
    def warning(self) -> Optional[str]: ...
    def to_dict(self) -> Dict[str, Any]: ...

class RunResult:
    """A finished run: outputs and report."""

    @property
    def outputs(self) -> Outputs: ...
    @property
    def report(self) -> Report: ...
    def __getitem__(self, key: Union[int, str]) -> np.ndarray: ...

def run_local(
    circuit: Circuit,
    protocol: str,
    inputs: _Inputs,
    batch: Optional[int] = None,
    parties: Optional[int] = None,
    net: str = "lan",
    threads: int = 1,
    links: str = "memory",
    split_roles: bool = False,
    reveal_to: Optional[int] = None,
) -> RunResult: ...
class Party:
    """One party of a run across hosts, over TLS as a parties file sets it up."""

    def __init__(
        self,
        config: _Path,
        id: int,
        net: str = "lan",
        setup_timeout: float = 60.0,
        idle_timeout: float = 10.0,
    ) -> None: ...
    def run(
        self,
        circuit: Circuit,
        protocol: str,
        inputs: Optional[Union[_Value, Sequence[_Value], Mapping[str, _Value]]] = None,
        batch: Optional[int] = None,
        threads: int = 1,
        split_roles: bool = False,
        reveal_to: Optional[int] = None,
    ) -> RunResult: ...

def evaluate(circuit: Circuit, inputs: _Inputs, batch: Optional[int] = None) -> Outputs: ...
def protocols() -> List[str]: ...

class HuddleError(Exception):
    category: Optional[str]
    exit_code: Optional[int]
    party: Optional[int]

class InputError(HuddleError): ...

class RefusedError(InputError):
    refusal: Optional[str]
    option: Optional[str]
    smallest: Optional[int]

class AbortError(HuddleError):
    culprit: Optional[int]

class NetworkError(HuddleError): ...
class MismatchError(HuddleError): ...
class ResourceError(HuddleError): ...
class InternalError(HuddleError): ...
class InterruptedRunError(HuddleError): ...
