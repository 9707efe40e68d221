# Type stubs of huddle.gen (generated circuits); docs/python.md.
from typing import Optional, Sequence

from . import Circuit

def boolean(kind: str, bits: int = 64, fanin: int = 2) -> Circuit: ...
def aes128(fanin: int = 2) -> Circuit: ...
def sha256(fanin: int = 2) -> Circuit: ...
def adder(bits: int, fanin: Optional[int] = None) -> Circuit: ...
def comparator(bits: int, op: str = "lt", fanin: int = 2) -> Circuit: ...
def application(kind: str, size: Sequence[int], bits: int = 64, frac: int = 16) -> Circuit: ...
def table(
    kinds: str,
    rows: int,
    parties: int = 3,
    bits: int = 32,
    signed: bool = False,
    threshold: Optional[int] = None,
    bounds: Sequence[int] = (),
) -> Circuit: ...
def random(
    gates: int,
    inputs: Sequence[int],
    ring: Optional[int] = None,
    boolean_inputs: Optional[int] = None,
    max_fanin: int = 2,
    seed: int = 0,
) -> Circuit: ...
