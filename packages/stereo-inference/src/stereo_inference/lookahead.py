"""Frames ahead for the depth estimator: a file is not a live stream.

The weight-free estimator reads depth from motion parallax, which needs a
second frame some distance away. Within a shot it has the frames before; a
shot's first frames have none, so it reads them against frames that follow
(``depth.baseline``). A batch on a CPU is one to a few frames (at 1080p,
one: ``runtime.batch_frames``), so the frames that follow mostly lie in the
next batches, which the decoder has not yet produced. ``with_lookahead``
decodes that far ahead: each batch leaves with ``ahead``, the depth inputs
of up to ``estimator.lookahead`` frames after it (the last batches of a
segment with fewer). It holds that many frames more in memory (their full
size eyes too: at 4K about 12 MB a frame), and only for an estimator that
asks for them, on batches that carry a depth input (a CPU's).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator

import numpy as np

from stereo_inference.decode import FrameBatch


def frames_wanted(estimator) -> int:
    """How many frames ahead ``estimator`` reads (0: none)."""
    return int(getattr(estimator, "lookahead", 0) or 0)


def with_lookahead(batches: Iterable[FrameBatch], estimator) -> Iterator[FrameBatch]:
    """``batches`` in order, each with ``ahead`` set to the depth inputs (h,w,3 each)
    of the frames after it, as many as ``estimator`` wants (None when it wants
    none or a batch has no depth input)."""
    wanted = frames_wanted(estimator)
    source = iter(batches)
    if wanted <= 0:
        yield from source
        return
    queue: deque[FrameBatch] = deque()
    done = False
    while True:
        if not queue:
            nxt = next(source, None)
            if nxt is None:
                return
            queue.append(nxt)
        while not done and _frames_after_first(queue) < wanted:
            nxt = next(source, None)
            if nxt is None:
                done = True
            else:
                queue.append(nxt)
        batch = queue.popleft()
        batch.ahead = _ahead(queue, wanted)
        yield batch


def _frames_after_first(queue: deque[FrameBatch]) -> int:
    return sum(_count(b) for b in list(queue)[1:])


def _count(batch: FrameBatch) -> int:
    return 0 if batch.depth_rgb is None else len(batch.depth_rgb)


def _ahead(queue: deque[FrameBatch], wanted: int) -> list[np.ndarray] | None:
    """The first ``wanted`` depth inputs in ``queue``, each a view (h,w,3): no copy
    (a batch of one frame would otherwise copy ``wanted`` frames each time)."""
    frames = [f for b in queue if b.depth_rgb is not None for f in b.depth_rgb[:wanted]][:wanted]
    return frames or None
