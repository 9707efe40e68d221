"""Building programs: types, values, the current program, every error the
program API promises, compiled programs (interface, hash, save/load)."""

import json
import operator
import pathlib
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import huddle


def test_types_name_compare_and_parse():
    assert str(huddle.i32) == "i32" and repr(huddle.i32) == "huddle.i32"
    assert repr(huddle.bit) == "huddle.bit" and repr(huddle.u64) == "huddle.u64"
    assert repr(huddle.uint(7)) == "huddle.uint(7)" and repr(huddle.sint(3)) == "huddle.sint(3)"
    assert repr(huddle.ring(32)) == "huddle.ring(32)"
    assert repr(huddle.fixed(16)) == "huddle.fixed(16)" and repr(huddle.fixed(8, 32)) == "huddle.fixed(8, 32)"
    assert huddle.uint(8) == huddle.u8 and huddle.sint(16) == huddle.i16
    assert len({huddle.u8, huddle.uint(8), huddle.i8}) == 2
    for t in [huddle.bit, huddle.u16, huddle.sint(5), huddle.ring(8), huddle.fixed(16), huddle.fixed(3, 16)]:
        assert huddle.Type.parse(str(t)) == t
    f = huddle.fixed(16)
    assert (f.bits, f.signed, f.domain, f.ring, f.frac) == (64, True, "ring", 64, 16)
    u = huddle.u8
    assert (u.bits, u.signed, u.domain, u.ring, u.frac) == (8, False, "bits", None, None)
    import pickle

    assert pickle.loads(pickle.dumps(huddle.fixed(12, 32))) == huddle.fixed(12, 32)
    for bad in [lambda: huddle.uint(0), lambda: huddle.sint(65), lambda: huddle.ring(12),
                lambda: huddle.fixed(64), lambda: huddle.Type.parse("float")]:
        with pytest.raises(huddle.ProgramError) as e:
            bad()
        assert e.value.kind == "value"


def test_values_have_shapes_and_index_like_numpy():
    prog = huddle.Program(parties=2)
    with prog:
        m = huddle.input(0, huddle.u8, (3, 4))
        v = huddle.input(1, huddle.u8, 5)
        s = huddle.input(1, huddle.u8)
    assert (m.shape, m.ndim, m.size, len(m), m.type) == ((3, 4), 2, 12, 3, huddle.u8)
    assert (v.shape, s.shape, s.ndim) == ((5,), (), 0)
    cases = [
        (m, 1, (4,)), (m, (1, 2), ()), (m, -1, (4,)), (m, slice(0, 2), (2, 4)),
        (m, (slice(None), 0), (3,)), (m, (slice(None, None, 2), slice(1, 4)), (2, 3)),
        (m, (1, slice(None, None, -1)), (4,)), (v, slice(1, None, 2), (2,)), (v, -5, ()),
    ]
    for value, key, shape in cases:
        assert value[key].shape == shape, key
    assert [x.shape for x in m] == [(4,)] * 3 and len(list(v)) == 5
    assert m.T.shape == (4, 3) and m.reshape(2, 6).shape == (2, 6) and m.reshape((12,)).shape == (12,)
    assert v.astype(huddle.i32).type == huddle.i32
    assert repr(m) == "<huddle.Value u8 (3, 4)>" and m.program is prog
    with pytest.raises(IndexError):
        v[5]
    with pytest.raises(IndexError):
        m[0, 0, 0]
    with pytest.raises(TypeError):
        len(s)
    with pytest.raises(TypeError):
        s[0]
    with pytest.raises(TypeError, match="cannot be an index"):
        v[s]
    with pytest.raises(huddle.ProgramError, match="selects no element"):
        v[3:3]
    with pytest.raises(huddle.ProgramError) as e:
        m.reshape(5)
    assert e.value.kind == "shape"


@pytest.mark.parametrize(
    "ask, words",
    [
        (bool, "no truth value"),
        (lambda v: 1 if v else 0, "no truth value"),
        (int, "no integer value"),
        (float, "no float value"),
        (hash, "no hash"),
        (lambda v: {v: 1}, "no hash"),
        (operator.index, "to index or count with"),
        (lambda v: range(v), "to index or count with"),
        (lambda v: np.asarray(v), "no numpy array"),
    ],
)
def test_a_secret_value_has_no_plain_value_and_points_to_select(ask, words):
    with huddle.Program(parties=2):
        x = huddle.input(0, huddle.i32)
        with pytest.raises(TypeError) as e:
            ask(x)
    assert words in str(e.value)
    if "numpy" not in words:
        assert "huddle.select(cond, a, b)" in str(e.value)


