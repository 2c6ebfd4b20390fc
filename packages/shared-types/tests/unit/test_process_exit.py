"""``exited_within``: a child's end is seen when it happens, not at a poll."""

import os
import subprocess
import sys
import time

import pytest

from shared_types import process_exit
from shared_types.process_exit import exited_within

LONG_S = 60.0
HAS_PIDFD = hasattr(os, "pidfd_open")


def child(seconds: float) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({seconds})"])


@pytest.fixture
def sleeps(monkeypatch):
    """Every ``time.sleep`` this process makes while the test runs (Popen.wait's polling)."""
    made = []
    real = time.sleep

    def counted(seconds):
        made.append(seconds)
        real(seconds)
    monkeypatch.setattr(time, "sleep", counted)
    return made


@pytest.fixture
def no_pidfd(monkeypatch):
    def refused(pid, flags=0):
        raise OSError(38, "Function not implemented")
    monkeypatch.setattr(process_exit.os, "pidfd_open", refused, raising=False)


@pytest.mark.skipif(not HAS_PIDFD, reason="no os.pidfd_open here: the fallback polls")
def test_a_child_that_ends_is_seen_without_a_poll(sleeps):
    proc = child(0.2)
    assert exited_within(proc, LONG_S) is True
    assert proc.returncode == 0
    assert sleeps == []  # slept in poll() on its pidfd, woken by its end


def test_without_pidfds_the_same_wait_polls(no_pidfd, sleeps):
    """Negative control: the fallback (Popen.wait) gets the same answer by sleeping."""
    proc = child(0.2)
    assert exited_within(proc, LONG_S) is True
    assert proc.returncode == 0
    assert sleeps  # the counter sees polling where there is some


@pytest.mark.parametrize("pidfds", [True, False], ids=["pidfd", "fallback"])
def test_a_child_still_running_is_left_running(request, pidfds):
    if not pidfds:
        request.getfixturevalue("no_pidfd")
    elif not HAS_PIDFD:
        pytest.skip("no os.pidfd_open here")
    proc = child(LONG_S)
    try:
        assert exited_within(proc, 0.05) is False
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()


def test_a_child_already_reaped_has_ended():
    proc = child(0)
    proc.wait()
    assert exited_within(proc, 0) is True


def test_a_killed_child_reports_its_signal():
    proc = child(LONG_S)
    proc.kill()
    assert exited_within(proc, LONG_S) is True
    assert proc.returncode < 0
