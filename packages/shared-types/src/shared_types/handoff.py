"""A worker started before its configuration is known gets it on stdin.

``stereo-spot convert`` starts its first video-worker before it has imported
what its own settings need (pydantic and the models, ~0.5 s), so the two
processes import at the same time on different cores instead of one after
the other. Such a worker is started with ``HANDOFF_FLAG``: it imports (and
warms up what it can without settings), then reads one JSON line -- the
``STEREO_SPOT_*`` environment it would otherwise have been started with and
the file its output goes to -- and carries on as if started that way. End of
input without a line means it is not needed: it exits.

The line may also name *siblings*: more workers of the same program, each
with its own environment and log. The waiting worker, its imports done and
nothing running beside its main thread, forks one child per sibling (which
inherits those imports instead of paying them again: ~0.3 s of CPU each,
which on a machine of few cores is the conversion's own time), tells the
starter their pids in one JSON line on its stdout, ``{"forked": [pid, ...]}``,
and reaps them when they end. A worker told to drain passes it on to its
forks (``signal_forked``), and each child ends when that worker does.

This module imports nothing heavy: both sides use it before pydantic loads.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from shared_types.parent_death import die_with_parent

HANDOFF_FLAG = "--config-from-stdin"

Sibling = tuple[Mapping[str, str], Path | None]  # a forked worker's environment and log


@dataclass(frozen=True)
class _Fork:
    reaper: threading.Thread  # waits for its end (alive until then)
    pidfd: int | None  # signals it and never a reused pid (None: no pidfds here)


_forks: list[_Fork] = []  # the siblings this process forked


def write_handoff(stream: IO[bytes], env: Mapping[str, str], log_path: Path | None,
                  siblings: Sequence[Sibling] = ()) -> None:
    """Send a waiting worker its environment and log file, and the environment
    and log of each sibling it is to fork, then end its input."""
    line = json.dumps({"env": dict(env), "log": _path(log_path),
                       "siblings": [{"env": dict(e), "log": _path(p)} for e, p in siblings]})
    try:
        stream.write(line.encode() + b"\n")
    finally:
        stream.close()


def read_forked(line: bytes | str) -> list[int]:
    """The pids in a waiting worker's reply line; [] for anything else (a
    worker that exited before replying, a stray line)."""
    try:
        return [int(pid) for pid in json.loads(line)["forked"]]
    except (ValueError, KeyError, TypeError):
        return []


def receive_handoff(stream: IO[str] | None = None, *,
                    before_fork: Callable[[], None] | None = None) -> bool:
    """Wait for the handoff on ``stream`` (stdin) and apply it: the environment
    into ``os.environ``, stdout and stderr onto the log file (appended). With
    siblings, ``before_fork`` runs first (with this worker's environment in
    place: what the siblings should inherit ready-made), then each sibling is
    forked; a forked child returns True as that sibling. Returns False at end
    of input (no handoff: the worker is not needed). Raises ValueError for a
    line that is not a handoff."""
    line = (stream or sys.stdin).readline()
    if not line.strip():
        return False
    try:
        handoff = json.loads(line)
        env, log = handoff["env"], handoff["log"]
        siblings = [(s["env"], s["log"]) for s in handoff.get("siblings", [])]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"not a worker handoff: {line[:80]!r}") from exc
    started = dict(os.environ)
    _apply(env, log if not siblings else None)
    if siblings:
        if before_fork is not None:
            before_fork()
        forked = []
        for sibling_env, sibling_log in siblings:
            try:
                pid = os.fork()
            except OSError:
                break  # the starter starts the rest the ordinary way
            if pid == 0:
                die_with_parent()
                os.environ.clear()
                os.environ.update(started)
                _apply(sibling_env, sibling_log)
                return True
            forked.append(pid)
        sys.stdout.write(json.dumps({"forked": forked}) + "\n")
        sys.stdout.flush()
        for pid in forked:
            _forks.append(_Fork(_reaper(pid), _pidfd(pid)))
        _apply({}, log)
    return True


def forked_any() -> bool:
    """True when this process forked siblings (``receive_handoff``)."""
    return bool(_forks)


def signal_forked(sig: int = signal.SIGTERM) -> None:
    """Send ``sig`` to every sibling this process forked that has not ended: a
    worker told to drain tells its forks too (whoever told it, even the kernel
    when the command that started them died). Never raises."""
    for fork in _forks:
        if fork.pidfd is None:
            continue  # its own parent-death signal still ends it
        try:
            signal.pidfd_send_signal(fork.pidfd, sig)
        except OSError:  # it has ended
            pass


def wait_for_forked(timeout_s: float) -> bool:
    """Wait up to ``timeout_s`` for the siblings this process forked to end (a
    drained worker's last step: none is left behind without its parent, and
    their resource use is counted in this process's); True when all have."""
    deadline = time.monotonic() + timeout_s
    for fork in _forks:
        fork.reaper.join(max(0.0, deadline - time.monotonic()))
    return not any(fork.reaper.is_alive() for fork in _forks)


def _reaper(pid: int) -> threading.Thread:
    reaper = threading.Thread(target=os.waitpid, args=(pid, 0), name=f"reap-{pid}", daemon=True)
    reaper.start()
    return reaper


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _path(path: Path | None) -> str | None:
    return str(path) if path else None


def _apply(env: Mapping[str, str], log: str | None) -> None:
    os.environ.update({str(k): str(v) for k, v in env.items()})
    if log:
        Path(log).parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
