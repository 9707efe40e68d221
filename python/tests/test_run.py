"""run_local against FIPS-197 and against the plaintext evaluator."""

import numpy as np
import pytest

import huddle
from conftest import FIPS_CIPHERTEXT, FIPS_KEY, FIPS_PLAINTEXT

# Garbling runs Boolean circuits only; every other protocol runs rings too
# (README: "garbling runs Boolean circuits").
GARBLING = {"bgw3", "bgw2", "bgw2-mal"}


def test_aes_128_on_the_fips_197_vector_by_owning_party():
    aes = huddle.gen.aes128()
    result = huddle.run_local(aes, "trio", {0: FIPS_KEY, 1: FIPS_PLAINTEXT})
    assert result.outputs.integers("ciphertext")[0] == FIPS_CIPHERTEXT
    assert result["ciphertext"].shape == (1, 128)
    report = result.report
    assert (report.protocol, report.parties, report.batch) == ("trio", 3, 1)
    assert report.online_rounds > 0
    assert report.total_bytes == sum(sum(links.values()) for links in report.bytes.values())
    assert report.to_dict()["online_rounds"] == report.online_rounds


def test_every_protocol_on_random_boolean_circuits_agrees_with_the_evaluator():
    rng = np.random.default_rng(1)
    circuit = huddle.gen.random(200, [17, 64, 9], max_fanin=3, seed=11)
    inputs = [rng.integers(0, 2, size=(29, bits), dtype=np.uint8) for bits in (17, 64, 9)]
    want = huddle.evaluate(circuit, inputs)
    assert huddle.protocols(), "no protocols"
    for protocol in huddle.protocols():
        got = huddle.run_local(circuit, protocol, inputs).outputs
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == np.uint8 and g.shape == w.shape == (29, w.shape[1])
            assert (g == w).all(), protocol


@pytest.mark.parametrize("ring", [8, 64])
def test_every_ring_protocol_on_random_arithmetic_and_mixed_circuits(ring):
    rng = np.random.default_rng(ring)
    arithmetic = huddle.gen.random(150, [3, 5, 2], ring=ring, max_fanin=3, seed=ring)
    mixed = huddle.gen.random(150, [4], ring=ring, boolean_inputs=12, seed=ring + 1)
    top = 2**ring
    cases = [
        (arithmetic, [rng.integers(0, top, size=(21, w), dtype=np.uint64) for w in (3, 5, 2)]),
        (mixed, [rng.integers(0, 2, size=(21, 12)), rng.integers(0, top, size=(21, 4), dtype=np.uint64)]),
    ]
    ran = 0
    for circuit, inputs in cases:
        want = huddle.evaluate(circuit, inputs)
        for protocol in huddle.protocols():
            if protocol in GARBLING:
                with pytest.raises(huddle.InputError):
                    huddle.run_local(circuit, protocol, inputs)
                continue
            got = huddle.run_local(circuit, protocol, inputs).outputs
            for g, w in zip(got, want):
                assert g.dtype == w.dtype and (g == w).all(), protocol
            ran += 1
    assert ran >= 2 * (len(huddle.protocols()) - len(GARBLING))


def test_boolean_values_as_ints_bits_bytes_and_one_instance_for_all():
    adder = huddle.gen.adder(8)
    x = np.array([1, 200, 255], dtype=np.uint8)
    as_bits = ((x[:, None] >> np.arange(8)) & 1).astype(np.uint8)
    by_int = huddle.evaluate(adder, [x, 3])
    by_bits = huddle.evaluate(adder, [as_bits, np.array([1, 1, 0, 0, 0, 0, 0, 0], dtype=bool)])
    by_bytes = huddle.evaluate(adder, [[1, 200, 255], b"\x03"])
    for out in (by_int, by_bits, by_bytes):
        # The sum has a carry bit: 9 bits.
        assert out[0].dtype == np.uint8 and out[0].shape == (3, 9)
        assert list(out.integers(0)) == [4, 203, 258]
    assert (by_int[0] == ((np.array([4, 203, 258])[:, None] >> np.arange(9)) & 1)).all()
    # Negative numbers are two's complement of the value's width.
    assert list(huddle.evaluate(adder, [-1, 1]).integers(0)) == [256]
    signed = huddle.evaluate(adder, [-128, -128]).integers(0, signed=True)
    assert signed.dtype == np.int64 and list(signed) == [-256]


def test_wide_boolean_values_as_python_ints():
    aes = huddle.gen.aes128()
    key, text = int.from_bytes(FIPS_KEY, "big"), int.from_bytes(FIPS_PLAINTEXT, "big")
    out = huddle.evaluate(aes, {"key": [key, key], "plaintext": [text, 0]})
    cipher = out.integers(0)
    assert cipher.dtype == object and cipher[0] == FIPS_CIPHERTEXT and cipher[1] != FIPS_CIPHERTEXT


def test_ring_values_are_uint64_instances_by_elements():
    vecmat = huddle.gen.application("vecmat", size=[2], bits=16)
    names = [v["name"] for v in vecmat.inputs]
    widths = {v["name"]: v["wires"] for v in vecmat.inputs}
    assert widths == {names[0]: 2, names[1]: 4}
    x = np.array([[1, -1], [3, 4]], dtype=np.int64)
    m = np.array([1, 2, 3, 4])
    result = huddle.run_local(vecmat, "replicated", [x, m])
    y = result[0]
    assert y.dtype == np.uint64 and y.shape == (2, 2)
    want = (x @ m.reshape(2, 2)) % 2**16
    assert (y == want).all()
    signed = result.outputs.integers(0, signed=True)
    assert signed.dtype == np.int64 and (signed == x @ m.reshape(2, 2)).all()


def test_the_batch_repeats_one_instance_and_the_report_counts_it():
    adder = huddle.gen.adder(8)
    result = huddle.run_local(adder, "mfi3", [5, 6], batch=4)
    assert result.report.batch == 4
    assert list(result.outputs.integers(0)) == [11] * 4


def test_runs_over_loopback_tls_and_an_emulated_network():
    adder = huddle.gen.adder(8, fanin=2)
    result = huddle.run_local(adder, "astra", [7, 8], links="tls", net="wan")
    assert list(result.outputs.integers(0)) == [15]
    assert result.report.online_rounds > 0
