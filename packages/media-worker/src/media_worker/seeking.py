"""Where an ffmpeg run that wants one moment of a source starts reading it.

An input seek (``-ss`` before ``-i``) goes through the container's index to
the keyframe before the moment and decodes from there: a few packets, even
over HTTP, which is what a thumbnail strip of a two-hour film needs. A
transport stream has no index: ffmpeg lands on a packet near the moment and
decodes from the next keyframe, so where none follows before the end (a
short recording with one keyframe every few seconds, or only one), nothing
comes out. A moment early enough to decode up to is then read from the
start, dropping what precedes it (an output seek).
"""

from __future__ import annotations

from collections.abc import Sequence

# Decoding this many seconds of video to reach a moment costs at most a few
# seconds of CPU at 1080p: the fallback's bound.
FROM_START_MAX_S = 120.0


def seek_attempts(at: float, source_args: Sequence[str]) -> list[list[str]]:
    """ffmpeg arguments naming the input ``source_args`` read from ``at``
    seconds, to try in turn until one gives pictures: the input seek, then
    (for a moment within ``FROM_START_MAX_S``) the whole input from its start
    with the moment as an output seek. Output options follow either."""
    fast = ["-ss", f"{at:.3f}", *source_args]
    if at <= 0:
        return [[*source_args]]
    if at > FROM_START_MAX_S:
        return [fast]
    return [fast, [*source_args, "-ss", f"{at:.3f}"]]
