"""Values between numpy and the engine (python/src/values.rs, pack.rs):
every integer dtype and bool, non-contiguous and non-native arrays,
negative numbers as two's complement, values too wide, widths that are not
whole bytes or words. Identity circuits (each output wire a copy of an
input wire) show what reached the engine."""

import numpy as np
import pytest

import huddle

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def identity(tmp_path, width, ring=None):
    """A circuit whose one output is a copy of its one input: `width` bits,
    or `width` elements of Z_2^ring."""
    unit = f"{width}r" if ring else f"{width}"
    lines = ([f"ring {ring}"] if ring else []) + [f"{width} {2 * width}", f"1 {unit}", f"1 {unit}", ""]
    lines += [f"1 1 {i} {width + i} EQW" for i in range(width)]
    path = tmp_path / f"identity-{width}-{ring}.txt"
    path.write_text("\n".join(lines) + "\n")
    return huddle.Circuit.load(str(path))


def as_bits(values, width):
    """Python ints as rows of bits, wire j in column j (two's complement)."""
    return np.array([[(v >> j) & 1 for j in range(width)] for v in values], dtype=np.uint8)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_boolean_values_from_every_integer_dtype(tmp_path, dtype):
    c = identity(tmp_path, 8)
    info = np.iinfo(dtype)
    # The dtype's extremes that fit 8 bits, signed or unsigned.
    values = [v for v in (0, 1, 127, 255, -1, -128, info.min, info.max) if -128 <= v < 256 and info.min <= v <= info.max]
    out = huddle.evaluate(c, [np.array(values, dtype=dtype)])
    assert (out[0] == as_bits(values, 8)).all()
    assert list(out.integers(0)) == [v % 256 for v in values]


@pytest.mark.parametrize("dtype", INT_DTYPES + [bool])
def test_bits_from_every_integer_dtype_and_bool(tmp_path, dtype):
    # 77 bits: a whole word, whole bytes and a tail of 5.
    c = identity(tmp_path, 77)
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2, size=(13, 77), dtype=np.uint8)
    out = huddle.evaluate(c, [bits.astype(dtype)])
    assert out[0].dtype == np.uint8 and out[0].shape == (13, 77)
    assert (out[0] == bits).all()


def test_one_instance_of_bools_and_bits_that_are_not_0_or_1(tmp_path):
    c = identity(tmp_path, 10)
    one = np.array([1, 0, 1, 1, 0, 0, 0, 0, 0, 1], dtype=bool)
    assert list(huddle.evaluate(c, [one]).integers(0)) == [1 + 4 + 8 + 512]
    for bad, shown in [(2, "2"), (-1, "-1"), (256, "256")]:
        bits = np.zeros((3, 10), dtype=np.int64)
        bits[2, 9] = bad
        with pytest.raises(huddle.InputError, match=f"bits must be 0 or 1, got {shown}$"):
            huddle.evaluate(c, [bits])
    # A bit in a whole byte of eight and in the tail.
    for col in (3, 9):
        bits = np.zeros((2, 10), dtype=np.uint8)
        bits[1, col] = 7
        with pytest.raises(huddle.InputError, match="bits must be 0 or 1, got 7$"):
            huddle.evaluate(c, [bits])
    # A bool array over bytes that are not 0/1 is refused the same way.
    raw = np.zeros((1, 10), dtype=np.uint8)
    raw[0, 4] = 2
    with pytest.raises(huddle.InputError, match="bits must be 0 or 1, got 2$"):
        huddle.evaluate(c, [raw.view(bool)])


def test_non_contiguous_fortran_reversed_and_big_endian_arrays(tmp_path):
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 2, size=(40, 9), dtype=np.uint8)
    c = identity(tmp_path, 9)
    for given in (
        np.asfortranarray(bits),                    # column-major
        bits[::-1],                                 # negative strides
        np.ascontiguousarray(bits.T).T,             # a transposed view
        np.repeat(bits, 2, axis=0)[::2],            # every other row
        np.repeat(bits, 3, axis=1)[:, ::3],         # every third column
        bits.astype(bool)[::-1],                    # bools, negative strides
        bits.astype(">u2")[:, :],                   # big-endian
        bits.astype(">i8")[::-1],                   # big-endian, negative strides
    ):
        assert not given.flags.c_contiguous or not given.dtype.isnative
        assert (huddle.evaluate(c, [given])[0] == given).all()
    ints = rng.integers(-128, 256, size=50)
    ring = identity(tmp_path, 1, ring=16)
    for given in (ints[::2], ints[::-1], ints.astype(">i4"), ints.astype(">u8") if ints.min() >= 0 else ints.astype(">i8")):
        out = huddle.evaluate(ring, [given])
        assert (out.integers(0, signed=True)[:, 0] == np.asarray(given, dtype=np.int64)).all()
    matrix = rng.integers(0, 2**8, size=(5, 6), dtype=np.uint64)
    ring3 = identity(tmp_path, 3, ring=8)
    out = huddle.evaluate(ring3, [matrix[:, ::2]])
    assert (out[0] == matrix[:, ::2]).all()


