"""AES-128 written as a program, checked on the FIPS-197 vector.

Party 0 holds the key, party 1 the plaintext; both are secret byte vectors
(`huddle.u8`). The cipher is ordinary Python over secret bytes: the S-box
is the inverse in GF(2^8) (x^254: four products of secret bytes, squares
and constant products cost no AND) and the affine map; ShiftRows only
moves values; MixColumns and the key schedule are XORs. The Python loops
unroll into the circuit while the program is built. The same cipher, with
S-boxes hand-optimized to a fraction of the ANDs, is `huddle.gen.aes128()`;
the example runs both and prints their costs.

Run: python python/examples/aes.py
"""

import huddle

KEY = bytes.fromhex("000102030405060708090a0b0c0d0e0f")  # FIPS-197 Appendix C.1
PLAINTEXT = bytes.fromhex("00112233445566778899aabbccddeeff")
CIPHERTEXT = bytes.fromhex("69c4e0d86a7b0430d8cdb78070b4c55a")


def times_x(a):
    """a·x in GF(2^8) (a secret byte or a public int)."""
    if isinstance(a, int):
        return ((a << 1) ^ (0x1B if a & 0x80 else 0)) & 0xFF
    return (a << 1) ^ (bit_mask(a, 7) & 0x1B)


def bit_mask(a, i):
    """0xff where bit i of the secret byte a is 1, else 0: moving wires only
    (bit i to the top, then an arithmetic shift copies it down)."""
    return ((a.astype(huddle.i8) << (7 - i)) >> 7).astype(huddle.u8)


def multiply(a, b):
    """a·b of two secret bytes in GF(2^8): 64 ANDs."""
    product = a & bit_mask(b, 0)
    for i in range(1, 8):
        a = times_x(a)
        product = product ^ (a & bit_mask(b, i))
    return product


# x^(2i) in GF(2^8): squaring is linear, a sum of public multiples of a's bits.
SQUARES = [1]
for _ in range(14):
    SQUARES.append(times_x(SQUARES[-1]))
SQUARES = SQUARES[::2]


def square(a):
    result = bit_mask(a, 0) & SQUARES[0]
    for i in range(1, 8):
        result = result ^ (bit_mask(a, i) & SQUARES[i])
    return result


def sbox(x):
    """AES's S-box: the affine map of x^254 (the inverse, 0 for 0)."""
    x2 = square(x)
    x3 = multiply(x2, x)
    x12 = square(square(x3))
    x14, x15 = multiply(x12, x2), multiply(x12, x3)
    x240 = square(square(square(square(x15))))
    y = multiply(x240, x14)
    out = y ^ 0x63
    for s in range(1, 5):
        out = out ^ (y << s) ^ (y >> (8 - s))  # y rotated left by s
    return out


def round_keys(key):
    words = [key[4 * i : 4 * i + 4] for i in range(4)]
    rcon = 1
    for i in range(4, 44):
        t = list(words[i - 1])
        if i % 4 == 0:
            t = [sbox(b) for b in t[1:] + t[:1]]
            t[0] = t[0] ^ rcon
            rcon = times_x(rcon)
        words.append([p ^ q for p, q in zip(words[i - 4], t)])
    return [sum(words[4 * r : 4 * r + 4], []) for r in range(11)]


def mix_column(a):
    total = a[0] ^ a[1] ^ a[2] ^ a[3]
    return [a[j] ^ total ^ times_x(a[j] ^ a[(j + 1) % 4]) for j in range(4)]


def encrypt(key, text):
    keys = round_keys(key)
    state = [p ^ k for p, k in zip(text, keys[0])]
    for r in range(1, 11):
        state = [sbox(b) for b in state]
        state = [state[(i + 4 * (i % 4)) % 16] for i in range(16)]  # ShiftRows
        if r < 10:
            state = sum((mix_column(state[4 * c : 4 * c + 4]) for c in range(4)), [])
        state = [p ^ k for p, k in zip(state, keys[r])]
    return state


def build():
    prog = huddle.Program(parties=3)
    with prog:
        key = huddle.input(party=0, type=huddle.u8, shape=(16,), name="key")
        text = huddle.input(party=1, type=huddle.u8, shape=(16,), name="plaintext")
        huddle.reveal(huddle.stack(encrypt(list(key), list(text))), name="ciphertext")
    return prog


def main():
    program = build().compile()
    result = huddle.run_local(program, "trio", inputs={"key": list(KEY), "plaintext": list(PLAINTEXT)})
    ciphertext = bytes(result.outputs["ciphertext"][0].tolist())
    print(f"ciphertext: {ciphertext.hex()}")
    assert ciphertext == CIPHERTEXT

    generated = huddle.gen.aes128()
    check = huddle.run_local(generated, "trio", {0: KEY, 1: PLAINTEXT})
    assert check.outputs.integers("ciphertext")[0] == int.from_bytes(CIPHERTEXT, "big")
    print(f"{'circuit':<18} {'ANDs':>7} {'AND-depth':>9} {'bytes (trio)':>12}")
    for name, circuit, run in (("this program", program, result), ("huddle.gen.aes128", generated, check)):
        stats = circuit.stats()
        print(f"{name:<18} {stats['and_count']:>7} {stats['and_depth']:>9} {run.report.total_bytes:>12}")


if __name__ == "__main__":
    main()
