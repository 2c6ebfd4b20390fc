"""Waiting on a condition in tests: look again until it holds, never a fixed sleep."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(predicate: Callable[[], object], timeout_s: float = 20.0,
               interval_s: float = 0.05) -> bool:
    """True as soon as ``predicate()`` is truthy, False if it is not within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval_s)
    return bool(predicate())
