"""What the Python layer adds to a run: `huddle.run_local` on numpy arrays
(conversion in and out included) against one `Run::local` call of the Rust
library API on the same circuit and values in memory (`huddle bench
library --on-request`, a subprocess that times a call per request; the
circuit hashes are compared), one call of each per round, alternating,
both sides warmed up, medians; and the seconds of building a 10^6-gate
program from scalar Python code, where this build has `huddle.Program`.

    python python/benches/overhead.py [--batch 1000000] [--rounds 11]
        [--min-seconds 30] [--huddle target/release/huddle]
        [--cases aes128,mul64,program] [--verbose]

Build both sides in release first (docs/python.md, "Performance"):
`maturin develop --release -m python/Cargo.toml` into the environment
that runs this, and `cargo build --release -p huddle-cli`.
"""

import argparse
import datetime
import gc
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import huddle

REPO = pathlib.Path(__file__).resolve().parents[2]

# FIPS-197 Appendix C.1, as numbers whose bit j is the value's wire j.
FIPS_KEY = int("000102030405060708090a0b0c0d0e0f", 16)
FIPS_PLAINTEXT = int("00112233445566778899aabbccddeeff", 16)
FIPS_CIPHERTEXT = int("69c4e0d86a7b0430d8cdb78070b4c55a", 16)

# The products' inputs: x_i = (i + 1)·X, y_i = (i + 1)·Y mod 2^64, as
# `huddle bench library --case mul64` makes them.
X = 0x9E3779B97F4A7C15
Y = 0xD1B54A32D192ED03

# One product in Z_2^64 (docs/circuit-format.md), what the Rust side builds.
MUL64 = "ring 64\n1 3\n2 1r 1r\n1 1r\n\n2 1 0 1 2 MUL\n"


def bits(value, width):
    """A value as a row of 0/1 bytes, wire j in column j."""
    return np.array([(value >> j) & 1 for j in range(width)], dtype=np.uint8)


def aes128(batch):
    """AES-128, every instance on the FIPS-197 key and plaintext: inputs as
    batch × 128 bit arrays, the check of the ciphertexts."""
    circuit = huddle.gen.aes128()
    inputs = [np.tile(bits(v, 128), (batch, 1)) for v in (FIPS_KEY, FIPS_PLAINTEXT)]
    want = bits(FIPS_CIPHERTEXT, 128)

    def check(outputs):
        return outputs[0].shape == (batch, 128) and bool((outputs[0] == want).all())

    return circuit, inputs, check


def mul64(batch):
    """One 64-bit product per instance: inputs as uint64 arrays."""
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "mul64.txt"
        path.write_text(MUL64)
        circuit = huddle.Circuit.load(str(path))
    i = np.arange(1, batch + 1, dtype=np.uint64)
    x, y = i * np.uint64(X), i * np.uint64(Y)

    def check(outputs):
        return outputs[0].shape == (batch, 1) and bool((outputs[0][:, 0] == x * y).all())

    return circuit, [x, y], check


CASES = {"aes128": aes128, "mul64": mul64}


def time_python(circuit, inputs, check):
    """Seconds of one run_local call (outputs taken from the result), and
    of those the time outside the run's own clock (report.wall_seconds:
    conversions, building the run, its threads started and joined)."""
    gc.collect()
    start = time.perf_counter()
    result = huddle.run_local(circuit, "trio", inputs, threads=1, links="memory")
    outputs = [result[i] for i in range(len(result.outputs))]
    seconds = time.perf_counter() - start
    if not check(outputs):
        sys.exit("run_local's outputs are wrong")
    return seconds, seconds - result.report.wall_seconds


