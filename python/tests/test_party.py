"""huddle.Party: three processes, one party each, over TLS with a parties
file made by `huddle certs` (the CLI, built by the Rust tests)."""

import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import textwrap

import pytest

from conftest import FIPS_CIPHERTEXT

ROOT = pathlib.Path(__file__).resolve().parents[2]

PARTY = textwrap.dedent(
    """
    import json, sys
    import huddle
    config, me, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    circuit = huddle.gen.aes128() if kind == "aes" else huddle.gen.sha256()
    key = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
    text = bytes.fromhex("00112233445566778899aabbccddeeff")
    inputs = {0: key, 1: text, 2: None}[me]
    try:
        result = huddle.Party(config, me, setup_timeout=30).run(circuit, "trio", inputs)
        out = [int(v) for v in result.outputs.integers(0)] if len(result.outputs) else []
        print(json.dumps({"outputs": out, "party": result.report.to_dict().get("party")}))
    except huddle.HuddleError as e:
        print(json.dumps({"error": type(e).__name__, "message": str(e)}))
    """
)


def huddle_cli():
    binary = pathlib.Path(os.environ.get("HUDDLE_BIN", ROOT / "target" / "checked" / "huddle"))
    if binary.is_file():
        return binary
    if os.environ.get("CI") == "true":
        pytest.fail(f"{binary} not found: the Rust tests build it (scripts/test-all)")
    pytest.skip(f"SKIPPED: {binary} not found (cargo test --workspace --profile checked builds it)")


def parties_file(tmp_path):
    """A parties file for three parties on loopback, on ports the OS gave as free."""
    subprocess.run(
        [str(huddle_cli()), "certs", "--parties", "3", "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    sockets = [socket.socket() for _ in range(3)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = iter([s.getsockname()[1] for s in sockets])
    for s in sockets:
        s.close()
    config = tmp_path / "parties.toml"
    config.write_text(re.sub(r"port = \d+", lambda _: f"port = {next(ports)}", config.read_text()))
    return config


def run_parties(script, config, arguments):
    """One process per party running `script` with the parties file, its
    id and its `arguments`; each must exit 0 and print JSON, returned in
    party order."""
    children = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(config), str(me), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for me, args in enumerate(arguments)
    ]
    results = []
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        results.append(json.loads(out))
    return results


def run_three(config, kinds):
    return run_parties(PARTY, config, [[kind] for kind in kinds])


def test_three_processes_compute_aes_over_tls(tmp_path):
    results = run_three(parties_file(tmp_path), ["aes"] * 3)
    for me, result in enumerate(results):
        assert result == {"outputs": [FIPS_CIPHERTEXT], "party": me}, result


def test_a_party_with_another_circuit_stops_every_party_at_connect(tmp_path):
    results = run_three(parties_file(tmp_path), ["aes", "aes", "sha"])
    assert all(r["error"] == "MismatchError" for r in results), results
    # A party that compared the hellos itself names the circuit; one told
    # by a peer that stopped says so.
    assert any("evaluates a different circuit" in r["message"] for r in results), results
