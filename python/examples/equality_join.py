"""A private equality join: which of A's ids appear in B's list.

Party 0 (A) holds a list of customer ids, party 1 (B) another list; party
2 only helps compute (trio is a three-party protocol). The program
compares every id of A with every id of B and reveals to A alone one bit
per A id: whether B's list holds it. B learns nothing, A nothing of B's
other ids, the helper nothing.

Run: python python/examples/equality_join.py
"""

import huddle

A_IDS = [1042, 77731, 5060, 90017, 31337, 4, 66012, 123456]
B_IDS = [5060, 88, 123456, 70000, 1043, 31337, 2024, 99999, 4, 61, 77730, 500500]


def build(na, nb):
    prog = huddle.Program(parties=3)
    with prog:
        mine = huddle.input(party=0, type=huddle.u32, shape=(na,), name="a_ids")
        theirs = huddle.input(party=1, type=huddle.u32, shape=(nb,), name="b_ids")
        # (theirs == a) is a bit per B id; its maximum is their OR.
        found = huddle.stack([huddle.max(theirs == a) for a in mine])
        huddle.reveal(found, to=0, name="found")
    return prog


def main():
    result = huddle.run_local(
        build(len(A_IDS), len(B_IDS)), "trio", inputs={0: A_IDS, 1: B_IDS}
    )
    found = result.outputs["found"][0]
    print("A's ids in B's list:", [a for a, hit in zip(A_IDS, found) if hit])
    assert found.tolist() == [a in B_IDS for a in A_IDS]


if __name__ == "__main__":
    main()
