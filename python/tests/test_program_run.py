"""Running programs: run_local under several protocols and evaluate
against Python arithmetic, the input and public forms, variable-length
inputs, public parameters that agree or not, typed outputs, run errors."""

import numpy as np
import pytest

import huddle


def wrap16(x):
    """x as int16, wrapping (two's complement)."""
    return ((np.asarray(x, dtype=np.int64) + 2**15) % 2**16 - 2**15).astype(np.int64)


def boolean_program():
    """Three parties; party 2 gives nothing (so ca2pc's dealer fits)."""
    prog = huddle.Program(parties=3)
    with prog:
        a = huddle.input(0, huddle.i16, (4,), name="a")
        b = huddle.input(1, huddle.i16, (4,), name="b")
        k = huddle.input(1, huddle.u8, name="k")
        huddle.reveal(a + b, name="sum")
        huddle.reveal(3 * a - b, name="lin")
        huddle.reveal(a * b, name="prod")
        huddle.reveal(a < b, name="lt")
        huddle.reveal(a == 7, name="eq7")
        huddle.reveal(huddle.max(a), name="max")
        huddle.reveal(huddle.min(a, b), name="min")
        huddle.reveal(huddle.select(a > b, a, b), name="sel")
        huddle.reveal((a ^ b) >> 2, name="xorshr")
        huddle.reveal(~(k << 3), name="notshl")
        huddle.reveal(abs(a), name="abs")
        huddle.reveal(a[1:3] - a[0], name="slice")
        huddle.reveal(huddle.sum(b), name="total")
    return prog


def boolean_expected(a, b, k):
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    return {
        "sum": wrap16(a + b),
        "lin": wrap16(3 * a - b),
        "prod": wrap16(a * b),
        "lt": a < b,
        "eq7": a == 7,
        "max": a.max(axis=-1),
        "min": np.minimum(a, b),
        "sel": np.where(a > b, a, b),
        "xorshr": (a ^ b) >> 2,
        "notshl": (~((np.asarray(k) << 3) & 0xFF)) & 0xFF,
        "abs": wrap16(np.abs(a)),
        "slice": wrap16(a[..., 1:3] - a[..., :1]),
        "total": wrap16(b.sum(axis=-1)),
    }


EDGE_A = np.array([[7, -32768, 32767, -1], [0, 1, -2, 300]])
EDGE_B = np.array([[7, 1, -1, 32767], [5, -6, -2, -32768]])


@pytest.mark.parametrize("protocol", ["trio", "replicated", "mfi3", "bgw3", "ca2pc"])
def test_a_boolean_program_runs_under_protocols_like_python_arithmetic(protocol):
    prog = boolean_program()
    k = np.array([5, 255], dtype=np.uint8)
    result = huddle.run_local(prog, protocol, {0: EDGE_A, 1: {"b": EDGE_B, "k": k}})
    want = boolean_expected(EDGE_A, EDGE_B, k)
    assert result.outputs.names == list(want)
    for name, w in want.items():
        got = result[name]
        assert got.shape == (2,) + w.shape[1:], name
        assert (got == w).all(), (name, got, w)
    assert result["lt"].dtype == np.bool_ and result["sum"].dtype == np.int64
    assert result["notshl"].dtype == np.uint64
    assert result.report.parties == 3 and result.report.batch == 2


def test_a_four_party_program_under_quad():
    prog = huddle.Program(parties=4)
    with prog:
        xs = [huddle.input(p, huddle.u32, name=f"x{p}") for p in range(4)]
        total = xs[0] + xs[1] + xs[2] + xs[3]
        huddle.reveal(total, name="total")
        huddle.reveal(huddle.max(huddle.stack(xs)), name="max")
    inputs = {p: [p * 1000, 2**32 - 1 - p] for p in range(4)}
    result = huddle.run_local(prog, "quad", inputs)
    assert list(result["total"]) == [6000, (4 * (2**32 - 1) - 6) % 2**32]
    assert list(result["max"]) == [3000, 2**32 - 1]


