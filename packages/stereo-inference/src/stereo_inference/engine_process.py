"""Conversions in a warm child process that is killed at its deadline.

The engine checks its deadline between decoded batches (``stereo_inference.deadline``);
a native call that hangs inside one batch (a stuck decoder, a torch op, an iw3
call) is only stopped when it returns, if ever. :class:`EngineProcess` runs each
conversion in one long-lived child (``multiprocessing`` *spawn*: no fork of a
threaded server) that keeps the engine imported and its models loaded between
requests, so a request costs a pipe round trip, not an import. The parent
waits on the child's pipe until the conversion's deadline (the same
:class:`DeadlinePolicy`, from the frame count the child reports once it has
probed the input; counted from when the child is ready, its start being
bounded by ``start_s`` on its own) plus ``margin_s``, which leaves the engine's own check the
first chance to stop cleanly and keep the child warm. Past that, the child's
process group (the child and any ffmpeg it started) gets SIGTERM, then SIGKILL
after ``term_grace_s``; it is reaped, the conversion's partial files beside the
output are removed, EngineTimeoutError is raised, and a fresh child is started
for the next request.

No child outlives its parent: each one watches a lifeline pipe whose only
writer is the parent, and kills its own group when the pipe ends (however the
parent ended); ``close`` (or garbage collection) stops it on a normal exit.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import signal
import threading
import time
import weakref
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from shared_types.malloc_arenas import use_one_malloc_arena

from stereo_inference.deadline import DeadlinePolicy
from stereo_inference.errors import EngineTimeoutError, EngineTransientError

log = logging.getLogger(__name__)
_SPAWN = multiprocessing.get_context("spawn")


class EngineProcess:
    """``convert(input, output, **kwargs)`` like ``convert_file``, in a child process.

    ``convert`` is the engine function the child calls (a module-level function,
    so that it can be named to a spawned process; default ``convert_file``);
    ``warm`` a depth model whose one-time costs the child pays as it starts.
    One conversion at a time: callers are serialised.
    """

    def __init__(self, convert: Callable[..., Any] | None = None, *, policy: DeadlinePolicy,
                 margin_s: float = 2.0, term_grace_s: float = 2.0,
                 warm: str | None = None, start_s: float = 120.0) -> None:
        self._convert, self._warm, self._start_s = convert, warm, start_s
        self._policy, self._margin_s, self._grace_s = policy, margin_s, term_grace_s
        self._lock = threading.Lock()
        self._slot: list[_Child] = []  # the child, once started (shared with the finalizer)
        weakref.finalize(self, _stop_any, self._slot, term_grace_s)

    def start(self) -> None:
        """Start the child now (it imports the engine while the caller goes on)."""
        with self._lock:
            self._ensure_child()

    def close(self) -> None:
        """Stop the child (it finishes nothing). Safe to call twice."""
        with self._lock:
            _stop_any(self._slot, self._grace_s)

    @property
    def pid(self) -> int | None:
        """The child's process id (None before the first start)."""
        return self._slot[0].process.pid if self._slot else None

    def convert(self, input_path: Path, output_path: Path, *,
                progress: Callable[[int, int | None], None] | None = None,
                **kwargs: Any) -> Any:
        """The engine's result for this conversion, run in the child.

        Raises what the engine raised (pickled across), EngineTimeoutError when
        the child had to be killed at the deadline, EngineTransientError when
        the child died on its own (out of memory, a crash).
        """
        kwargs.setdefault("deadline", self._policy)
        output_path = Path(output_path)
        with self._lock:
            child = self._ensure_child()
            job = (Path(input_path), output_path, kwargs, progress is not None)
            try:
                kind, value = self._answer(child, job, progress)
            except BaseException as exc:
                if self._slot and self._slot[0] is child:  # busy with a job nobody awaits
                    self._kill(child, output_path, reason=str(exc) or type(exc).__name__)
                else:
                    _remove_partials(output_path)
                raise
        if kind == "error":
            raise value
        return value

    def _answer(self, child: _Child, job: tuple | None, progress) -> tuple[str, Any]:
        """The child's answer to ``job``, its progress passed on meanwhile."""
        # the deadline counts once the child is ready (its imports have their own bound)
        started = time.monotonic()
        limit_s = self._policy.limit_s(None) if child.ready else self._start_s
        while True:
            wait_s = started + limit_s + self._margin_s - time.monotonic()
            try:
                if job is not None:
                    child.jobs.send(job)
                    job = None
                if not child.jobs.poll(max(0.0, wait_s)):
                    if not child.ready:
                        raise EngineTransientError(
                            f"the engine process did not start within {limit_s:.0f} s")
                    raise EngineTimeoutError(
                        f"the conversion ran past its deadline of {limit_s:.0f} s inside "
                        "one step (a stuck decoder, depth model or encoder) and its "
                        "process was killed")
                kind, *rest = child.jobs.recv()
            except (EOFError, OSError) as exc:
                code = child.reap()
                self._slot.clear()
                raise EngineTransientError(
                    f"the conversion process ended unexpectedly (exit code {code})") from exc
            if kind == "ready":
                child.ready = True
                started, limit_s = time.monotonic(), self._policy.limit_s(None)
            elif kind == "deadline":
                limit_s = rest[0]
            elif kind == "progress":
                progress(*rest)  # may raise (a caller's own limit): the child is then killed
            else:
                return kind, rest[0]

    def _ensure_child(self) -> _Child:
        if self._slot and not self._slot[0].process.is_alive():
            self._slot.pop().reap()
        if not self._slot:
            self._slot.append(_Child.spawn(self._convert, self._warm))
        return self._slot[0]

    def _kill(self, child: _Child, output_path: Path, *, reason: str) -> None:
        _stop_any(self._slot, self._grace_s)
        _remove_partials(output_path)
        log.warning("killed conversion process %d: %s", child.process.pid, reason)
        self._ensure_child()  # started now, warm for the next request


