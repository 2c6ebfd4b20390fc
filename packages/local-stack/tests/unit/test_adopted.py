"""local_stack.adopted: a process watched and signalled through a pidfd."""

import signal
import subprocess
import sys

import pytest

from local_stack.adopted import UNKNOWN_EXIT, AdoptedProcess, can_adopt

pytestmark = pytest.mark.skipif(not can_adopt(), reason="no pidfds on this kernel")

SLEEPER = [sys.executable, "-c", "import time\nwhile True: time.sleep(0.05)"]


def test_a_running_process_is_running_until_signalled_then_ended():
    with subprocess.Popen(SLEEPER) as child:
        adopted = AdoptedProcess(child.pid)
        assert adopted.poll() is None
        with pytest.raises(subprocess.TimeoutExpired):
            adopted.wait(timeout=0.05)
        adopted.send_signal(signal.SIGTERM)
        assert adopted.wait(timeout=20) == UNKNOWN_EXIT  # its status is its parent's
        assert adopted.poll() == UNKNOWN_EXIT
        assert child.wait(timeout=20) == -signal.SIGTERM  # the parent still gets it


def test_an_ended_process_is_not_signalled_again():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    adopted = AdoptedProcess(child.pid)
    child.wait(timeout=20)  # reaped: its pid may be anyone's now
    assert adopted.wait(timeout=20) == UNKNOWN_EXIT
    adopted.kill()  # nothing happens, whoever has the pid now


def test_a_pid_that_is_gone_is_ended_from_the_start():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=20)
    assert AdoptedProcess(child.pid).poll() == UNKNOWN_EXIT
