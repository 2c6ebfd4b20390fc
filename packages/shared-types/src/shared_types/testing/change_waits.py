"""Recording a change waiter's answers in tests (``ports.ChangeWaiter``).

A waiter's ``wait`` / ``wait_async`` answers True when it was told of a change
and False when its time ran out, so a test can tell a ring from a poll by the
answers alone, whatever the machine's speed. ``RecordedWaits`` wraps one
waiter class's method for the test: ``begun`` is released as each wait
starts (a test changes a job once the waiter is asleep), ``answers`` holds
what each returned. Only the waits of threads started after it was made
count (and the test's own thread's): a thread an earlier test left waiting
in the same process (a web app's webhook notifier, never stopped) released
``begun`` with its own periodic waits, so a test changed its job before its
own waiter listened, and the change went unheard.
"""

from __future__ import annotations

import inspect
import threading


class RecordedWaits:
    def __init__(self, monkeypatch, cls, method: str = "wait") -> None:
        self.begun = threading.Semaphore(0)
        self.answers: list[bool] = []
        real = getattr(cls, method)
        earlier = set(threading.enumerate()) - {threading.current_thread()}

        async def recorded_async(waiter, timeout_s):
            if threading.current_thread() in earlier:
                return await real(waiter, timeout_s)
            self.begun.release()
            return self._answered(await real(waiter, timeout_s))

        def recorded(waiter, timeout_s):
            if threading.current_thread() in earlier:
                return real(waiter, timeout_s)
            self.begun.release()
            return self._answered(real(waiter, timeout_s))

        monkeypatch.setattr(cls, method,
                            recorded_async if inspect.iscoroutinefunction(real) else recorded)

    def _answered(self, rung: bool) -> bool:
        self.answers.append(rung)
        return rung

    def asleep(self, timeout_s: float = 60.0) -> None:
        """Wait until one more wait has begun."""
        assert self.begun.acquire(timeout=timeout_s), "the waiter never waited"
