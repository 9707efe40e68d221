"""Every operator and function of a program against Python integer
arithmetic: edge and random values (fixed seeds) of every width class,
signed and unsigned, in the Boolean domain and the ring; fixed point
against its documented error bounds (crates/huddle-circuit/src/program/
mod.rs). Each program is evaluated once over a batch of many instances;
a sample also runs under trio, which must agree exactly."""

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest

import huddle


@dataclass(frozen=True)
class Kind:
    """What the reference needs to know of a type."""

    name: str  # as huddle.Type.parse reads it
    bits: int
    signed: bool
    ring: bool = False
    frac: int = 0

    @property
    def type(self):
        return huddle.Type.parse(self.name)

    @property
    def lo(self):
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def hi(self):
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    def wrap(self, x):
        """x reduced to the type's width, two's complement if signed."""
        x &= (1 << self.bits) - 1
        if self.signed and x >> (self.bits - 1):
            x -= 1 << self.bits
        return x

    def array(self, values):
        """The numpy array the binding takes (and gives back) for this type."""
        if self.name == "bit":
            return np.array(values, dtype=bool)
        return np.array(values, dtype=np.int64 if self.signed else np.uint64)

    @property
    def dtype(self):
        return self.array([0]).dtype


def uint(w):
    return Kind("bit", 1, False) if w == 0 else Kind(f"u{w}", w, False)


def sint(w):
    return Kind(f"i{w}", w, True)


def ring(k):
    return Kind(f"ring{k}", k, True, ring=True)


BIT = uint(0)
WIDTHS = [1, 7, 8, 31, 32, 63, 64]
BOOLEAN = [BIT] + [uint(w) for w in WIDTHS] + [sint(w) for w in WIDTHS]
RINGS = [ring(k) for k in (8, 16, 32, 64)]


