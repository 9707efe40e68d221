"""Every example runs as a user runs it (`python python/examples/X.py`):
it exits 0 (each asserts its result against the plaintext answer) and
prints its result."""

import pathlib
import re
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"

# example: a line its output must hold (the result it checked)
KEY_LINES = {
    "hospitals": r"^max age: 101$",
    "auction": r"^winner: bidder 4, pays 977$",
    "equality_join": r"^A's ids in B's list: \[5060, 31337, 4, 123456\]$",
    "aes": r"^ciphertext: 69c4e0d86a7b0430d8cdb78070b4c55a$",
    "perceptron": r"^largest score error: ",
    "millionaires": r"^quad +4 +\d+ +\d+ +\d+\.\d\d$",
}


def test_every_example_is_tested():
    assert sorted(p.stem for p in EXAMPLES.glob("*.py")) == sorted(KEY_LINES)


@pytest.mark.parametrize("name", sorted(KEY_LINES))
def test_example_runs_and_prints_its_result(name):
    run = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py")],
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only
    )
    assert run.returncode == 0, f"{name} failed:\n{run.stdout}\n{run.stderr}"
    assert re.search(KEY_LINES[name], run.stdout, re.MULTILINE), run.stdout
