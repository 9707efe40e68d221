"""huddle.Party.run with a program: three processes over TLS, each
building the program itself; a party gets only the outputs it learns, and
hosts whose programs differ only in their interface stop at connect."""

import textwrap

import pytest

from test_party import parties_file, run_parties

PARTY = textwrap.dedent(
    """
    import json, sys
    import huddle
    config, me, to, variant = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    # "mixed": the sum to party 0, the comparison to party 2.
    to_sum, to_big = {"all": ("all", "all"), "mixed": (0, 2)}.get(to) or (int(to), int(to))
    b_name = "b" if variant == "same" else "renamed"
    prog = huddle.Program(parties=3)
    with prog:
        a = huddle.input(0, huddle.u16, (3,), name="a")
        b = huddle.input(1, huddle.u16, (3,), name=b_name)
        t = huddle.public("t", huddle.u16)
        huddle.reveal(a + b, to=to_sum, name="sum")
        huddle.reveal(huddle.sum(a * b) > t, to=to_big, name="big")
    inputs = {0: {"a": [1, 2, 3]}, 1: [10, 20, 30], 2: None}[me]
    try:
        result = huddle.Party(config, me, setup_timeout=30).run(
            prog, "trio", inputs, publics={"t": 100}
        )
        outputs = {n: result[n].tolist() for n in result.outputs.names}
        print(json.dumps({"outputs": outputs, "party": result.report.to_dict().get("party")}))
    except huddle.HuddleError as e:
        print(json.dumps({"error": type(e).__name__, "message": str(e)}))
    """
)


def run_three(config, to, variants):
    return run_parties(PARTY, config, [[to, variant] for variant in variants])


WANT = {"sum": [[11, 22, 33]], "big": [True], "public_ok": [True]}


@pytest.mark.parametrize("to", ["2", "all"])
def test_three_processes_run_a_program_and_each_gets_what_it_learns(tmp_path, to):
    results = run_three(parties_file(tmp_path), to, ["same"] * 3)
    for me, result in enumerate(results):
        learns = to == "all" or int(to) == me
        assert result == {"outputs": WANT if learns else {}, "party": me}, result


def test_outputs_for_different_parties_reach_only_their_receivers(tmp_path):
    # Every party sees the sum and the comparison masked; only the
    # receiver's pads remove the mask, and whether the publics agreed
    # reaches every party.
    results = run_three(parties_file(tmp_path), "mixed", ["same"] * 3)
    ok = {"public_ok": [True]}
    assert results[0] == {"outputs": {"sum": WANT["sum"], **ok}, "party": 0}, results
    assert results[1] == {"outputs": ok, "party": 1}, results
    assert results[2] == {"outputs": {"big": WANT["big"], **ok}, "party": 2}, results


def test_hosts_with_another_interface_stop_at_connect(tmp_path):
    results = run_three(parties_file(tmp_path), "all", ["same", "same", "renamed"])
    assert all(r.get("error") == "MismatchError" for r in results), results
    # The circuits are the same (names are not part of a circuit): the
    # interface is what differs, and a party that compared says so.
    assert any("the programs differ in their interface" in r["message"] for r in results), results
