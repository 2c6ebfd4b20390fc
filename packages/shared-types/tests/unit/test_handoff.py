"""shared_types.handoff: a waiting worker's environment and log file, through stdin."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from shared_types.handoff import read_forked, receive_handoff, write_handoff
from shared_types.testing.waiting import wait_until

# the receiving side runs in a child: it rewires its stdout and stderr
CHILD = ("import os, sys\n"
         "from shared_types.handoff import receive_handoff\n"
         "handed = receive_handoff()\n"
         "print('handed' if handed else 'not needed', os.environ.get('STEREO_SPOT_X'))\n"
         "print('an error line', file=sys.stderr)\n")


def _child() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_the_environment_arrives_and_all_output_goes_to_the_log(tmp_path: Path):
    log = tmp_path / "logs" / "worker.log"
    with _child() as child:
        write_handoff(child.stdin, {"STEREO_SPOT_X": "42"}, log)
        out, err = child.stdout.read(), child.stderr.read()  # at their end: it exited
        assert child.wait(timeout=60) == 0
    assert (out, err) == (b"", b"")  # nothing on the pipes it was started with
    assert log.read_text().splitlines() == ["handed 42", "an error line"]


def test_the_end_of_input_without_a_handoff_means_not_needed():
    with _child() as child:
        child.stdin.close()
        out = child.stdout.read()
        assert child.wait(timeout=60) == 0
    assert out.decode().split() == ["not", "needed", "None"]


def test_a_line_that_is_not_a_handoff_is_a_clear_error():
    import io

    with pytest.raises(ValueError, match="not a worker handoff"):
        receive_handoff(io.StringIO('{"environment": {}}\n'))


# A waiting worker asked to fork a sibling: both say who they are, in their own logs.
FORKING = ("import os, sys, time\n"
           "from shared_types.handoff import receive_handoff, wait_for_forked\n"
           "state = {}\n"
           "receive_handoff(before_fork=lambda: state.update(prepared=True))\n"
           "print('X', os.environ['STEREO_SPOT_X'], 'pid', os.getpid(), 'ppid', os.getppid(),\n"
           "      'prepared', state.get('prepared'), flush=True)\n"
           "if os.environ.get('STEREO_SPOT_ROLE') == 'sibling':\n"
           "    while os.environ.get('STEREO_SPOT_STAY'): time.sleep(0.05)\n"
           "    os._exit(0)\n"
           "print('siblings ended', wait_for_forked(30), flush=True)\n"
           "while os.environ.get('STEREO_SPOT_STAY'): time.sleep(0.05)\n")


def _forking(tmp_path: Path, stay: bool = False) -> tuple[subprocess.Popen, int, Path, Path]:
    """A waiting child handed X=1 and asked to fork a sibling X=2; returns it, the
    pid it answered with, and the two logs."""
    child = subprocess.Popen([sys.executable, "-c", FORKING], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    mine, theirs = tmp_path / "a.log", tmp_path / "b.log"
    stay_env = {"STEREO_SPOT_STAY": "1"} if stay else {}
    write_handoff(child.stdin, {"STEREO_SPOT_X": "1", **stay_env}, mine,
                  [({"STEREO_SPOT_X": "2", "STEREO_SPOT_ROLE": "sibling", **stay_env}, theirs)])
    return child, read_forked(child.stdout.readline()), mine, theirs


def _said(log: Path, first: str) -> list[str]:
    assert wait_until(lambda: log.exists() and first in log.read_text())
    return next(line for line in log.read_text().splitlines() if first in line).split()


def test_a_waiting_worker_forks_its_siblings_and_answers_with_their_pids(tmp_path: Path):
    child, forked, mine, theirs = _forking(tmp_path)
    with child:
        assert child.wait(timeout=60) == 0
    assert len(forked) == 1
    sibling = _said(theirs, "X 2")
    # the sibling is the pid it answered with, forked by it, with what it prepared first
    assert sibling == ["X", "2", "pid", str(forked[0]), "ppid", str(child.pid),
                       "prepared", "True"]
    assert _said(mine, "X 1")[:4] == ["X", "1", "pid", str(child.pid)]
    assert _said(mine, "siblings ended") == ["siblings", "ended", "True"]  # and reaped


def test_without_siblings_nothing_is_answered_and_nothing_forked(tmp_path: Path):
    with _child() as child:
        write_handoff(child.stdin, {"STEREO_SPOT_X": "3"}, tmp_path / "w.log")
        assert child.stdout.read() == b""
        assert child.wait(timeout=60) == 0
    assert read_forked(b"") == []


def test_a_forked_sibling_ends_when_the_worker_that_forked_it_is_killed(tmp_path: Path):
    child, forked, _, theirs = _forking(tmp_path, stay=True)
    with child:
        _said(theirs, "X 2")
        os.kill(forked[0], 0)  # running
        child.kill()
        child.wait(timeout=60)
    assert wait_until(lambda: not _alive(forked[0]))


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


# The forking worker drains on SIGTERM and tells its fork to, as video-worker does.
DRAINING = ("import os, signal, sys, threading, time\n"
            "from shared_types.handoff import receive_handoff, signal_forked, wait_for_forked\n"
            "receive_handoff()\n"
            "print('X', os.environ['STEREO_SPOT_X'], 'pid', os.getpid(), flush=True)\n"
            "if os.environ.get('STEREO_SPOT_ROLE') == 'sibling':\n"
            "    while True: time.sleep(0.05)\n"
            "stop = threading.Event()\n"
            "signal.signal(signal.SIGTERM, lambda *_: stop.set())\n"
            "print('draining on SIGTERM', flush=True)\n"
            "stop.wait()\n"
            "signal_forked()\n"
            "print('siblings ended', wait_for_forked(30), flush=True)\n")


def test_a_forking_worker_told_to_drain_tells_its_forks(tmp_path: Path):
    child = subprocess.Popen([sys.executable, "-c", DRAINING], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    mine, theirs = tmp_path / "a.log", tmp_path / "b.log"
    write_handoff(child.stdin, {"STEREO_SPOT_X": "1"}, mine,
                  [({"STEREO_SPOT_X": "2", "STEREO_SPOT_ROLE": "sibling"}, theirs)])
    with child:
        forked = read_forked(child.stdout.readline())
        _said(theirs, "X 2")
        _said(mine, "draining on SIGTERM")
        child.send_signal(signal.SIGTERM)
        assert wait_until(lambda: not _alive(forked[0]))
        assert child.wait(timeout=60) == 0
    assert _said(mine, "siblings ended") == ["siblings", "ended", "True"]
