"""Telling a waiter that a job's status changed (``ports.JobChanges``).

A command waiting for its job to end (``stereo-spot convert``) or a web
page's progress stream reads the job, then waits; told of a change, it reads
again at once instead of at its next poll. The local backend tells through its doorbell
(``local_adapters.job_changes``); a backend that cannot (DynamoDB has no push
to a waiting process) uses ``UNANNOUNCED`` here, whose waiters sleep out their
timeout and read again, as they did before. Imports nothing heavy.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager


class _Sleeper:
    """A waiter nobody tells: it sleeps out its timeout."""

    def wait(self, timeout_s: float) -> bool:
        time.sleep(max(0.0, timeout_s))
        return False

    async def wait_async(self, timeout_s: float) -> bool:
        await asyncio.sleep(max(0.0, timeout_s))
        return False


class Unannounced:
    """``JobChanges`` of a backend that cannot tell of changes: every waiter polls."""

    @contextmanager
    def listen(self) -> Iterator[_Sleeper]:
        yield _Sleeper()


UNANNOUNCED = Unannounced()
