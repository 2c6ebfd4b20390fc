"""A stop that wakes whoever is blocked waiting for something else.

A consumer's drain sets its stop event; a receive blocked in a long poll would
only notice at its next look. ``StopEvent`` is a ``threading.Event`` that also
runs the wake-up callbacks registered with ``waking`` when it is set, so a
backend whose wait can be interrupted (the local queue's doorbell socket) is
woken at once instead of checking the event every few milliseconds.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class StopEvent(threading.Event):
    def __init__(self) -> None:
        super().__init__()
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
