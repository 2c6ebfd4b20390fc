"""Where a source is cut, decided before the split, so that its segment count is
known while it runs (a segment's key carries the count: ``shared_types.keys``)
and each segment can be handed to the video-workers as soon as it is cut.

A ``-c copy`` cut can only fall on a keyframe. The bounded probe has read every
keyframe's time (``SourceInfo.keyframes_s``); segment n ends at the first
keyframe at or after n times the target length (less the same slack the
muxer's own ``-segment_time`` gets), and the next target is the first multiple
after that keyframe (a gap longer than the target makes one long segment, not
empty ones). The segment muxer is then told each cut as a time halfway between
the chosen keyframe and the one before it: it cuts at the first keyframe at or
after a time given, so a cut stays on its keyframe however its clock is offset
from the probe's (a first audio timestamp before the picture's), by up to half
that keyframe gap, and the count never depends on it. The split's count is
still checked against the plan (``chunking``).

A source re-encoded on the way (``splitting.reencode_reason``: sparse
keyframes, open GOPs, a codec an MP4 segment cannot hold) has no keyframes
yet: the re-encode forces one at the first frame of each
``splitting.keyframe_interval`` step, so the plan takes each step's start
(a keyframe a frame late moves no cut, for the same reason).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from stereo_media.bounded_probe import SourceInfo

from media_worker.splitting import SEGMENT_TIME_DELTA, keyframe_interval, reencode_reason

# The muxer's own slack: a keyframe this much before a multiple of the target
# still ends the segment there.
SLACK_S = float(SEGMENT_TIME_DELTA)


def plan_cuts(keyframes_s: Sequence[float], length_s: float) -> list[float] | None:
    """The times to pass the segment muxer (``-segment_times``) to cut a video
    with keyframes at ``keyframes_s`` (s after its first timestamp, in order)
    into segments of about ``length_s``; one segment more than cuts. None when
    the keyframes are unknown (an empty list, a probe that did not read them)."""
    if not keyframes_s or length_s <= 0:
        return None
    cuts: list[float] = []
    target = length_s
    for before, key in zip(keyframes_s, keyframes_s[1:], strict=False):
        if key <= before or key < target - SLACK_S:
            continue
        cuts.append((before + key) / 2)
        target = (math.floor((key + SLACK_S) / length_s) + 1) * length_s
    return cuts


def planned_cuts(info: SourceInfo, length_s: float) -> list[float] | None:
    """:func:`plan_cuts` for a split of the source ``info`` describes into segments
    of about ``length_s``: at its own keyframes, or at those its re-encode will
    force (the last a whole step before its end)."""
    if reencode_reason(info, length_s) is None:
        return plan_cuts(info.keyframes_s, length_s)
    every = keyframe_interval(length_s)
    steps = max(0, math.floor((info.duration_s - every) / every))
    return plan_cuts([m * every for m in range(steps + 1)], length_s)
