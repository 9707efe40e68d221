"""Yao's millionaires' problem under five protocols, with what each costs.

Alice (party 0) and Bob (party 1) learn who is richer and nothing else.
One program, a comparison of two secret 64-bit integers, runs under five
of huddle's protocols on an emulated wide-area network (`net="wan"`); the
table gives each run's online rounds, the bytes all parties sent and its
wall-clock seconds. The other parties of each protocol only help: trio,
mfi3 and bgw3 have three parties, ca2pc two and a dealer of correlated
randomness (party 2), quad four (secure against one malicious party).

Run: python python/examples/millionaires.py
"""

import huddle

ALICE, BOB = 3_141_592, 2_718_281  # in dollars
PROTOCOLS = {"trio": 3, "mfi3": 3, "ca2pc": 3, "bgw3": 3, "quad": 4}  # name: parties


def build(parties):
    prog = huddle.Program(parties=parties)
    with prog:
        alice = huddle.input(party=0, type=huddle.u64, name="alice")
        bob = huddle.input(party=1, type=huddle.u64, name="bob")
        huddle.reveal(alice > bob, name="alice_is_richer")
    return prog


def main():
    print(f"{'protocol':<9} {'parties':>7} {'rounds':>6} {'bytes':>7} {'seconds':>7}")
    for protocol, parties in PROTOCOLS.items():
        result = huddle.run_local(
            build(parties), protocol, inputs={"alice": ALICE, "bob": BOB}, net="wan"
        )
        answer = bool(result.outputs["alice_is_richer"][0])
        assert answer == (ALICE > BOB), protocol
        report = result.report
        print(f"{protocol:<9} {parties:>7} {report.online_rounds:>6} {report.total_bytes:>7} "
              f"{report.wall_seconds:>7.2f}")
    print(f"alice is richer: {answer}")


if __name__ == "__main__":
    main()