def test_ring_values_of_narrow_rings_pack_element_after_element(tmp_path):
    # Three 8-bit elements share one word of a row.
    c = identity(tmp_path, 3, ring=8)
    x = np.array([[1, -1, 255], [-128, 127, 0]], dtype=np.int16)
    out = huddle.evaluate(c, [x])
    assert out[0].dtype == np.uint64 and (out[0] == x.astype(np.int64) % 256).all()
    signed = out.integers(0, signed=True)
    assert signed.dtype == np.int64 and (signed == np.array([[1, -1, -1], [-128, 127, 0]])).all()
    # Five 40-bit elements straddle words (ring 64 keeps whole words; 32
    # bits: two to a word).
    c32 = identity(tmp_path, 5, ring=32)
    y = np.array([[2**32 - 1, -(2**31), 0, 12345, -2]], dtype=np.int64)
    got = huddle.evaluate(c32, [y]).integers(0, signed=True)
    assert (got == np.array([[-1, -(2**31), 0, 12345, -2]])).all()


def test_negative_numbers_are_twos_complement_and_too_wide_values_are_refused(tmp_path):
    ring8 = identity(tmp_path, 1, ring=8)
    assert list(huddle.evaluate(ring8, [np.array([-1, -128, 255], dtype=np.int64)])[0][:, 0]) == [255, 128, 255]
    for bad, dtype in [(256, np.int64), (-129, np.int64), (2**64 - 1, np.uint64), (300, np.uint16), (-200, np.int16)]:
        with pytest.raises(huddle.InputError, match=f"{bad} does not fit in 8 bits"):
            huddle.evaluate(ring8, [np.array([0, bad], dtype=dtype)])
    ring64 = identity(tmp_path, 1, ring=64)
    extremes = np.array([np.iinfo(np.int64).min, -1, np.iinfo(np.int64).max], dtype=np.int64)
    out = huddle.evaluate(ring64, [extremes])
    assert (out.integers(0, signed=True)[:, 0] == extremes).all()
    assert out[0][1, 0] == 2**64 - 1
    # Wider than a machine word: numpy integers are sign-extended, Python
    # ints are checked against the width.
    wide = identity(tmp_path, 100)
    out = huddle.evaluate(wide, [np.array([-1, 5, -(2**63)], dtype=np.int64)])
    assert list(out.integers(0)) == [2**100 - 1, 5, 2**100 - 2**63]
    assert list(out.integers(0, signed=True)) == [-1, 5, -(2**63)]
    assert (out[0][0] == 1).all() and out[0].shape == (3, 100)
    assert list(huddle.evaluate(wide, [[2**99, -(2**99)]]).integers(0)) == [2**99, 2**99]
    for bad in (2**100, -(2**99) - 1):
        with pytest.raises(huddle.InputError, match="does not fit in 100 bits"):
            huddle.evaluate(wide, [[0, bad]])


def test_floats_and_three_dimensional_arrays_are_refused(tmp_path):
    c = identity(tmp_path, 8)
    with pytest.raises(huddle.InputError, match="expected integers or bits"):
        huddle.evaluate(c, [np.array([1.5, 2.0])])
    with pytest.raises(huddle.InputError, match="expected integers or bits"):
        huddle.evaluate(c, [np.zeros((2, 2, 8), dtype=np.uint8)])


def test_outputs_of_every_width_round_trip_through_the_protocols(tmp_path):
    rng = np.random.default_rng(5)
    for width in (1, 7, 8, 63, 64, 65, 130):
        c = identity(tmp_path, width)
        bits = rng.integers(0, 2, size=(1000, width), dtype=np.uint8)
        out = huddle.run_local(c, "trio", [bits]).outputs
        assert out[0].shape == (1000, width) and (out[0] == bits).all(), width