def test_python_min_and_comparisons_chains_need_select():
    with huddle.Program(parties=2):
        a, b = huddle.input(0, huddle.i8), huddle.input(1, huddle.i8)
        with pytest.raises(TypeError, match="huddle.select"):
            min(a, b)
        with pytest.raises(TypeError, match="huddle.select"):
            0 < a < b


def test_no_current_program_outside_a_with_block():
    with pytest.raises(huddle.ProgramError) as e:
        huddle.input(0, huddle.i32)
    assert str(e.value) == (
        "no current program: build inside `with huddle.Program(parties=n):` or call prog.input(...)"
    )
    assert e.value.kind == "usage"
    assert isinstance(e.value, huddle.HuddleError) and isinstance(e.value, ValueError)
    assert (e.value.category, e.value.exit_code) == ("input", 2)
    # The methods work without a block.
    prog = huddle.Program(parties=2)
    x = prog.input(0, huddle.u8, name="x")
    prog.reveal(prog.max(x, 3), name="m")
    assert prog.compile().interface["outputs"][0]["name"] == "m"


def test_with_blocks_nest_and_are_per_thread():
    outer, inner = huddle.Program(parties=2), huddle.Program(parties=3)
    seen = []
    with outer:
        a = huddle.input(0, huddle.u8)
        with inner:
            b = huddle.input(2, huddle.u8)
            t = threading.Thread(target=lambda: seen.append(_current_or_error()))
            t.start()
            t.join()
        c = huddle.input(1, huddle.u8)
    assert (a.program, b.program, c.program) == (outer, inner, outer)
    assert seen == ["no current program"]


def _current_or_error():
    try:
        huddle.input(0, huddle.u8)
        return "built"
    except huddle.ProgramError as e:
        return str(e).split(":")[0]


def test_build_errors_name_the_mistake():
    prog = huddle.Program(parties=3)
    with prog:
        r32 = huddle.input(0, huddle.ring(32), name="r")
        with pytest.raises(huddle.ProgramError) as e:
            huddle.input(1, huddle.ring(64), name="s")
        assert e.value.kind == "ring" and "a program has one ring width" in str(e.value)
        with pytest.raises(huddle.ProgramError) as e:
            huddle.input(3, huddle.u8, name="t")
        assert e.value.kind == "usage"
        assert str(e.value) == 'input "t": party 3 does not exist; the program has parties 0 to 2'
        u, i = huddle.input(1, huddle.u8), huddle.input(2, huddle.i8)
        with pytest.raises(huddle.ProgramError) as e:
            u + i
        assert e.value.kind == "type" and "convert" in str(e.value)
        with pytest.raises(huddle.ProgramError, match="cannot hold 300"):
            u + 300
        with pytest.raises(huddle.ProgramError, match="holds integers"):
            u * 1.5
        with pytest.raises(huddle.ProgramError, match="bitwise"):
            r32 & r32
        with pytest.raises(TypeError, match="shift amount"):
            u << u
        with pytest.raises(TypeError, match="shift amount"):
            1 << u
        with pytest.raises(TypeError):
            u + "1"
        with pytest.raises(huddle.ProgramError, match="already named"):
            huddle.input(0, huddle.u8, name="r")
        with pytest.raises(huddle.ProgramError, match="reveal"):
            huddle.reveal(u, to="everyone")
        other = huddle.Program(parties=3).input(0, huddle.u8)
        with pytest.raises(huddle.ProgramError, match="belongs to another program"):
            u + other
        huddle.reveal(u + 1)
    assert not prog.is_compiled
    assert prog.compile().is_program and prog.is_compiled
    with pytest.raises(huddle.ProgramError) as e:
        prog.compile()
    assert "compiled already" in str(e.value)
    with pytest.raises(huddle.ProgramError) as e:
        prog.input(0, huddle.u8)
    assert "compiled" in str(e.value) and "cannot grow" in str(e.value)
    with pytest.raises(huddle.ProgramError) as e:
        u + 1
    assert "cannot grow" in str(e.value)


def test_a_program_that_reveals_nothing_does_not_compile():
    prog = huddle.Program(parties=2)
    prog.input(0, huddle.u8)
    with pytest.raises(huddle.ProgramError, match="reveals nothing"):
        prog.compile()
    with pytest.raises(huddle.ProgramError, match="compile failed"):
        prog.input(1, huddle.u8)


