"""The supervisor with real child processes (tiny Python programs)."""

import os
import signal
import sys
import threading
from pathlib import Path

from shared_types.testing.waiting import wait_until

from local_stack.supervisor import ChildSpec, Supervisor, backoff_delay

PY = sys.executable


def _program_signalling_ready(tmp_path: Path, setup: str) -> str:
    """A child that runs ``setup``, writes tmp_path/ready, then idles."""
    return ("import signal, sys, time, pathlib\n" + setup
            + f"pathlib.Path({str(tmp_path / 'ready')!r}).write_text('1')\n"
            + "while True: time.sleep(0.05)\n")


def test_a_crashing_child_is_restarted_with_growing_backoff():
    sup = Supervisor([ChildSpec("crasher", [PY, "-c", "raise SystemExit(3)"])],
                     backoff_base_s=0.05, backoff_max_s=0.2, drain_timeout_s=2)
    sup.start()
    try:
        assert wait_until(lambda: (sup.poll(), sup.restarts()["crasher"] >= 3)[1])
    finally:
        sup.stop()


def test_backoff_doubles_up_to_its_cap():
    assert [backoff_delay(n, 0.5, 3.0) for n in (1, 2, 3, 4, 5)] == [0.5, 1.0, 2.0, 3.0, 3.0]


def _draining_child(tmp_path: Path, drain: str, drain_timeout_s: float) -> Supervisor:
    """A started supervisor of one ready child that runs ``drain`` (lines of
    Python, indented by four) on SIGTERM, then exits 0."""
    on_term = "def drain(*_):\n" + drain + "    sys.exit(0)\n" \
        "signal.signal(signal.SIGTERM, drain)\n"
    program = _program_signalling_ready(tmp_path, on_term)
    sup = Supervisor([ChildSpec("worker", [PY, "-c", program])], drain_timeout_s=drain_timeout_s)
    sup.start()
    assert wait_until(lambda: (tmp_path / "ready").exists())
    return sup


def test_stop_forwards_sigterm_and_waits_for_the_child_to_drain(tmp_path: Path):
    marker = tmp_path / "drained"
    sup = _draining_child(tmp_path, "    time.sleep(0.3)\n"
                          f"    pathlib.Path({str(marker)!r}).write_text('ok')\n", 10)
    stop = threading.Event()
    stop.set()
    assert sup.run(stop) is True
    assert marker.read_text() == "ok"
    assert sup.pids() == {}


def test_begin_stop_signals_once_without_waiting_and_stop_then_waits(tmp_path: Path):
    """``convert`` asks its video-workers to drain while reassembly runs: the
    signal goes out at once, the wait comes later, and nothing is restarted."""
    terms, go = tmp_path / "terms", tmp_path / "go"
    sup = _draining_child(tmp_path,  # a drain that lasts until the test lets it end
                          f"    with open({str(terms)!r}, 'a') as f: f.write('term\\n')\n"
                          f"    while not pathlib.Path({str(go)!r}).exists(): time.sleep(0.02)\n",
                          30)
    [still_running] = sup.begin_stop()
    assert wait_until(terms.exists)
    assert still_running.poll() is None  # begin_stop did not wait for the drain
    go.write_text("1")
    assert wait_until(lambda: still_running.poll() is not None)
    sup.poll()  # an exit after begin_stop is not a crash to restart
    assert sup.stop() is True
    assert terms.read_text() == "term\n"  # stop did not signal it a second time
    assert sup.pids() == {} and sup.restarts() == {"worker": 0}


