"""Ctrl-C during a run: every party stops, KeyboardInterrupt is raised, and
the process can go on (or ends as Python ends on an uncaught Ctrl-C)."""

import signal
import subprocess
import sys
import textwrap

import pytest

# A run that takes a minute or more (SHA-256 under Trio over an emulated WAN:
# hundreds of rounds of 100 ms), so that a SIGINT finds it running. A thread
# says "running" once the main thread is inside `go` with the GIL released,
# that is, inside run_local.
CHILD = textwrap.dedent(
    """
    import sys, threading, time
    import huddle

    circuit = huddle.gen.sha256()
    inputs = [0] * len(circuit.inputs)

    def go():
        return huddle.run_local(circuit, "trio", inputs, net="wan")

    def announce():
        main = threading.main_thread().ident
        while True:
            frame = sys._current_frames().get(main)
            if frame is not None and frame.f_code is go.__code__:
                print("running", flush=True)
                return
            time.sleep(0.001)

    threading.Thread(target=announce, daemon=True).start()
    if sys.argv[1] == "catch":
        try:
            go()
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
        # The process goes on: another run works.
        out = huddle.run_local(huddle.gen.adder(8), "trio", [2, 3])
        print("then", int(out.outputs.integers(0)[0]), flush=True)
    else:
        go()
        print("finished", flush=True)
    """
)


def interrupt(mode):
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline() == "running\n"
        child.send_signal(signal.SIGINT)
        # A bound so that a run that ignores the signal fails the test
        # instead of hanging it; the assertions are on the outcome.
        out, err = child.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        child.kill()
        pytest.fail("the run did not stop on SIGINT")
    return child.returncode, out, err


def test_ctrl_c_raises_keyboard_interrupt_and_the_process_goes_on():
    code, out, err = interrupt("catch")
    assert out.splitlines() == ["interrupted", "then 5"], err
    assert code == 0, err


def test_an_uncaught_ctrl_c_ends_the_process_as_python_does():
    code, out, err = interrupt("raise")
    assert "finished" not in out
    assert "KeyboardInterrupt" in err
    # CPython re-raises SIGINT on an uncaught KeyboardInterrupt.
    assert code == -signal.SIGINT, err