def build_sample(fan_in=None):
    """A program with every kind of declaration (the same in every process)."""
    prog = huddle.Program(parties=3, fan_in=fan_in)
    with prog:
        a = huddle.input(0, huddle.i16, (4,), name="a")
        rows = huddle.input_rows(1, huddle.u8, max_rows=6, name="ages")
        t = huddle.public("t", huddle.i16)
        w = huddle.constant([1, -2, 3, -4], huddle.i16)
        huddle.reveal(huddle.dot(a, w), name="dot")
        huddle.reveal(huddle.max(a) > t, to=2, name="above")
        huddle.reveal(huddle.sum(rows.valid.astype(huddle.u8)), to=2, name="count")
    return prog.compile()


def test_a_compiled_program_carries_its_interface():
    c = build_sample()
    assert c.is_program and not huddle.gen.adder(4).is_program
    iface = c.interface
    assert iface["parties"] == 3 and iface["ring_bits"] is None
    assert [(i["name"], i["party"], i["ty"], i["max_rows"]) for i in iface["inputs"]] == [
        ("a", 0, "i16", None),
        ("ages", 1, "u8", 6),
    ]
    assert [p["name"] for p in iface["publics"]] == ["t"]
    assert [(o["name"], o["to"]) for o in iface["outputs"]] == [
        ("dot", "all"), ("above", {"party": 2}), ("count", {"party": 2}), ("public_ok", "all"),
    ]
    stats = c.stats()
    assert stats["gates"] == c.gates > 0
    fast = c.optimize(fanin=4)
    assert fast.is_program and fast.interface == iface
    assert fast.stats()["and_depth"] <= stats["and_depth"]
    assert "program" in repr(c)


SAMPLE = textwrap.dedent(
    """
    import hashlib, json, sys
    sys.path.insert(0, sys.argv[1])
    from test_program_build import build_sample
    c = build_sample()
    c.save(sys.argv[2])
    data = open(sys.argv[2], "rb").read() + open(sys.argv[2] + ".interface.json", "rb").read()
    print(json.dumps({"hash": c.hash(), "bytes": hashlib.sha256(data).hexdigest()}))
    """
)


def test_the_same_program_is_byte_identical_in_every_process(tmp_path):
    here = str(pathlib.Path(__file__).parent)
    results = []
    for n in range(2):
        out = subprocess.run(
            [sys.executable, "-c", SAMPLE, here, str(tmp_path / f"p{n}.txt")],
            check=True, capture_output=True, text=True,
        )
        results.append(json.loads(out.stdout))
    assert results[0] == results[1]
    assert results[0]["hash"] == build_sample().hash()
    assert (tmp_path / "p0.txt").read_bytes() == (tmp_path / "p1.txt").read_bytes()


def test_save_and_load_keep_the_interface(tmp_path):
    c = build_sample()
    path = tmp_path / "sample.txt"
    c.save(path)
    assert (tmp_path / "sample.txt.interface.json").is_file()
    back = huddle.Circuit.load(path)
    assert back.is_program and back.interface == c.interface and back.hash() == c.hash()
    inputs = {"a": [1, 2, 3, 4], "ages": [30, 40]}
    publics = {"t": 2}
    want, got = huddle.evaluate(c, inputs, publics), huddle.evaluate(back, inputs, publics)
    assert got.names == want.names and all((g == w).all() for g, w in zip(got, want))
    # Without the interface file: the bare circuit, another hash.
    (tmp_path / "sample.txt.interface.json").rename(tmp_path / "elsewhere.json")
    bare = huddle.Circuit.load(path)
    assert not bare.is_program and bare.hash() != c.hash()
    # A plain circuit writes no interface.
    huddle.gen.adder(4).save(tmp_path / "adder.txt")
    assert not (tmp_path / "adder.txt.interface.json").exists()


def test_an_interface_that_does_not_fit_the_circuit_is_an_input_error(tmp_path):
    c = build_sample()
    path = tmp_path / "sample.txt"
    c.save(path)
    side = tmp_path / "sample.txt.interface.json"
    iface = json.loads(side.read_text())
    iface["inputs"][0]["ty"] = "i32"
    side.write_text(json.dumps(iface))
    with pytest.raises(huddle.InputError, match="does not fit the circuit"):
        huddle.Circuit.load(path)
    side.write_text("{not json")
    with pytest.raises(huddle.InputError, match="not a program interface"):
        huddle.Circuit.load(path)
