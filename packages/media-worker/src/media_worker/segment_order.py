"""How a job's segments are laid out for ``lanes`` video-workers: how long
each is, and the order they are published in.

Length: a job cut at the target length into a count of segments that
``lanes`` does not divide ends with one worker converting the last segment
while the others idle (15 segments of 4 s on two workers: eight rounds of
work in the time of 7.5). The count is rounded up to a multiple of ``lanes``
and the duration shared equally (16 segments of 3.75 s): every lane gets the
same work, and no segment is longer than the target.

Order: each video-worker that converts segment k keeps its depth state and hands it
to segment k+1 when it converts that one too; a segment whose predecessor
another worker converted instead re-estimates depth on the predecessor's
tail (the seam warm-up, ~half a segment's depth work). Published 0, 1, 2, ...
with two workers, the two take turns and nearly every seam is warmed up.
Published as ``lanes`` contiguous runs, interleaved (0, 2, 1, 3 for four
segments in two lanes), each worker that takes the head of the queue
continues its own run: one warm-up per lane instead of one per segment.
"""

from __future__ import annotations

import math

# Never cut shorter than this to fill the lanes: a segment's fixed cost (its
# message, the engine's open and flush, a seam warm-up) would dominate it.
MIN_SEGMENT_S = 1.0


def segment_seconds(duration_s: float, target_s: float, lanes: int) -> float:
    """The length to cut a ``duration_s`` source into: at most ``target_s``,
    with a segment count that is a multiple of ``lanes`` (while segments stay
    at least MIN_SEGMENT_S long). An unknown (0) duration keeps ``target_s``."""
    if duration_s <= 0 or target_s <= 0:
        return target_s
    lanes = max(1, lanes)
    count = math.ceil(duration_s / target_s - 1e-9)
    balanced = math.ceil(count / lanes) * lanes
    while balanced > count and duration_s / balanced < MIN_SEGMENT_S:
        balanced -= lanes
    count = max(count, balanced)
    return duration_s / count if count > 1 else target_s


def publish_order(count: int, lanes: int) -> list[int]:
    """Segment indices ``0 .. count-1`` as ``lanes`` contiguous runs (the first
    ones one longer when ``count`` does not divide), interleaved run by run.
    ``lanes <= 1`` is the plain order. Raises ValueError for a negative count."""
    if count < 0:
        raise ValueError(f"segment count must not be negative, got {count}")
    lanes = max(1, min(lanes, count or 1))
    size, extra = divmod(count, lanes)
    runs, start = [], 0
    for lane in range(lanes):
        end = start + size + (1 if lane < extra else 0)
        runs.append(range(start, end))
        start = end
    return [run[i] for i in range(len(runs[0])) for run in runs if i < len(run)]
