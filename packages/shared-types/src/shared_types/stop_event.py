"""A stop that wakes whoever is blocked waiting for something else.

A consumer's drain sets its stop event; a receive blocked in a long poll would
only notice at its next look. ``StopEvent`` is a ``threading.Event`` that also
runs the wake-up callbacks registered with ``waking`` when it is set, so a
backend whose wait can be interrupted (the local queue's doorbell socket) is
woken at once instead of checking the event every few milliseconds.

``set`` is safe in a signal handler: a handler runs on the main thread between
two bytecodes, so it may interrupt that thread inside this event's own
``set`` or ``wait`` (a second SIGTERM while the first one's handler sets it:
a forked video-worker gets one from the supervisor and one forwarded by its
parent). ``threading.Event`` guards its flag with a plain lock, and the
handler then waits forever for the lock its own thread holds; this one's is
re-entrant.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class StopEvent(threading.Event):
    def __init__(self) -> None:
        super().__init__()
        # CPython's Event keeps its condition in ``_cond``: re-entrant, so that a
        # signal handler's ``set`` can take it on a thread already holding it
        self._cond = threading.Condition(threading.RLock())
        # re-entrant: ``set`` may run in a signal handler on a thread inside ``waking``
        self._wakers_lock = threading.RLock()
        self._wakers: list[Callable[[], None]] = []

    def set(self) -> None:
        super().set()
        with self._wakers_lock:
            wakers = list(self._wakers)
        for wake in wakers:
            wake()

    @contextmanager
    def waking(self, wake: Callable[[], None]) -> Iterator[None]:
        """Run ``wake`` when the event is set while the block runs (at once if it
        already is). ``wake`` must be quick and must not raise."""
        with self._wakers_lock:
            self._wakers.append(wake)
        try:
            if self.is_set():
                wake()
            yield
        finally:
            with self._wakers_lock:
                self._wakers.remove(wake)
