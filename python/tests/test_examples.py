"""Every example runs as a user runs it (`python python/examples/X.py`):
it exits 0 (each asserts its result against the plaintext answer) and
prints its result."""

import pathlib
import re
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
README = pathlib.Path(__file__).resolve().parents[2] / "README.md"

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


def test_the_readme_python_example_runs_and_prints_what_it_says():
    section = README.read_text().split("## Python\n", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    first, second = run.stdout.splitlines()
    assert first == "[87] [191]"
    rounds, total_bytes = map(int, second.split())
    assert rounds > 0 and total_bytes > 0