class RustSide:
    """A `huddle bench library --on-request` process: its circuit and
    inputs built and one call run untimed, it times one Run::local call per
    request."""

    def __init__(self, huddle_bin, case, batch, circuit):
        command = [str(huddle_bin), "bench", "library", "--case", case, "--batch", str(batch),
                   "--on-request"]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = json.loads(self.process.stdout.readline() or "{}")
        if ready.get("circuit_hash") != circuit.hash():
            self.close()
            sys.exit(f"{case}: the Rust side did not start or runs another circuit ({ready})")

    def time(self):
        self.process.stdin.write("run\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            sys.exit("the Rust side ended early")
        done = json.loads(line)
        return done["seconds"], done["seconds"] - done["wall_seconds"]

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def program_build(gates):
    """Seconds to build a ring program of about `gates` gates from scalar
    Python code (n running sums of products of scalar values), to compile
    it, and its gate count; None without huddle.Program. Written against
    the program API of docs/python.md."""
    if not hasattr(huddle, "Program"):
        return None
    n = 1000
    terms = gates // (2 * n) + 1
    start = time.perf_counter()
    prog = huddle.Program(parties=3)
    with prog:
        x = huddle.input(party=0, type=huddle.ring(64), shape=(n,), name="x")
        y = huddle.input(party=1, type=huddle.ring(64), shape=(n,), name="y")
        xs, ys = list(x), list(y)
        sums = []
        for j in range(n):
            acc = xs[j] * ys[j]
            for i in range(1, terms):
                acc = acc + xs[j] * ys[(i + j) % n]
            sums.append(acc)
        huddle.reveal(huddle.stack(sums), name="sums")
    built = time.perf_counter() - start
    compiled = prog.compile()
    total = time.perf_counter() - start
    return built, total, compiled.stats()["gates"]


def cpu():
    try:
        lines = pathlib.Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return "unknown CPU"
    models = [line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")]
    return f"{models[0]} ({len(models)} logical CPUs)" if models else "unknown CPU"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=11, help="at least this many rounds per case")
    parser.add_argument("--min-seconds", type=float, default=30.0,
                        help="and rounds until this many seconds passed (short runs get more rounds)")
    parser.add_argument("--verbose", action="store_true", help="also print every round's seconds")
    parser.add_argument("--huddle", default=os.environ.get("HUDDLE", REPO / "target/release/huddle"))
    parser.add_argument("--cases", default="aes128,mul64,program")
    args = parser.parse_args()
    cases = args.cases.split(",")
    huddle_bin = pathlib.Path(args.huddle)
    if any(c in CASES for c in cases) and not huddle_bin.is_file():
        sys.exit(f"{huddle_bin} not found: `cargo build --release -p huddle-cli`, or give --huddle")

    print(f"huddle Python overhead: {args.batch} instances, trio, links in memory, 1 thread per party")
    print(f"{cpu()}; {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(f"rounds of one call per side (at least {args.rounds} and {args.min_seconds:g} s a case; "
          "each side warmed up by an untimed call), the order swapped every round; medians")
    print("ratio: of the medians; per round: the median of each round's ratio")
    print("outside: each side's time outside the run's own clock (RunReport.wall_seconds)")
    print(f"{'case':8} {'run_local s':>12} {'Run::local s':>13} {'ratio':>7} {'per round':>10} "
          f"{'outside ms':>12} {'rounds':>7}")
    for case in cases:
        if case not in CASES:
            continue
        circuit, inputs, check = CASES[case](args.batch)
        rust = RustSide(huddle_bin, case, args.batch, circuit)
        time_python(circuit, inputs, check)
        py, rs = [], []
        start = time.perf_counter()
        r = 0
        while r < args.rounds or time.perf_counter() - start < args.min_seconds:
            sides = [lambda: py.append(time_python(circuit, inputs, check)),
                     lambda: rs.append(rust.time())]
            for side in sides if r % 2 == 0 else reversed(sides):
                side()
            r += 1
        rust.close()
        p, q = statistics.median(s for s, _ in py), statistics.median(s for s, _ in rs)
        paired = statistics.median(a / b for (a, _), (b, _) in zip(py, rs))
        po, qo = statistics.median(o for _, o in py), statistics.median(o for _, o in rs)
        outside = f"{1e3 * po:.1f}/{1e3 * qo:.1f}"
        print(f"{case:8} {p:12.3f} {q:13.3f} {p / q:7.3f} {paired:10.3f} {outside:>12} {len(py):7}")
        if args.verbose:
            print("  rounds (python/rust s): " + ", ".join(f"{a:.3f}/{b:.3f}" for (a, _), (b, _) in zip(py, rs)))
        del inputs
    if "program" in cases:
        measured = program_build(1_000_000)
        if measured is None:
            print("program: skipped (this build has no huddle.Program)")
        else:
            built, total, gates = measured
            print(f"program: {gates} gates from scalar Python code: built in {built:.3f} s, "
                  f"compiled by {total:.3f} s (the goal: under 2 s)")


if __name__ == "__main__":
    main()