def ring_program():
    prog = huddle.Program(parties=3)
    with prog:
        w = huddle.input(0, huddle.fixed(16), (3,), name="w")
        x = huddle.input(1, huddle.fixed(16), (2, 3), name="x")
        n = huddle.input(1, huddle.ring(64), (3,), name="n")
        huddle.reveal(x @ w, name="score")
        huddle.reveal(huddle.dot(w, w) * 0.5, name="half_norm")
        huddle.reveal(n * n - 1, name="sq")
        huddle.reveal(n.astype(huddle.i8), name="low")
        huddle.reveal((n > 0).astype(huddle.ring(64)) * 10, name="pos")
    return prog


@pytest.mark.parametrize("protocol", ["trio", "replicated", "mfi3", "ca2pc"])
def test_a_ring_program_runs_like_numpy(protocol):
    w = np.array([0.5, -1.25, 2.0])
    x = np.array([[1.0, 2.0, 3.0], [-0.75, 0.0, 10.5]])
    n = np.array([3, -200, 2**40])
    result = huddle.run_local(ring_program(), protocol, {"w": w, "x": x, "n": n})
    assert result["score"].dtype == np.float64 and result["score"].shape == (1, 2)
    # A fixed-point product is within 2^-16 of the exact one (two per sum here).
    assert np.abs(result["score"][0] - x @ w).max() <= 2 * 2**-16
    assert abs(result["half_norm"][0] - (w @ w) / 2) <= 2 * 2**-16
    assert list(result["sq"][0]) == [8, 39999, (2**80 - 1) % 2**64 - (2**64 if (2**80 - 1) % 2**64 >= 2**63 else 0)]
    assert list(result["low"][0]) == [3, 56, 0]
    assert list(result["pos"][0]) == [10, 0, 10]


@pytest.mark.parametrize("protocol", ["trio", "ca2pc"])
def test_probabilistic_truncation_saves_rounds_within_one_more_in_the_last_place(protocol):
    prog = huddle.Program(parties=3)
    with prog:
        w = huddle.input(0, huddle.fixed(16), (3,), name="w")
        x = huddle.input(1, huddle.fixed(16), (2, 3), name="x")
        huddle.reveal(x @ w, name="score")
    w = np.array([0.5, -1.25, 2.0])
    x = np.array([[1.0, 2.0, 3.0], [-0.75, 0.0, 10.5]])
    exact = huddle.run_local(prog, protocol, {"w": w, "x": x})
    fused = huddle.run_local(prog, protocol, {"w": w, "x": x}, truncation="probabilistic")
    # One truncation per output: the exact one's error, plus at most one more 2^-16.
    assert np.abs(fused["score"][0] - x @ w).max() <= 3 * 2**-16
    assert fused.report.online_rounds < exact.report.online_rounds
    with pytest.raises(huddle.InputError, match="truncation"):
        huddle.run_local(prog, protocol, {"w": w, "x": x}, truncation="round")
    with pytest.raises(huddle.InputError, match="preprocess"):
        huddle.run_local(prog, protocol, {"w": w, "x": x}, preprocess="later")


def test_evaluate_takes_every_input_form_and_repeats_one_instance():
    prog = huddle.Program(parties=2)
    with prog:
        a = huddle.input(0, huddle.u8, (2,), name="a")
        b = huddle.input(1, huddle.u8, name="b")
        huddle.reveal(a + b, name="s")
    want = [[11, 12], [21, 22]]
    forms = [
        {0: {"a": [1, 2]}, 1: {"b": [10, 20]}},
        {0: [1, 2], 1: [10, 20]},
        {"a": np.array([1, 2], dtype=np.uint8), "b": [10, 20]},
        {"a": [[1, 2], [1, 2]], 1: np.array([10, 20])},
    ]
    for inputs in forms:
        out = huddle.evaluate(prog, inputs)
        assert out["s"].dtype == np.uint64 and out["s"].tolist() == want, inputs
    assert huddle.evaluate(prog, {"a": [1, 2], "b": 5}, batch=3)["s"].tolist() == [[6, 7]] * 3