def edges(kind):
    """0, 1, -1, the extremes and their neighbours, the middle: in range."""
    lo, hi = kind.lo, kind.hi
    candidates = {0, 1, -1, 2, lo, lo + 1, hi, hi - 1, hi // 2, lo // 2, 1 << (kind.bits // 2)}
    return sorted(v for v in candidates if lo <= v <= hi)


def random_values(kind, rng, n):
    """n values uniform over the type's range."""
    raw = rng.integers(0, 2**64, size=n, dtype=np.uint64)
    return [kind.wrap(int(r)) for r in raw]


def pairs(kind, seed, randoms=160):
    """Operand pairs: every pair of edge values, uniform pairs, small
    pairs (so that comparisons often meet equal values) and equal pairs."""
    rng = np.random.default_rng(seed)
    out = list(itertools.product(edges(kind), repeat=2))
    out += zip(random_values(kind, rng, randoms), random_values(kind, rng, randoms))
    small = [kind.wrap(int(v)) for v in rng.integers(-3, 4, size=2 * 40)]
    out += zip(small[::2], small[1::2])
    out += [(v, v) for v in random_values(kind, rng, 20)]
    return out


def shift_amounts(kind):
    w = kind.bits
    return sorted({0, 1, w // 2, w - 1, w, w + 3})


def literal(kind):
    """A public literal in the type's range, away from 0 and 1 where the width allows."""
    return kind.lo // 3 if kind.signed else (kind.hi * 2) // 3


# name -> (how the program computes it, what Python says), for two operands a, b
# and a bit c; `k` is the Kind. The reference sees values as the type reads them.
ELEMENTWISE = {
    "add": (lambda a, b, c, k: a + b, lambda a, b, c, k: k.wrap(a + b)),
    "sub": (lambda a, b, c, k: a - b, lambda a, b, c, k: k.wrap(a - b)),
    "mul": (lambda a, b, c, k: a * b, lambda a, b, c, k: k.wrap(a * b)),
    "neg": (lambda a, b, c, k: -a, lambda a, b, c, k: k.wrap(-a)),
    "abs": (lambda a, b, c, k: abs(a), lambda a, b, c, k: k.wrap(abs(a))),
    "habs": (lambda a, b, c, k: huddle.abs(b), lambda a, b, c, k: k.wrap(abs(b))),
    "eq": (lambda a, b, c, k: a == b, lambda a, b, c, k: a == b),
    "ne": (lambda a, b, c, k: a != b, lambda a, b, c, k: a != b),
    "lt": (lambda a, b, c, k: a < b, lambda a, b, c, k: a < b),
    "le": (lambda a, b, c, k: a <= b, lambda a, b, c, k: a <= b),
    "gt": (lambda a, b, c, k: a > b, lambda a, b, c, k: a > b),
    "ge": (lambda a, b, c, k: a >= b, lambda a, b, c, k: a >= b),
    "min": (lambda a, b, c, k: huddle.min(a, b), lambda a, b, c, k: min(a, b)),
    "max": (lambda a, b, c, k: huddle.max(a, b), lambda a, b, c, k: max(a, b)),
    "select": (lambda a, b, c, k: huddle.select(c, a, b), lambda a, b, c, k: a if c else b),
    "select_lit": (
        lambda a, b, c, k: huddle.select(c, literal(k), b),
        lambda a, b, c, k: literal(k) if c else b,
    ),
    "add_lit": (lambda a, b, c, k: a + literal(k), lambda a, b, c, k: k.wrap(a + literal(k))),
    "lit_sub": (lambda a, b, c, k: literal(k) - a, lambda a, b, c, k: k.wrap(literal(k) - a)),
    "lit_mul": (lambda a, b, c, k: literal(k) * b, lambda a, b, c, k: k.wrap(literal(k) * b)),
    "lit_lt": (lambda a, b, c, k: literal(k) < a, lambda a, b, c, k: literal(k) < a),
    "ge_lit": (lambda a, b, c, k: b >= literal(k), lambda a, b, c, k: b >= literal(k)),
    "eq_lit": (lambda a, b, c, k: literal(k) == a, lambda a, b, c, k: literal(k) == a),
}
# Bitwise operators need the Boolean domain; ~ on ring integers is -a - 1.
BITWISE = {
    "and": (lambda a, b, c, k: a & b, lambda a, b, c, k: k.wrap(a & b)),
    "or": (lambda a, b, c, k: a | b, lambda a, b, c, k: k.wrap(a | b)),
    "xor": (lambda a, b, c, k: a ^ b, lambda a, b, c, k: k.wrap(a ^ b)),
    "and_lit": (lambda a, b, c, k: a & literal(k), lambda a, b, c, k: k.wrap(a & literal(k))),
    "lit_or": (lambda a, b, c, k: literal(k) | b, lambda a, b, c, k: k.wrap(literal(k) | b)),
    "lit_xor": (lambda a, b, c, k: literal(k) ^ a, lambda a, b, c, k: k.wrap(literal(k) ^ a)),
}
NOT = {"not": (lambda a, b, c, k: ~a, lambda a, b, c, k: k.wrap(~a))}


def operator_table(kind):
    table = dict(ELEMENTWISE)
    table.update(NOT)
    if not kind.ring:
        table.update(BITWISE)
    for s in shift_amounts(kind):
        table[f"shl{s}"] = (
            lambda a, b, c, k, s=s: a << s,
            lambda a, b, c, k, s=s: k.wrap(a << s),
        )
        # Logical for unsigned types, arithmetic (floor) for signed and ring ones:
        # Python's >> on the value as the type reads it is both.
        table[f"shr{s}"] = (
            lambda a, b, c, k, s=s: b >> s,
            lambda a, b, c, k, s=s: b >> s,
        )
    return table


def build_operators(kind, table):
    prog = huddle.Program(parties=3)
    with prog:
        a = huddle.input(party=0, type=kind.type, name="a")
        b = huddle.input(party=1, type=kind.type, name="b")
        c = huddle.input(party=2, type=huddle.bit, name="c")
        for name, (build, _) in table.items():
            huddle.reveal(build(a, b, c, kind), name=name)
    return prog


def check_outputs(outputs, table, kind, cases, where):
    a = [x for x, _, _ in cases]
    b = [y for _, y, _ in cases]
    c = [z for _, _, z in cases]
    wrong = []
    for name, (_, reference) in table.items():
        got = outputs[name]
        want = [reference(x, y, z, kind) for x, y, z in zip(a, b, c)]
        is_bit = isinstance(want[0], bool)
        assert got.shape == (len(cases),), (where, name, got.shape)
        assert got.dtype == (np.dtype(bool) if is_bit else kind.dtype), (where, name, got.dtype)
        bad = [(x, y, z, g, w) for x, y, z, g, w in zip(a, b, c, got.tolist(), want) if g != w]
        if bad:
            wrong.append((name, len(bad), bad[:3]))
    assert not wrong, f"{where} {kind.name}: (op, wrong instances, first (a, b, c, got, want)): {wrong}"


def operator_cases(kind, seed):
    rng = np.random.default_rng(seed + 1000)
    ab = pairs(kind, seed)
    cs = rng.integers(0, 2, size=len(ab)).astype(bool).tolist()
    return [(x, y, z) for (x, y), z in zip(ab, cs)]


def operator_inputs(kind, cases):
    return {
        "a": kind.array([x for x, _, _ in cases]),
        "b": kind.array([y for _, y, _ in cases]),
        "c": np.array([z for _, _, z in cases], dtype=bool),
    }


# Under trio too: each width class once, signed and unsigned, both domains.
UNDER_TRIO = {"bit", "u7", "i8", "u64", "i63", "ring8", "ring64"}


@pytest.mark.parametrize("kind", BOOLEAN + RINGS, ids=lambda k: k.name)
def test_every_elementwise_operator_against_python_integers(kind):
    table = operator_table(kind)
    prog = build_operators(kind, table)
    cases = operator_cases(kind, seed=kind.bits * 2 + kind.signed + 7 * kind.ring)
    inputs = operator_inputs(kind, cases)
    check_outputs(huddle.evaluate(prog, inputs), table, kind, cases, "evaluate")
    if kind.name in UNDER_TRIO:
        result = huddle.run_local(prog, "trio", inputs)
        check_outputs(result.outputs, table, kind, cases, "trio")


def test_comparisons_read_the_same_bits_as_signed_or_unsigned():
    # 200 and 100 as u8; as i8 the same bits are -56 and 100.
    prog = huddle.Program(parties=2)
    with prog:
        a = huddle.input(party=0, type=huddle.u8, name="a")
        b = huddle.input(party=1, type=huddle.u8, name="b")
        huddle.reveal(a < b, name="unsigned")
        huddle.reveal(a.astype(huddle.i8) < b.astype(huddle.i8), name="signed")
        huddle.reveal(a >> 1, name="logical")
        huddle.reveal(a.astype(huddle.i8) >> 1, name="arithmetic")
    out = huddle.evaluate(prog, {"a": [200, 100, 127, 128], "b": [100, 200, 128, 127]})
    assert out["unsigned"].tolist() == [False, True, True, False]
    assert out["signed"].tolist() == [True, False, False, True]
    assert out["logical"].tolist() == [100, 50, 63, 64]
    assert out["arithmetic"].tolist() == [-28, 50, 63, -64]


def test_a_plain_list_of_u64_edge_values_is_taken_as_integers():
    prog = huddle.Program(parties=2)
    with prog:
        huddle.reveal(huddle.input(party=0, type=huddle.u64, name="a") + 0, name="a")
    edge = [0, 1, 2**63 - 1, 2**63, 2**64 - 1]
    assert huddle.evaluate(prog, {"a": edge})["a"].tolist() == edge
    # numpy alone would read that list as float64 and round 2^63 - 1.
    with pytest.raises(huddle.HuddleError):
        huddle.evaluate(prog, {"a": [0.5, 2**63]})


# --- reductions and products -------------------------------------------------

N, M, R = 6, 3, 2


def reference_matmul(kind, x, y):
    """x (r, n) times y (n, m), each sum wrapped; bits multiply by AND and add by XOR."""
    n = len(y)
    return [
        [kind.wrap(sum(x[i][t] * y[t][j] for t in range(n))) for j in range(len(y[0]))]
        for i in range(len(x))
    ]


def build_reductions(kind):
    prog = huddle.Program(parties=3)
    with prog:
        x = huddle.input(party=0, type=kind.type, shape=(N,), name="x")
        y = huddle.input(party=1, type=kind.type, shape=(N,), name="y")
        m = huddle.input(party=1, type=kind.type, shape=(N, M), name="m")
        a = huddle.input(party=2, type=kind.type, shape=(R, N), name="a")
        huddle.reveal(huddle.sum(x), name="sum")
        huddle.reveal(huddle.sum(m), name="sum_matrix")
        huddle.reveal(huddle.dot(x, y), name="dot")
        huddle.reveal(x @ m, name="vecmat")
        huddle.reveal(huddle.matmul(a, m), name="matmat")
        huddle.reveal(a @ y, name="matvec")
        huddle.reveal(m.T @ x, name="transposed")
        huddle.reveal(huddle.min(x), name="min")
        huddle.reveal(huddle.max(m), name="max")
        huddle.reveal(x * y, name="elementwise")
        huddle.reveal(m + x[0], name="broadcast")
    return prog


def reductions_reference(kind, x, y, m, a):
    """The outputs of build_reductions for one instance."""
    flat_m = [v for row in m for v in row]
    mt = [list(col) for col in zip(*m)]
    return {
        "sum": kind.wrap(sum(x)),
        "sum_matrix": kind.wrap(sum(flat_m)),
        "dot": kind.wrap(sum(p * q for p, q in zip(x, y))),
        "vecmat": reference_matmul(kind, [x], m)[0],
        "matmat": reference_matmul(kind, a, m),
        "matvec": [row[0] for row in reference_matmul(kind, a, [[v] for v in y])],
        "transposed": [row[0] for row in reference_matmul(kind, mt, [[v] for v in x])],
        "min": min(x),
        "max": max(flat_m),
        "elementwise": [kind.wrap(p * q) for p, q in zip(x, y)],
        "broadcast": [[kind.wrap(v + x[0]) for v in row] for row in m],
    }


REDUCED = [BIT, uint(8), sint(8), uint(32), sint(63), uint(64), ring(8), ring(64)]


@pytest.mark.parametrize("kind", REDUCED, ids=lambda k: k.name)
def test_sum_dot_matmul_min_max_of_vectors_and_matrices(kind):
    rng = np.random.default_rng(kind.bits * 3 + kind.signed)
    batch = 40

    def draw(*shape):
        size = math.prod(shape)
        values = random_values(kind, rng, batch * size)
        # Two instances of maxima only and two of minima: sums wrap around.
        for i in range(4 * size):
            values[i] = kind.hi if i < 2 * size else kind.lo
        return np.array(values, dtype=object).reshape((batch,) + shape).tolist()

    x, y, m, a = draw(N), draw(N), draw(N, M), draw(R, N)
    inputs = {name: kind.array(v) for name, v in zip("xyma", (x, y, m, a))}
    prog = build_reductions(kind)
    out = huddle.evaluate(prog, inputs)
    for name in reductions_reference(kind, x[0], y[0], m[0], a[0]):
        want = [reductions_reference(kind, *case)[name] for case in zip(x, y, m, a)]
        got = out[name]
        assert got.shape == np.array(want).shape, name
        assert got.tolist() == want, (kind.name, name)
    if kind.name in UNDER_TRIO:
        trio = huddle.run_local(prog, "trio", inputs).outputs
        for name in out.names:
            assert (trio[name] == out[name]).all(), (kind.name, name)


def test_indexing_slicing_stacking_reshaping_move_values():
    prog = huddle.Program(parties=3)
    with prog:
        m = huddle.input(party=0, type=huddle.i16, shape=(3, 4), name="m")
        assert (m.shape, m.ndim, len(m), m.type) == ((3, 4), 2, 3, huddle.i16)
        huddle.reveal(m[1], name="row")
        huddle.reveal(m[2, 3], name="element")
        huddle.reveal(m[1][0:4:2], name="sliced")
        huddle.reveal(huddle.stack([row[0] for row in m]), name="column")
        huddle.reveal(huddle.stack([m[2], m[0]]), name="stacked")
        huddle.reveal(m.reshape((2, 6)), name="reshaped")
        huddle.reveal(m.T, name="transposed")
        huddle.reveal(huddle.convert(m, huddle.u8), name="converted")
    values = np.arange(-6, 6, dtype=np.int64).reshape(3, 4) * 1000
    out = huddle.evaluate(prog, {"m": values})
    assert out["row"].tolist() == [values[1].tolist()]
    assert out["element"].tolist() == [values[2, 3]]
    assert out["sliced"].tolist() == [values[1][0:4:2].tolist()]
    assert out["column"].tolist() == [values[:, 0].tolist()]
    assert out["stacked"].tolist() == [[values[2].tolist(), values[0].tolist()]]
    assert out["reshaped"].tolist() == [values.reshape(2, 6).tolist()]
    assert out["transposed"].tolist() == [values.T.tolist()]
    assert out["converted"].tolist() == [(values % 256).tolist()]


# --- conversions ---------------------------------------------------------------


def fixed(f, k):
    return Kind(f"fixed{k}.{f}", k, True, ring=True, frac=f)


def convert_reference(src, dst, raw):
    """Rust's `as` from the raw value of src to dst, as dst's output reads it.
    raw: the integer src holds (fixed point: x·2^f)."""
    if dst.frac or (dst.ring and src.frac):
        shift = dst.frac - src.frac
        scaled = raw << shift if shift >= 0 else raw >> -shift
        out = dst.wrap(scaled)
        return out / 2**dst.frac if dst.frac else out
    whole = raw >> src.frac  # a fixed-point value to an integer rounds toward -inf
    return dst.wrap(whole)


def fixed_inputs(kind, rng, n):
    """Raw values of a fixed-point type whose floats are exact (below 2^52)."""
    top = min(kind.bits - 1, 52)
    lo, hi = -(1 << top), (1 << top) - 1
    unit = 1 << kind.frac
    chosen = [0, 1, -1, unit, -unit, unit + unit // 2, -unit - unit // 2, lo, hi, hi - unit]
    return chosen + [int(v) for v in rng.integers(lo, hi, size=n)]


DOMAINS = {
    64: (
        [BIT, uint(8), sint(8), uint(32), sint(32), uint(64), sint(64), ring(64), fixed(16, 64)],
        [BIT, uint(1), sint(1), uint(8), sint(8), sint(63), uint(64), sint(64), ring(64),
         fixed(16, 64), fixed(8, 64), fixed(20, 64)],
    ),
    32: (
        [uint(16), sint(16), ring(32), fixed(8, 32)],
        [BIT, uint(16), sint(16), uint(64), sint(64), ring(32), fixed(8, 32), fixed(4, 32)],
    ),
    8: (
        [uint(8), sint(8), sint(7), ring(8), fixed(3, 8)],
        [BIT, uint(8), sint(8), uint(31), sint(32), ring(8), fixed(3, 8), fixed(5, 8)],
    ),
}


@pytest.mark.parametrize("k", sorted(DOMAINS), ids=lambda k: f"ring{k}")
def test_conversions_between_domains_are_rusts_as(k):
    sources, targets = DOMAINS[k]
    rng = np.random.default_rng(k)
    raws = {}
    for src in sources:
        # One batch: 60 instances of every source, its edge values first.
        if src.frac:
            raws[src] = fixed_inputs(src, rng, 60)[:60]
        else:
            raws[src] = (edges(src) + random_values(src, rng, 60))[:60]
    prog = huddle.Program(parties=3)
    with prog:
        for i, src in enumerate(sources):
            value = huddle.input(party=i % 3, type=src.type, name=f"from_{i}")
            for j, dst in enumerate(targets):
                huddle.reveal(value.astype(dst.type), name=f"c{i}_{j}")
    inputs = {
        f"from_{i}": (np.array([r / 2**s.frac for r in raws[s]]) if s.frac else s.array(raws[s]))
        for i, s in enumerate(sources)
    }
    out = huddle.evaluate(prog, inputs)
    wrong = []
    for i, src in enumerate(sources):
        for j, dst in enumerate(targets):
            want = [convert_reference(src, dst, r) for r in raws[src]]
            got = out[f"c{i}_{j}"]
            assert got.dtype == (np.float64 if dst.frac else dst.dtype), (src, dst)
            if got.tolist() != want:
                bad = [(r, g, w) for r, g, w in zip(raws[src], got.tolist(), want) if g != w]
                wrong.append((src.name, dst.name, bad[:3]))
    assert not wrong, wrong
    if k == 64:
        trio = huddle.run_local(prog, "trio", inputs).outputs
        for name in out.names:
            assert (trio[name] == out[name]).all(), name


# --- fixed point -----------------------------------------------------------------

FIXED = [fixed(16, 64), fixed(8, 32)]


def fixed_operands(kind, rng, n):
    """Floats whose products of raw values stay far inside the ring (|x| < 2^(k/4 - 1))."""
    bound = 2.0 ** (kind.bits // 4 - 1)
    values = rng.uniform(-bound, bound, size=n)
    values[:8] = [0.0, 1.0, -1.0, 0.5, bound - 1, -bound + 1, 2.0**-kind.frac, -(2.0**-kind.frac)]
    return values


@pytest.mark.parametrize("kind", FIXED, ids=lambda k: k.name)
def test_fixed_point_products_and_encodings_within_their_bounds(kind):
    f = kind.frac
    unit = Fraction(1, 2**f)
    rng = np.random.default_rng(kind.bits + f)
    a, b = fixed_operands(kind, rng, 300), fixed_operands(kind, rng, 300)
    prog = huddle.Program(parties=3)
    with prog:
        x = huddle.input(party=0, type=kind.type, name="a")
        y = huddle.input(party=1, type=kind.type, name="b")
        huddle.reveal(x, name="a")
        huddle.reveal(y, name="b")
        huddle.reveal(x * y, name="mul")
        huddle.reveal(x * 0.375, name="mul_literal")
        huddle.reveal(3 * x - y * -2, name="whole")
        huddle.reveal(x + y, name="add")
        huddle.reveal(-x, name="neg")
        huddle.reveal(abs(y), name="abs")
        huddle.reveal(x < y, name="lt")
        huddle.reveal(x >= 0.5, name="ge_literal")
        huddle.reveal(huddle.max(x, y), name="max")
        huddle.reveal(x >> 2, name="shr")
        huddle.reveal(huddle.constant([0.1, -2.7], kind.type), name="constant")
    inputs = {"a": a, "b": b}
    out = huddle.evaluate(prog, inputs)
    # Encoding: to the nearest multiple of 2^-f.
    for given, name in ((a, "a"), (b, "b")):
        assert out[name].dtype == np.float64
        assert np.all(np.abs(out[name] - given) <= 2.0 ** (-f - 1)), name
    constant = [Fraction(v) for v in out["constant"][0]]
    assert abs(constant[0] - Fraction(0.1)) <= unit / 2 and abs(constant[1] - Fraction(-2.7)) <= unit / 2
    ea = [Fraction(v) for v in out["a"]]
    eb = [Fraction(v) for v in out["b"]]
    lit = Fraction(0.375)
    for i, (p, q) in enumerate(zip(ea, eb)):
        where = (kind.name, i, float(p), float(q))
        # The evaluator rounds a product toward -inf: within [-2^-f, 0] of the exact one.
        assert -unit <= Fraction(out["mul"][i]) - p * q <= 0, where
        assert -unit <= Fraction(out["mul_literal"][i]) - p * lit <= 0, where
        # Products by whole numbers, sums, negation, comparisons are exact.
        assert Fraction(out["whole"][i]) == 3 * p + 2 * q, where
        assert Fraction(out["add"][i]) == p + q, where
        assert Fraction(out["neg"][i]) == -p, where
        assert Fraction(out["abs"][i]) == abs(q), where
        assert out["lt"][i] == (p < q), where
        assert out["ge_literal"][i] == (p >= Fraction(1, 2)), where
        assert Fraction(out["max"][i]) == max(p, q), where
        assert Fraction(out["shr"][i]) == Fraction(math.floor(p / unit) >> 2) * unit, where
    # trio truncates exactly by default: the evaluator's outputs, bit for bit.
    trio = huddle.run_local(prog, "trio", inputs).outputs
    for name in out.names:
        assert (trio[name] == out[name]).all(), name


@pytest.mark.parametrize("kind", FIXED, ids=lambda k: k.name)
def test_fixed_point_dot_and_matmul_truncate_once(kind):
    f = kind.frac
    unit = Fraction(1, 2**f)
    rng = np.random.default_rng(3 * kind.bits)
    batch, n = 50, 8
    # n products per sum: keep each a factor n smaller.
    scale = 2.0 ** (kind.bits // 4 - 3)
    x = rng.uniform(-scale, scale, size=(batch, n))
    m = rng.uniform(-scale, scale, size=(batch, n, 2))
    prog = huddle.Program(parties=3)
    with prog:
        xs = huddle.input(party=0, type=kind.type, shape=(n,), name="x")
        ms = huddle.input(party=1, type=kind.type, shape=(n, 2), name="m")
        huddle.reveal(xs, name="x")
        huddle.reveal(ms, name="m")
        huddle.reveal(huddle.dot(xs, ms.T[0]), name="dot")
        huddle.reveal(xs @ ms, name="vecmat")
        huddle.reveal(huddle.sum(xs), name="sum")
    out = huddle.evaluate(prog, {"x": x, "m": m})
    for i in range(batch):
        ex = [Fraction(v) for v in out["x"][i]]
        em = [[Fraction(v) for v in row] for row in out["m"][i]]
        for j in range(2):
            exact = sum(p * row[j] for p, row in zip(ex, em))
            assert -unit <= Fraction(out["vecmat"][i][j]) - exact <= 0, (i, j)
        assert -unit <= Fraction(out["dot"][i]) - sum(p * row[0] for p, row in zip(ex, em)) <= 0
        assert Fraction(out["sum"][i]) == sum(ex)


# --- what operators refuse --------------------------------------------------------


def test_operators_refuse_what_their_types_do_not_allow():
    prog = huddle.Program(parties=2)
    with prog:
        r = huddle.input(party=0, type=huddle.ring(32), name="r")
        u = huddle.input(party=1, type=huddle.u8, name="u")
        x = huddle.input(party=1, type=huddle.fixed(8, 32), name="x")
        with pytest.raises(huddle.ProgramError, match="bitwise operators need Boolean-domain values"):
            r & r
        with pytest.raises(huddle.ProgramError, match="the operands' types differ: u8 \\(\\) and ring32"):
            u + r
        with pytest.raises(huddle.ProgramError, match="u8 cannot hold 256"):
            u + 256
        with pytest.raises(huddle.ProgramError, match="u8 cannot hold -1"):
            u * -1
        with pytest.raises(huddle.ProgramError, match="bitwise NOT of fixed32.8"):
            ~x
        with pytest.raises(huddle.ProgramError, match="a program has one ring width"):
            huddle.input(party=0, type=huddle.ring(64), name="wide")
        with pytest.raises(huddle.ProgramError, match="shapes"):
            huddle.input(party=0, type=huddle.u8, shape=(2,), name="v") + huddle.input(
                party=1, type=huddle.u8, shape=(3,), name="w"
            )
        with pytest.raises(TypeError, match="huddle.select"):
            if u < 3:
                pass