def test_a_child_that_ignores_sigterm_is_killed_after_the_grace(tmp_path: Path):
    program = _program_signalling_ready(tmp_path,
                                        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n")
    sup = Supervisor([ChildSpec("stubborn", [PY, "-c", program])], drain_timeout_s=0.5)
    sup.start()
    assert wait_until(lambda: (tmp_path / "ready").exists())
    assert sup.stop() is False
    assert sup.pids() == {}


def test_children_get_their_environment_and_logs_go_to_the_log_dir(tmp_path: Path):
    program = "import os; print('value=' + os.environ['STEREO_SPOT_PROBE'], flush=True)"
    sup = Supervisor([ChildSpec("env", [PY, "-c", program], {"STEREO_SPOT_PROBE": "42"})],
                     log_dir=tmp_path / "logs", backoff_base_s=60)
    sup.start()
    log = tmp_path / "logs" / "env.log"
    assert wait_until(lambda: log.exists() and "value=42" in log.read_text())
    sup.stop()


def test_children_die_when_the_supervisor_is_killed(tmp_path: Path):
    pidfile = tmp_path / "child.pid"
    child = (f"import os, time, pathlib\n"
             f"pathlib.Path({str(pidfile)!r}).write_text(str(os.getpid()))\n"
             "while True: time.sleep(0.05)")
    parent = (
        "import sys, threading\n"
        "from local_stack.supervisor import ChildSpec, Supervisor\n"
        f"s = Supervisor([ChildSpec('c', [sys.executable, '-c', {child!r}])])\n"
        "s.start()\n"
        "s.run(threading.Event())\n"
    )
    import subprocess

    proc = subprocess.Popen([PY, "-c", parent])
    try:
        assert wait_until(lambda: pidfile.exists() and pidfile.read_text())
        child_pid = int(pidfile.read_text())
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert wait_until(lambda: not Path(f"/proc/{child_pid}").exists()
                           or "Z" in Path(f"/proc/{child_pid}/stat").read_text().split()[2])
    finally:
        proc.kill()


# A child as local_stack.launch starts one: it waits for its environment on stdin.
_WAITING = ("import os, sys, time\n"
            "from shared_types.handoff import receive_handoff\n"
            "if not receive_handoff():\n"
            "    raise SystemExit(0)\n"
            "print('X=' + os.environ['X'], 'handed', flush=True)\n"
            "while True: time.sleep(0.05)\n")
_ORDINARY = "import os, time\nprint('X=' + os.environ['X'], 'spawned', flush=True)\n" \
            "while True: time.sleep(0.05)\n"


def _started_with(tmp_path: Path, waiting, x: str) -> tuple[str, int]:
    """Start one supervised child ``worker`` (X=``x``), ``waiting`` its early start;
    returns the first line it logged and its pid, then stops it."""
    sup = Supervisor([ChildSpec("worker", [PY, "-c", _ORDINARY], {"X": x})],
                     log_dir=tmp_path, drain_timeout_s=5)
    sup.start({"worker": waiting})
    log = tmp_path / "worker.log"
    try:
        assert wait_until(lambda: log.exists() and log.read_text().endswith("\n"))
        return log.read_text().splitlines()[0], sup.pids()["worker"]
    finally:
        sup.stop()


def test_a_waiting_child_is_handed_its_environment_and_log_instead_of_a_second_start(
        tmp_path: Path):
    from local_stack.supervisor import start_waiting

    waiting = start_waiting([PY, "-c", _WAITING])
    assert _started_with(tmp_path, waiting, "7") == ("X=7 handed", waiting.pid)
    assert waiting.poll() is not None  # and stopped with the others


def test_a_waiting_child_that_is_gone_is_started_the_ordinary_way(tmp_path: Path):
    from local_stack.supervisor import start_waiting

    gone = start_waiting([PY, "-c", "raise SystemExit(0)"])
    gone.wait(timeout=20)
    line, pid = _started_with(tmp_path, gone, "8")
    assert line == "X=8 spawned"
    assert pid != gone.pid


def test_a_waiting_child_whose_command_ended_first_exits_on_the_end_of_its_input():
    from local_stack.supervisor import not_needed, start_waiting

    waiting = start_waiting([PY, "-c", _WAITING])
    not_needed(waiting)  # what this process's exit does
    assert waiting.wait(timeout=20) == 0


def _parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _first_line(log: Path) -> str:
    assert wait_until(lambda: log.exists() and log.read_text().endswith("\n"))
    return log.read_text().splitlines()[0]


def _pair(tmp_path: Path, **options) -> Supervisor:
    return Supervisor([ChildSpec(name, [PY, "-c", _ORDINARY], {"X": x})
                       for name, x in (("a", "1"), ("b", "2"))],
                      log_dir=tmp_path, drain_timeout_s=5, backoff_base_s=0.05, **options)


def test_a_waiting_child_forks_the_children_no_waiting_one_stands_for(tmp_path: Path):
    from local_stack.supervisor import start_waiting

    waiting = start_waiting([PY, "-c", _WAITING])
    sup = _pair(tmp_path)
    sup.start({"a": waiting})
    try:
        assert wait_until(lambda: (sup.poll(), "b" in sup.pids())[1])
        assert _first_line(tmp_path / "a.log") == "X=1 handed"
        assert _first_line(tmp_path / "b.log") == "X=2 handed"  # its own environment and log
        forked = sup.pids()["b"]
        assert _parent_of(forked) == waiting.pid  # a fork of the waiting one, not a new start
        # watched like the others: killed, it is noticed and started the ordinary way
        os.kill(forked, signal.SIGKILL)
        assert wait_until(lambda: (sup.poll(), sup.restarts()["b"] == 1
                                   and sup.pids().get("b") not in (None, forked))[1])
        assert _parent_of(sup.pids()["b"]) == os.getpid()
        assert wait_until(lambda: (tmp_path / "b.log").read_text().endswith("X=2 spawned\n"))
    finally:
        assert sup.stop()
    assert waiting.poll() is not None and sup.pids() == {}


def test_children_are_started_the_ordinary_way_when_the_waiting_one_does_not_fork(
        tmp_path: Path):
    from local_stack.supervisor import start_waiting

    # it takes its handoff and exits without an answer
    waiting = start_waiting([PY, "-c", "import sys; sys.stdin.readline()"])
    sup = _pair(tmp_path)
    sup.start({"a": waiting})
    try:
        assert wait_until(lambda: (sup.poll(), "b" in sup.pids())[1])
        assert _first_line(tmp_path / "b.log") == "X=2 spawned"
    finally:
        sup.stop()


def test_without_forking_every_other_child_is_started_the_ordinary_way(tmp_path: Path):
    from local_stack.supervisor import start_waiting

    waiting = start_waiting([PY, "-c", _WAITING])
    sup = _pair(tmp_path, fork_siblings=False)
    sup.start({"a": waiting})
    try:
        assert _first_line(tmp_path / "b.log") == "X=2 spawned"
        assert _first_line(tmp_path / "a.log") == "X=1 handed"
    finally:
        sup.stop()
