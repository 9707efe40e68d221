"""The mean and the maximum of three hospitals' patient ages.

Each hospital is a party with a CSV of its patients (data/*.csv, each of
another length). The program declares each hospital's ages as a
variable-length input of up to MAX_ROWS rows (`huddle.input_rows`): a
hospital's row count stays secret too, since only the validity bits say
which rows it gave. The program divides the secret sum of ages by the
secret count of patients inside the computation (long division, unrolled
into the circuit by a Python loop), so the parties learn the mean and the
maximum and nothing else: not each hospital's count, not the total.

Run: python python/examples/hospitals.py
"""

import csv
import pathlib

import huddle

DATA = pathlib.Path(__file__).parent / "data"
HOSPITALS = ["st_agnes", "riverside", "north_valley"]  # parties 0, 1, 2
MAX_ROWS = 64
FRACTION = 10  # the mean is rounded down to a multiple of 2^-10


def divide(n, d, bits):
    """floor(n / d) for secret unsigned n < 2^bits and d > 0: restoring
    long division, one compare-and-subtract per quotient bit."""
    q = r = huddle.constant(0, n.type)
    for i in reversed(range(bits)):
        r = (r << 1) | ((n >> i) & 1)
        take = r >= d
        r = huddle.select(take, r - d, r)
        q = (q << 1) | take.astype(n.type)
    return q


def build():
    prog = huddle.Program(parties=len(HOSPITALS))
    with prog:
        total = count = top = None
        for party, name in enumerate(HOSPITALS):
            ages = huddle.input_rows(party=party, type=huddle.u8, max_rows=MAX_ROWS, name=name)
            # Rows after the given ones are zeros: they add nothing to the sum
            # and the maximum (ages are >= 0); the count comes from `valid`.
            s = huddle.sum(ages.values.astype(huddle.u32))
            n = huddle.sum(ages.valid.astype(huddle.u32))
            m = huddle.max(ages.values)
            total = s if total is None else total + s
            count = n if count is None else count + n
            top = m if top is None else huddle.max(top, m)
        bits = (len(HOSPITALS) * MAX_ROWS * 255 << FRACTION).bit_length()
        huddle.reveal(divide(total << FRACTION, count, bits), name="mean")
        huddle.reveal(top, name="max")
    return prog


def read_ages(name):
    with open(DATA / f"{name}.csv", newline="") as f:
        return [int(row["age"]) for row in csv.DictReader(f)]


def main():
    ages = {name: read_ages(name) for name in HOSPITALS}
    result = huddle.run_local(build(), "trio", inputs=ages)
    mean = int(result.outputs["mean"][0]) / 2**FRACTION
    oldest = int(result.outputs["max"][0])

    everyone = [a for rows in ages.values() for a in rows]
    print(f"patients per hospital (each known only to its hospital): {[len(r) for r in ages.values()]}")
    print(f"mean age: {mean:.4f} (plaintext {sum(everyone) / len(everyone):.4f}, rounded down to 2^-{FRACTION})")
    print(f"max age: {oldest}")
    assert mean == (sum(everyone) << FRACTION) // len(everyone) / 2**FRACTION
    assert oldest == max(everyone)


if __name__ == "__main__":
    main()
