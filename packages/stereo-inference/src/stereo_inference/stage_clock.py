"""Where a conversion's time goes: busy and CPU seconds per pipeline stage.

A conversion's stages (decode, depth, render, encode, mux) each run in a
thread of their own, joined by queues (``stereo_inference.stages``). A
stage's *busy* seconds are the wall time it spent working, not waiting on
those queues; its *CPU* seconds are its thread's CPU time over the same spans
(``time.thread_time``). FFmpeg's decoder threads and x264's encoder threads
run beside the stage threads and belong to no stage: what the process spent
in CPU over the conversion beyond the stages is reported as ``codec threads``
(in a process that runs other work alongside, that work lands there too).

On a GPU a stage's busy time includes waiting for its kernels where it reads
their results back, so the busiest stage is the one the pipeline waits for.
A stage's idle time is split where it is measured: *starved* seconds waiting
for its input, *blocked* seconds waiting to hand its output on (a full queue
behind it); a pipeline whose stages are all starved or blocked much of the time
is paced by its coupling, not by any one stage.
"""

from __future__ import annotations

import resource
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager

CODEC_THREADS = "codec threads"


class StageClock:
    """Accumulates busy and CPU seconds per stage, from any thread."""

    def __init__(self) -> None:
        self._busy: dict[str, float] = defaultdict(float)
        self._cpu: dict[str, float] = defaultdict(float)
        self._idle: dict[tuple[str, str], float] = defaultdict(float)
        self._lock = threading.Lock()
        self._process_cpu = _process_cpu()

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Count the enclosed work as ``name``'s (in the calling thread)."""
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            spent_cpu = time.thread_time() - cpu
            spent = time.perf_counter() - wall
            with self._lock:
                self._busy[name] += spent
                self._cpu[name] += spent_cpu

    @contextmanager
    def idle(self, name: str, why: str) -> Iterator[None]:
        """Count the enclosed wait as ``name``'s ``why`` ("starved" or "blocked")."""
        wall = time.perf_counter()
        try:
            yield
        finally:
            spent = time.perf_counter() - wall
            with self._lock:
                self._idle[(name, why)] += spent

    def report(self) -> dict[str, dict[str, float]]:
        """{stage: {"busy_s", "cpu_s"[, "starved_s", "blocked_s"]}} so far, with
        ``codec threads``' CPU."""
        with self._lock:
            stages = {name: {"busy_s": round(self._busy[name], 3),
                             "cpu_s": round(self._cpu[name], 3)} for name in self._busy}
            for (name, why), spent in self._idle.items():
                stages.setdefault(name, {"busy_s": 0.0, "cpu_s": 0.0})[f"{why}_s"] = round(
                    spent, 3)
            rest = _process_cpu() - self._process_cpu - sum(self._cpu.values())
        stages[CODEC_THREADS] = {"busy_s": 0.0, "cpu_s": round(max(0.0, rest), 3)}
        return stages


def describe(stages: dict[str, dict[str, float]]) -> str:
    """One line: each stage's busy / CPU seconds, busiest first, and its
    starved / blocked seconds in brackets where they were measured."""
    order = sorted(stages, key=lambda n: (n == CODEC_THREADS, -stages[n]["busy_s"]))

    def part(name: str) -> str:
        s = stages[name]
        if name == CODEC_THREADS:
            return f"{name} -/{s['cpu_s']:.2f}"
        waits = ("" if "starved_s" not in s and "blocked_s" not in s else
                 f" ({s.get('starved_s', 0.0):.2f}/{s.get('blocked_s', 0.0):.2f})")
        return f"{name} {s['busy_s']:.2f}/{s['cpu_s']:.2f}{waits}"

    return "busy/CPU s per stage (starved/blocked): " + ", ".join(map(part, order))


def _process_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