class _Child:
    """One spawned child: its process, its job pipe and its lifeline."""

    def __init__(self, process, jobs: Connection, lifeline: Connection) -> None:
        self.process, self.jobs, self.lifeline = process, jobs, lifeline
        self.ready = False  # it said it has imported the engine

    @classmethod
    def spawn(cls, convert: Callable[..., Any] | None, warm: str | None) -> _Child:
        parent_end, child_end = _SPAWN.Pipe()
        lifeline_read, lifeline_write = _SPAWN.Pipe(duplex=False)
        level = logging.getLogger().getEffectiveLevel()  # the child logs as its parent does
        process = _SPAWN.Process(target=_child_main,
                                 args=(child_end, lifeline_read, convert, warm, level),
                                 name="stereo-inference-engine", daemon=True)
        process.start()
        child_end.close()
        lifeline_read.close()
        return cls(process, parent_end, lifeline_write)

    def stop(self, grace_s: float) -> None:
        """SIGTERM to the child's group, SIGKILL after ``grace_s``; reaped."""
        _signal_group(self.process.pid, signal.SIGTERM)
        self.process.join(grace_s)
        # the group, whatever the child did: ffmpeg it started goes too
        _signal_group(self.process.pid, signal.SIGKILL, leader=self.process.exitcode is None)
        self.reap()

    def reap(self) -> int | None:
        self.process.join()
        for end in (self.jobs, self.lifeline):
            end.close()
        return self.process.exitcode



def _stop_any(slot: list[_Child], grace_s: float) -> None:
    while slot:
        slot.pop().stop(grace_s)


def _signal_group(pid: int | None, sig: int, *, leader: bool = True) -> None:
    """``sig`` to the child's group, and to the child itself while it runs
    (``leader``: it may still be starting, with no group of its own yet)."""
    if pid is None:
        return
    for send in ((os.kill, os.killpg) if leader else (os.killpg,)):
        try:
            send(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _remove_partials(output_path: Path) -> None:
    """What a stopped conversion leaves beside its output: the partial output
    (``runtime.partial_path`` and its video-only pass), a timeline copy, and a
    comfort report written just before the output's rename."""
    for pattern in (f".{output_path.stem}.partial*", f".{output_path.stem}.continuous*",
                    f"{output_path.name}.comfort.json"):
        for leftover in output_path.parent.glob(pattern):
            leftover.unlink(missing_ok=True)


def _child_main(jobs: Connection, lifeline: Connection, convert, warm: str | None,
                log_level: int) -> None:
    """The child: its own process group, a watch on the parent, then jobs until told to stop."""
    os.setpgid(0, 0)
    logging.basicConfig(level=log_level,
                        format="%(asctime)s %(levelname)s %(name)s [engine] %(message)s")
    use_one_malloc_arena()  # before any thread: a request reuses the last one's memory
    threading.Thread(target=_die_with_parent, args=(lifeline,), daemon=True).start()
    if convert is None:
        from stereo_inference.convert import convert_file as convert
    if warm is not None:
        from stereo_inference.depth import prepare

        prepare(warm)
    jobs.send(("ready",))
    while True:
        try:
            job = jobs.recv()
        except EOFError:
            return
        input_path, output_path, kwargs, wants_progress = job
        _say_the_limit(jobs, input_path, kwargs.get("deadline"))
        if wants_progress:
            kwargs["progress"] = lambda done, total: jobs.send(("progress", done, total))
        try:
            result = convert(input_path, output_path, **kwargs)
        except Exception as exc:  # handed to the parent, which raises it
            jobs.send(("error", _picklable(exc)))
        else:
            jobs.send(("result", result))


def _say_the_limit(jobs: Connection, input_path: Path, policy: DeadlinePolicy | None) -> None:
    """Tell the parent this conversion's deadline, from the input's frame count
    (nothing when the input cannot be probed: the engine then refuses it)."""
    if policy is None:
        return
    from stereo_inference.video_info import probe_video

    try:
        info = probe_video(input_path)
    except Exception:  # noqa: BLE001 (convert_file says why, with its own error)
        return
    jobs.send(("deadline", policy.limit_s(policy.frames_of(info))))


def _picklable(exc: Exception) -> Exception:
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 (an error whose class cannot cross a pipe)
        return EngineTransientError(f"{type(exc).__name__}: {exc}")
    return exc


def _die_with_parent(lifeline: Connection) -> None:
    """Block until the parent's end of the lifeline closes, then end this group."""
    try:
        lifeline.recv()
    except (EOFError, OSError):
        pass
    os.killpg(0, signal.SIGKILL)
