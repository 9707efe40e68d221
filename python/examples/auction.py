"""A sealed-bid second-price (Vickrey) auction among ten bidders.

Every bidder is a party with one secret bid. The program scans the bids
once, keeping the highest bid, its bidder and the second-highest bid with
`huddle.select` (a Python `if` cannot branch on a secret); the parties
learn the winner and the price it pays, the second-highest bid, and no
other bid. Ties go to the lower bidder number, which then pays its own
bid. It runs under `bgw3`, multiparty garbling for any number of parties.

Run: python python/examples/auction.py
"""

import huddle

BIDS = [410, 975, 120, 730, 980, 655, 300, 977, 15, 640]  # bidder i's bid


def build(bidders):
    prog = huddle.Program(parties=bidders)
    with prog:
        bids = [huddle.input(party=i, type=huddle.u32, name=f"bid{i}") for i in range(bidders)]
        best, second = bids[0], huddle.constant(0, huddle.u32)
        winner = huddle.constant(0, huddle.u8)
        for i, bid in enumerate(bids[1:], start=1):
            higher = bid > best
            second = huddle.select(higher, best, huddle.max(second, bid))
            best = huddle.select(higher, bid, best)
            winner = huddle.select(higher, i, winner)
        huddle.reveal(winner, name="winner")
        huddle.reveal(second, name="price")
    return prog


def main():
    inputs = {f"bid{i}": bid for i, bid in enumerate(BIDS)}
    result = huddle.run_local(build(len(BIDS)), "bgw3", inputs=inputs)
    winner = int(result.outputs["winner"][0])
    price = int(result.outputs["price"][0])
    print(f"winner: bidder {winner}, pays {price}")

    ranked = sorted(range(len(BIDS)), key=lambda i: (-BIDS[i], i))
    assert (winner, price) == (ranked[0], BIDS[ranked[1]])


if __name__ == "__main__":
    main()
