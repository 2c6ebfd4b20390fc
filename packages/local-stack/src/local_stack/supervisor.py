"""Run services as child processes: restart crashed ones with backoff, drain on stop.

Each child runs in its own session (so a terminal's Ctrl-C reaches only the
supervisor, which forwards it once) and is asked by the kernel to terminate if
the supervisor itself dies (Linux ``PR_SET_PDEATHSIG``), so no worker outlives
a killed ``stereo-spot``. A child may also be started before its environment
is known (``start_waiting``) and handed it when the supervisor starts
(``shared_types.handoff``); a restart spawns it the ordinary way. The first
waiting child is also asked to fork the children that no waiting one stands
for (its imports done, a fork costs milliseconds where a new interpreter
costs ~0.3 s of CPU); the supervisor watches those through pidfds
(``local_stack.adopted``) and starts any it did not fork the ordinary way.

Light on purpose: ``local_stack.launch`` uses it before pydantic is imported.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from shared_types.handoff import read_forked, write_handoff
from shared_types.parent_death import die_with_parent
from shared_types.process_exit import exited_within

from local_stack.adopted import UNKNOWN_EXIT, AdoptedProcess, can_adopt

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChildSpec:
    """One supervised process: a name for logs, its argv and extra environment."""

    name: str
    argv: Sequence[str]
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass
class _Child:
    spec: ChildSpec
    proc: subprocess.Popen | AdoptedProcess | None = None  # None: not started (or forked) yet
    started_at: float = 0.0
    crashes: int = 0  # consecutive crashes; reset once the child has run stably
    restart_at: float | None = None
    restarts: int = 0


def start_waiting(argv: Sequence[str]) -> subprocess.Popen:
    """Start a child that waits for its environment on stdin (``shared_types.handoff``),
    in its own session and dying with this process like a supervised one; pass
    it to ``Supervisor.start``. What it prints before it is handed its log file
    is dropped (not mixed into this process's terminal): a child that fails
    that early has exited, so the supervisor starts it the ordinary way, and
    it fails again into its log. Its stdout is where it answers a request to
    fork siblings. Raises OSError if the program cannot be executed."""
    return subprocess.Popen(list(argv), env={**os.environ, "PYTHONUNBUFFERED": "1"},
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            preexec_fn=die_with_parent)


def not_needed(proc: subprocess.Popen) -> None:
    """Tell a child ``start_waiting`` started that it is not needed: the end of
    its input (it exits), and its answer pipe closed."""
    for pipe in (proc.stdin, proc.stdout):
        if pipe is not None:
            pipe.close()


def backoff_delay(crashes: int, base_s: float, max_s: float) -> float:
    """Delay before restarting a child that crashed ``crashes`` times in a row."""
    return min(max_s, base_s * 2 ** max(0, crashes - 1))


class Supervisor:
    """Starts children, restarts any that exits while running, stops them all on drain."""

    def __init__(
        self,
        specs: Sequence[ChildSpec],
        *,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 30.0,
        stable_after_s: float = 30.0,
        drain_timeout_s: float = 30.0,
        base_env: Mapping[str, str] | None = None,
        log_dir: Path | None = None,
        on_event: Callable[[str], None] | None = None,
        fork_siblings: bool = True,
    ) -> None:
        self._children = [_Child(spec) for spec in specs]
        self._backoff = (backoff_base_s, backoff_max_s)
        self._stable_after_s = stable_after_s
        self._drain_timeout_s = drain_timeout_s
        self._base_env = dict(os.environ if base_env is None else base_env)
        self._log_dir = log_dir
        self._on_event = on_event or (lambda line: log.info("%s", line))
        self._fork_siblings = fork_siblings
        # the waiting child asked to fork siblings, and those whose pids it will answer
        self._forks: tuple[subprocess.Popen, list[_Child]] | None = None
        self._lock = threading.Lock()
        self._stopping = False
        self._asked: set[int] = set()  # pids already sent the stop signal

    def start(self, waiting: Mapping[str, subprocess.Popen] | None = None) -> None:
        """Start every child; one named in ``waiting`` (``start_waiting``) is handed
        its environment instead, unless it has already exited, and the first one
        handed it is asked to fork the children no waiting one stands for (where
        pidfds can watch them: ``adopted.can_adopt``). Raises OSError if a
        program cannot be executed."""
        waiting = waiting or {}
        with self._lock:
            ordinary = [c for c in self._children if c.spec.name not in waiting]
            fork = self._fork_siblings and bool(ordinary) and can_adopt()
            for child in self._children:
                proc = waiting.get(child.spec.name)
                if proc is None:
                    continue
                siblings = ordinary if fork else []
                if not self._hand_over(child, proc, siblings):
                    self._spawn(child)
                elif siblings:
                    self._forks, ordinary = (proc, siblings), []
            for child in ordinary:
                self._spawn(child)

    def _log_path(self, child: _Child) -> Path | None:
        if self._log_dir is None:
            return None
        self._log_dir.mkdir(parents=True, exist_ok=True)
        return self._log_dir / f"{child.spec.name}.log"

    def _hand_over(self, child: _Child, proc: subprocess.Popen,
                   siblings: Sequence[_Child] = ()) -> bool:
        """Give a waiting child its environment and log file, and those of the
        ``siblings`` it is to fork; False if it is gone."""
        if proc.stdin is None:
            return False
        if proc.poll() is not None:
            not_needed(proc)
            return False
        try:
            write_handoff(proc.stdin, {**self._base_env, **child.spec.env},
                          self._log_path(child),
                          [({**self._base_env, **s.spec.env}, self._log_path(s))
                           for s in siblings])
        except OSError:  # it exited meanwhile (broken pipe)
            not_needed(proc)
            return False
        if not siblings and proc.stdout is not None:
            proc.stdout.close()  # no answer to wait for
        child.proc = proc
        child.started_at = time.monotonic()
        child.restart_at = None
        self._on_event(f"handed {child.spec.name} its environment (pid {proc.pid})")
        return True

    def _spawn(self, child: _Child) -> None:
        env = {**self._base_env, **child.spec.env}
        out = None
        log_path = self._log_path(child)
        if log_path is not None:  # children's logs go to a file, not the terminal
            out = open(log_path, "ab")  # noqa: SIM115
        try:
            child.proc = subprocess.Popen(
                list(child.spec.argv), env=env, stdin=subprocess.DEVNULL,
                stdout=out, stderr=subprocess.STDOUT if out else None,
                start_new_session=True, preexec_fn=die_with_parent,
            )
        finally:
            if out is not None:
                out.close()
        child.started_at = time.monotonic()
        child.restart_at = None
        self._on_event(f"started {child.spec.name} (pid {child.proc.pid})")

    def _adopt_forks(self, timeout_s: float) -> None:
        """Take the pids of forked children from the answer of the child asked to
        fork them, waiting up to ``timeout_s`` for it; start the ones it did not
        fork (it failed to, or exited first) the ordinary way."""
        if self._forks is None:
            return
        template, pending = self._forks
        line = _answer(template, timeout_s)
        if line is None:
            return  # not yet
        self._forks, pids = None, read_forked(line)
        for child, pid in zip(pending, pids, strict=False):
            child.proc, child.started_at, child.restart_at = (
                AdoptedProcess(pid), time.monotonic(), None)
            self._on_event(f"forked {child.spec.name} (pid {pid}) from pid {template.pid}")
        for child in pending[len(pids):]:
            self._spawn(child)

    def poll(self) -> None:
        """Notice children that exited and restart them when their backoff is over."""
        with self._lock:
            if self._stopping:
                return
            self._adopt_forks(0)
            now = time.monotonic()
            for child in self._children:  # (one still to be forked has no proc yet)
                if child.restart_at is not None:
                    if now >= child.restart_at:
                        child.restarts += 1
                        self._spawn(child)
                    continue
                rc = child.proc.poll() if child.proc else None
                if rc is None:
                    continue
                if now - child.started_at >= self._stable_after_s:
                    child.crashes = 0
                child.crashes += 1
                delay = backoff_delay(child.crashes, *self._backoff)
                child.restart_at = now + delay
                code = "an unknown code" if rc == UNKNOWN_EXIT else f"code {rc}"
                self._on_event(
                    f"{child.spec.name} exited with {code}; restarting in {delay:.1f}s")

    def run(self, stop: threading.Event, *, tick_s: float = 0.2) -> bool:
        """Supervise until ``stop`` is set, then drain every child (see ``stop``)."""
        while not stop.wait(tick_s):
            self.poll()
        return self.stop()

    def begin_stop(self, sig: int = signal.SIGTERM) -> list[subprocess.Popen | AdoptedProcess]:
        """Send ``sig`` to every live child not yet asked, without waiting (their
        drain then overlaps the caller's own work); no child is restarted after
        this. Returns the children still running."""
        with self._lock:
            self._stopping = True
            self._adopt_forks(self._drain_timeout_s)  # children still to be told of
            live = [c.proc for c in self._children if c.proc and c.proc.poll() is None]
            asked = [p for p in live if p.pid not in self._asked]
            self._asked.update(p.pid for p in asked)
        for proc in asked:
            _signal(proc, sig)
        return live

    def stop(self, sig: int = signal.SIGTERM) -> bool:
        """Send ``sig`` to every child (not asked by ``begin_stop`` yet), wait up to
        the drain timeout, then SIGKILL the stragglers. Returns True when every
        child exited within the grace."""
        live = self.begin_stop(sig)
        deadline = time.monotonic() + self._drain_timeout_s
        clean = True
        for proc in live:
            if not exited_within(proc, deadline - time.monotonic()):
                clean = False
                self._on_event(f"pid {proc.pid} did not drain in time; killing it")
                _signal(proc, signal.SIGKILL)
                proc.wait()
        return clean

    def pids(self, name_prefix: str = "") -> dict[str, int]:
        """Live children by name (optionally only names starting with ``name_prefix``)."""
        with self._lock:
            return {
                c.spec.name: c.proc.pid for c in self._children
                if c.proc and c.proc.poll() is None and c.spec.name.startswith(name_prefix)
            }

    def restarts(self) -> dict[str, int]:
        """How many times each child was restarted."""
        with self._lock:
            return {c.spec.name: c.restarts for c in self._children}


def _answer(template: subprocess.Popen, timeout_s: float) -> bytes | None:
    """The line a waiting child answered a request to fork with (b"" if it ended
    without one), or None when none came within ``timeout_s``."""
    out = template.stdout
    if out is None or out.closed:
        return b""
    ready, _, _ = select.select([out], [], [], max(0.0, timeout_s))
    if not ready:
        return None
    line = out.readline()
    out.close()
    return line


def _signal(proc: subprocess.Popen | AdoptedProcess, sig: int) -> None:
    try:
        proc.send_signal(sig)
    except ProcessLookupError:
        pass