def test_variable_length_inputs_take_fewer_rows_than_the_maximum():
    prog = huddle.Program(parties=3)
    with prog:
        ages = huddle.input_rows(0, huddle.u8, max_rows=5, name="ages")
        pairs = huddle.input_rows(1, huddle.i16, max_rows=3, columns=2, name="pairs")
        count = huddle.sum(ages.valid.astype(huddle.u16))
        huddle.reveal(huddle.sum(ages.values.astype(huddle.u16)), name="total")
        huddle.reveal(count, name="count")
        huddle.reveal(pairs.values[:, 0] * pairs.values[:, 1], name="products")
        huddle.reveal(pairs.valid, name="valid")
    one = huddle.evaluate(prog, {"ages": [30, 40], "pairs": [[2, 3]]})
    assert one["total"].tolist() == [70] and one["count"].tolist() == [2]
    assert one["products"].tolist() == [[6, 0, 0]] and one["valid"].tolist() == [[True, False, False]]
    # A list of instances, each with its own rows (none at all too).
    many = huddle.run_local(
        prog, "trio", {"ages": [[1], [], [9, 9, 9, 9, 9]], "pairs": [[[1, 1]], [[2, 2], [3, -3]], np.zeros((0, 2))]}
    )
    assert many["total"].tolist() == [1, 0, 45] and many["count"].tolist() == [1, 0, 5]
    assert many["products"].tolist() == [[1, 0, 0], [4, -9, 0], [0, 0, 0]]
    with pytest.raises(huddle.InputError, match="6 rows given, at most 5 allowed"):
        huddle.evaluate(prog, {"ages": [1] * 6, "pairs": [[1, 1]]})
    with pytest.raises(huddle.InputError, match="rows of shape"):
        huddle.evaluate(prog, {"ages": [1], "pairs": [1, 2, 3]})


def public_program():
    prog = huddle.Program(parties=3)
    with prog:
        x = huddle.input(0, huddle.u16, (3,), name="x")
        t = huddle.public("t", huddle.u16)
        huddle.reveal(x > t, name="above")
        huddle.reveal(x + t, name="shifted")
    return prog


def test_public_parameters_that_agree_and_that_do_not():
    prog = public_program()
    ok = huddle.run_local(prog, "trio", {0: [1, 5, 9]}, publics={"t": 4})
    assert ok.outputs.names == ["above", "shifted", "public_ok"]
    assert ok["public_ok"].tolist() == [True]
    assert ok["above"].tolist() == [[False, True, True]] and ok["shifted"].tolist() == [[5, 9, 13]]
    # Each party its own copy: equal copies agree.
    same = huddle.evaluate(prog, {0: [1, 5, 9]}, publics={0: {"t": 4}, 1: {"t": 4}, 2: {"t": 4}})
    assert same["public_ok"].tolist() == [True]
    # One party disagrees: public_ok is false and every other output zero.
    bad = huddle.run_local(prog, "replicated", {0: [1, 5, 9]}, publics={0: {"t": 4}, 1: {"t": 4}, 2: {"t": 3}})
    assert bad["public_ok"].tolist() == [False]
    assert bad["above"].tolist() == [[False] * 3] and bad["shifted"].tolist() == [[0, 0, 0]]
    with pytest.raises(huddle.InputError, match='party 2 gave no value for "t"'):
        huddle.evaluate(prog, {0: [1, 5, 9]}, publics={0: {"t": 4}, 1: {"t": 4}})
    with pytest.raises(huddle.InputError, match="give it in publics="):
        huddle.evaluate(prog, {0: [1, 5, 9], "t": 4})
    with pytest.raises(huddle.InputError, match="no public parameter"):
        huddle.evaluate(prog, {0: [1, 5, 9]}, publics={"u": 4})


