"""A clock a test moves by hand instead of sleeping."""

from __future__ import annotations


class ManualClock:
    """Called, it answers ``t``; a test sets or advances ``t``. ``sleep`` records
    how long was asked and moves the clock on by it (pass it where the code
    under test would sleep)."""

    def __init__(self, t: float = 0.0) -> None:
        self.t = t
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += seconds
