"""Circuits from Python: load, save, stats, optimize, the generators."""

import json

import pytest

import huddle
from conftest import shared_circuits


def test_save_then_load_gives_the_same_circuit(tmp_path):
    adder = huddle.gen.adder(16, fanin=4)
    path = tmp_path / "adder.txt"
    adder.save(path)
    again = huddle.Circuit.load(str(path))
    assert again.hash() == adder.hash()
    assert [v["bits"] for v in again.inputs] == [16, 16]


def test_an_arithmetic_circuit_round_trips_through_its_format(tmp_path):
    vecmat = huddle.gen.application("vecmat", size=[4], bits=32)
    assert vecmat.ring == 32
    path = tmp_path / "vecmat.txt"
    vecmat.save(path)
    assert path.read_text().startswith("ring")
    assert huddle.Circuit.load(path).hash() == vecmat.hash()


def test_stats_are_the_clis_json():
    stats = huddle.gen.adder(8).stats()
    # A ripple-carry adder of 8 bits: a carry chain of 8 ANDs, 9 bits out.
    assert stats["and_depth"] == 8
    assert stats["and_count"] == 8
    assert stats["inputs"] == [8, 8] and stats["outputs"] == [9]
    assert "arithmetic" not in stats
    ring = huddle.gen.application("vecmat", size=[3], bits=16).stats()
    assert ring["arithmetic"]["ring_bits"] == 16


def test_optimize_lowers_the_and_depth_within_the_fanin():
    adder = huddle.gen.adder(32)
    fast = adder.optimize(fanin=4)
    before, after = adder.stats(), fast.stats()
    assert after["and_depth"] < before["and_depth"]
    assert max(after["and_by_fanin"], key=int) <= "4"
    x, y = [123456789, 2**32 - 1, 7], [987654321, 1, 2**31]
    want = huddle.evaluate(adder, [x, y]).integers(0)
    assert (huddle.evaluate(fast, [x, y]).integers(0) == want).all()
    assert list(want) == [a + b for a, b in zip(x, y)]


def test_a_file_that_is_not_a_circuit_is_an_input_error_naming_it(tmp_path):
    path = tmp_path / "junk.txt"
    path.write_text("not a circuit\n")
    with pytest.raises(huddle.InputError) as e:
        huddle.Circuit.load(path)
    assert str(e.value).startswith(f"{path}: ")
    with pytest.raises(huddle.InputError, match="unknown circuit format"):
        huddle.Circuit.load(path, format="xml")


def test_the_generators_refuse_with_huddle_circuits_messages():
    with pytest.raises(huddle.InputError, match="unknown circuit kind `nope`"):
        huddle.gen.boolean("nope")
    with pytest.raises(huddle.InputError, match="--fanin must be 2 to"):
        huddle.gen.aes128(fanin=1)
    with pytest.raises(huddle.InputError, match="unknown comparison"):
        huddle.gen.comparator(8, op="le")


def test_every_generator_family_builds():
    assert [v["bits"] for v in huddle.gen.aes128().inputs] == [128, 128]
    assert huddle.gen.sha256().outputs[0]["bits"] == 256
    assert huddle.gen.comparator(16, op="eq").outputs[0]["bits"] == 1
    assert huddle.gen.boolean("mult-wallace", bits=8, fanin=3).gates > 0
    auction = huddle.gen.application("auction", size=[5], bits=32)
    assert auction.ring == 32
    table = huddle.gen.table("table-sum,table-count", rows=4, parties=2, bits=8)
    assert [v["name"] for v in table.inputs] == ["x0", "x1", "valid0", "valid1"]
    assert huddle.gen.random(50, [8, 8], seed=3).hash() == huddle.gen.random(50, [8, 8], seed=3).hash()
    assert huddle.gen.random(50, [8, 8], seed=3).hash() != huddle.gen.random(50, [8, 8], seed=4).hash()


def test_the_public_collection_gives_its_known_answers():
    """Every circuit of the public collection on its vectors, as hex numbers
    (bit j of the number on wire j: the collection's rule and huddle's)."""
    root = shared_circuits()
    collection = json.loads((root / "vectors.json").read_text())["circuits"]
    checked = 0
    for entry in collection:
        circuit = huddle.Circuit.load(root / entry["file"])
        for vector in entry["vectors"]:
            out = huddle.evaluate(circuit, [int(h, 16) for h in vector["inputs"]])
            got = [int(out.integers(i)[0]) for i in range(len(out))]
            assert got == [int(h, 16) for h in vector["outputs"]], entry["file"]
            checked += 1
    assert checked >= 10
