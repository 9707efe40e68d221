"""Errors: one class per exit-code category, the engine's messages."""

import numpy as np
import pytest

import huddle


def test_the_classes_carry_their_exit_table_row():
    # docs/cli.md's exit codes.
    assert (huddle.InputError.category, huddle.InputError.exit_code) == ("input", 2)
    assert (huddle.AbortError.category, huddle.AbortError.exit_code) == ("abort", 3)
    assert huddle.NetworkError.exit_code == 4
    assert huddle.ResourceError.exit_code == 5
    assert huddle.InternalError.exit_code == 6
    assert huddle.MismatchError.exit_code == 7
    assert huddle.InterruptedRunError.exit_code == 130
    assert issubclass(huddle.RefusedError, huddle.InputError)
    for cls in (huddle.InputError, huddle.AbortError, huddle.NetworkError, huddle.MismatchError,
                huddle.ResourceError, huddle.InternalError, huddle.InterruptedRunError):
        assert issubclass(cls, huddle.HuddleError)


def test_an_unknown_protocol_is_an_input_error_listing_the_known_ones():
    with pytest.raises(huddle.InputError) as e:
        huddle.run_local(huddle.gen.adder(8), "trio2", [1, 2])
    message = str(e.value)
    assert message.startswith("unknown protocol `trio2` (this build runs: ")
    assert all(p in message for p in huddle.protocols())
    assert e.value.party is None


def test_a_value_of_the_wrong_width_is_refused_with_the_engines_message():
    adder = huddle.gen.adder(8)
    with pytest.raises(huddle.InputError) as e:
        huddle.run_local(adder, "trio", [np.zeros((2, 7), dtype=np.uint8), 1])
    assert str(e.value) == "party 0: input value 0 must be 2 instances of 8 bits, got 2 of 7"
    with pytest.raises(huddle.InputError, match=r"input value 1 \(`.*`\): 256 does not fit in 8 bits"):
        huddle.run_local(adder, "trio", [1, 256])
    with pytest.raises(huddle.InputError, match=r"does not fit in 8 bits"):
        huddle.evaluate(adder, [1, -129])
    with pytest.raises(huddle.InputError, match="bits must be 0 or 1"):
        huddle.evaluate(adder, [np.full((1, 8), 2), 1])
    with pytest.raises(huddle.InputError, match="takes 4 elements per instance"):
        huddle.evaluate(huddle.gen.application("vecmat", size=[2], bits=16), [[1, 2], [1, 2, 3]])


def test_missing_twice_given_and_unknown_inputs_are_named():
    adder = huddle.gen.adder(8)
    names = [v["name"] for v in adder.inputs]
    with pytest.raises(huddle.InputError, match=f"input value 1 \\(`{names[1]}`\\) is not given"):
        huddle.run_local(adder, "trio", {0: 1})
    with pytest.raises(huddle.InputError, match="is given twice"):
        huddle.run_local(adder, "trio", {0: 1, names[0]: 2, 1: 3})
    with pytest.raises(huddle.InputError, match="party 2 owns no input value"):
        huddle.run_local(adder, "trio", {0: 1, 1: 2, 2: 3})
    with pytest.raises(huddle.InputError, match="the circuit has no input value `z`"):
        huddle.evaluate(adder, {"z": 1})
    with pytest.raises(huddle.InputError, match="takes 2 input values"):
        huddle.evaluate(adder, [1])


def test_a_refused_option_is_a_refused_error_naming_it():
    with pytest.raises(huddle.RefusedError) as e:
        huddle.run_local(huddle.gen.adder(8), "bgw3", [1, 2], split_roles=True)
    assert e.value.refusal == "option" and e.value.option == "split-roles"
    assert str(e.value).startswith("bgw3 has no roles to split")
    assert e.value.exit_code == 2


def test_too_few_parties_for_any_security_is_refused_with_the_smallest_count():
    with pytest.raises(huddle.RefusedError) as e:
        huddle.run_local(huddle.gen.adder(8), "bgw2-mal", [1, 2], parties=3)
    assert e.value.refusal == "no-security" and e.value.smallest > 3


def test_a_circuit_garbling_cannot_run_is_refused_before_anything_runs():
    ring = huddle.gen.application("vecmat", size=[2], bits=16)
    with pytest.raises(huddle.InputError, match="bgw3"):
        huddle.run_local(ring, "bgw3", [[1, 2], [1, 2, 3, 4]])


def test_a_bad_network_profile_is_an_input_error():
    with pytest.raises(huddle.InputError, match="unknown network profile `moon`"):
        huddle.run_local(huddle.gen.adder(8), "trio", [1, 2], net="moon")
    with pytest.raises(TypeError, match="expected a huddle.Circuit"):
        huddle.run_local("adder.txt", "trio", [1, 2])
