"""Waiting for a child process to end, woken the moment it does.

``Popen.wait(timeout=...)`` polls: it sleeps 0.5 ms, then twice as long
each time, up to 50 ms, so a child that ends after 35 ms is seen at 63.5 ms
(an ffmpeg mux that reassembly waits for, measured: 0.086 s a run against
0.063 s here). On Linux a pidfd becomes readable when its process exits, so
``exited_within`` sleeps in ``poll`` on it instead and returns at once;
elsewhere (no ``pidfd_open``, a kernel before 5.3, a sandbox that refuses it)
it falls back to ``Popen.wait``.
"""

from __future__ import annotations

import os
import select
import subprocess
from typing import Protocol


class Process(Protocol):
    """What of ``subprocess.Popen`` this needs (a process adopted by pid has it too)."""

    @property
    def pid(self) -> int: ...
    def poll(self) -> int | None: ...
    def wait(self, timeout: float | None = None) -> int: ...


def exited_within(proc: Process, timeout_s: float) -> bool:
    """Wait up to ``timeout_s`` for ``proc`` to end; True (and ``proc.returncode``
    set) when it did, False when it is still running."""
    if proc.poll() is not None:
        return True
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # no pidfds here (or it was reaped meanwhile)
        try:
            proc.wait(timeout=max(0.0, timeout_s))
        except subprocess.TimeoutExpired:
            return False
        return True
    try:
        waiter = select.poll()
        waiter.register(fd, select.POLLIN)
        if not waiter.poll(max(0, round(timeout_s * 1000))):
            return False
    finally:
        os.close(fd)
    proc.wait()  # it has ended: this only reaps it
    return True
