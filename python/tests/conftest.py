"""Shared helpers of the huddle Python tests."""

import os
import pathlib

import pytest

# FIPS-197 Appendix C.1: AES-128 key, plaintext and ciphertext.
FIPS_KEY = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
FIPS_PLAINTEXT = bytes.fromhex("00112233445566778899aabbccddeeff")
FIPS_CIPHERTEXT = int("69c4e0d86a7b0430d8cdb78070b4c55a", 16)


def shared_circuits():
    """The public circuit collection (as the Rust tests find it), or a skip;
    under HUDDLE_REQUIRE_CIRCUITS a failure instead."""
    if os.environ.get("HUDDLE_CIRCUITS"):
        return pathlib.Path(os.environ["HUDDLE_CIRCUITS"])
    for parent in pathlib.Path(__file__).resolve().parents:
        candidate = parent / "shared" / "circuits"
        if candidate.is_dir():
            return candidate
    if os.environ.get("HUDDLE_REQUIRE_CIRCUITS"):
        pytest.fail("shared/circuits/ not found and HUDDLE_REQUIRE_CIRCUITS is set")
    pytest.skip("SKIPPED: shared/circuits/ not found (set HUDDLE_CIRCUITS)")
