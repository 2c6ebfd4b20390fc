"""The order a job's segments are published in, for ``lanes`` video-workers.

Each video-worker that converts segment k keeps its depth state and hands it
to segment k+1 when it converts that one too; a segment whose predecessor
another worker converted instead re-estimates depth on the predecessor's
tail (the seam warm-up, ~half a segment's depth work). Published 0, 1, 2, ...
with two workers, the two take turns and nearly every seam is warmed up.
Published as ``lanes`` contiguous runs, interleaved (0, 2, 1, 3 for four
segments in two lanes), each worker that takes the head of the queue
continues its own run: one warm-up per lane instead of one per segment.
"""

from __future__ import annotations


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
