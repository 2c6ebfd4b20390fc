"""A video stream's frame rate, as every reader here takes it.

FFmpeg gives two: the average (frames over duration) and a guess from the
codec and timestamps. They agree for most files; a variable-rate file's
average is the lower, and DV's demuxer says its time base (60000) as the
average. The lower of the two is right in both cases.
"""

from __future__ import annotations

from fractions import Fraction


def stream_rate(stream) -> Fraction | None:
    """The frame rate of a PyAV video ``stream`` (duck-typed): the lower of its
    average and guessed rates that are known, None when neither is."""
    rates = [r for r in (stream.average_rate, stream.guessed_rate) if r]
    return min(rates) if rates else None