def test_outputs_to_one_party_and_program_run_errors():
    prog = huddle.Program(parties=3)
    with prog:
        x = huddle.input(0, huddle.i8, name="x")
        y = huddle.input(1, huddle.i8, name="y")
        huddle.reveal(x + y, to=2, name="s")
    result = huddle.run_local(prog, "trio", {0: -3, 1: 100})
    assert result["s"].tolist() == [97]
    with pytest.raises(huddle.InputError, match="cannot hold 128"):
        huddle.run_local(prog, "trio", {0: 128, 1: 0})
    with pytest.raises(huddle.InputError, match="holds integers"):
        huddle.evaluate(prog, {0: 1.5, 1: 0})
    with pytest.raises(huddle.InputError, match='gave no value for "y"'):
        huddle.evaluate(prog, {0: 1})
    with pytest.raises(huddle.InputError, match="no input"):
        huddle.evaluate(prog, {"z": 1})
    with pytest.raises(huddle.InputError, match="belongs to party 1"):
        huddle.evaluate(prog, {0: {"y": 1}})
    with pytest.raises(huddle.InputError, match="given twice"):
        huddle.evaluate(prog, {0: 1, "x": 2, 1: 3})
    with pytest.raises(huddle.InputError, match="neither one instance"):
        huddle.evaluate(prog, {0: [[1, 2]], 1: 3})
    with pytest.raises(huddle.InputError, match="2 instances given, the batch is 3"):
        huddle.evaluate(prog, {0: [1, 2], 1: [1, 2, 3]})
    with pytest.raises(huddle.InputError, match="reveal_to is for circuits"):
        huddle.run_local(prog, "trio", {0: 1, 1: 2}, reveal_to=1)
    with pytest.raises(huddle.InputError, match="for 3 parties, not 4"):
        huddle.run_local(prog, "trio", {0: 1, 1: 2}, parties=4)
    with pytest.raises(huddle.InputError, match="a circuit has none"):
        huddle.run_local(huddle.gen.adder(4), "trio", [1, 2], publics={"t": 1})


def test_outputs_to_different_receivers_run_in_one_run():
    prog = huddle.Program(parties=3)
    with prog:
        x = huddle.input(0, huddle.u8, name="x")
        y = huddle.input(1, huddle.ring(32), name="y")
        huddle.reveal(x, to=1, name="one")
        huddle.reveal(y * 3, to=2, name="two")
        huddle.reveal(x ^ 1, name="everyone")
    # One pad input per output for a single party, owned by its receiver.
    masks = [o.get("mask") for o in prog.compile().interface["outputs"]]
    assert [m is not None for m in masks] == [True, True, False]
    for protocol in ["trio", "replicated", "mfi3"]:
        result = huddle.run_local(prog, protocol, {0: [7, 200], 1: [5, -4]})
        assert result["one"].tolist() == [7, 200], protocol
        assert result["two"].tolist() == [15, -12], protocol
        assert result["everyone"].tolist() == [6, 201], protocol
    # The evaluator holds every party, so every output.
    assert huddle.evaluate(prog, {0: 7, 1: 5})["two"].tolist() == [15]


def test_a_program_is_compiled_once_for_its_runs():
    prog = public_program()
    first = huddle.evaluate(prog, {0: [1, 2, 3]}, publics={"t": 2})
    again = huddle.run_local(prog, "trio", {0: [1, 2, 3]}, publics={"t": 2})
    assert (first["shifted"] == again["shifted"]).all()
    compiled = prog.compile()
    assert compiled.hash() == public_program().compile().hash()
    with pytest.raises(huddle.ProgramError, match="compiled already"):
        prog.compile()
