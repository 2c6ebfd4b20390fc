"""Timestamps in seconds, from PyAV's (pts, time base) pairs.

PyAV types both halves as optional (a frame or stream may lack either); what
reads a time needs both, and says so when one is missing rather than failing
on ``None * Fraction``.
"""

from __future__ import annotations

from fractions import Fraction


def seconds(pts: int | None, time_base: Fraction | None) -> float:
    """``pts`` in seconds. Raises ValueError when either value is missing."""
    if pts is None or time_base is None:
        raise ValueError(f"no timestamp: pts={pts}, time_base={time_base}")
    return float(pts * time_base)


def seconds_or(pts: int | None, time_base: Fraction | None, default: float) -> float:
    """``pts`` in seconds, or ``default`` when either value is missing."""
    return default if pts is None or time_base is None else float(pts * time_base)
