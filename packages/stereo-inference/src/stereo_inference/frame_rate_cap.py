"""``--max-fps``: frames closer together than 1/max_fps are left out of the output.

A frame is kept when its timestamp reaches the next free slot of a grid of
1/max_fps from the first frame (so a 59.94 fps source capped at 30 keeps every
other frame, not a drifting pattern; half a tick of slack for timestamps
rounded to their time base). Frames are dropped from the decoded batches,
before depth and render, so a dropped frame costs its decoding only; each kept
frame lasts until the next frame of its batch that is kept (the last kept one
of a batch until the end of the batch), so the timeline and the audio stay
where they were. Closed captions of dropped pictures are dropped with them.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Iterator
from fractions import Fraction

from stereo_inference.decode import FrameBatch


class FrameRateCap:
    """Which frames of one stream (in order) are kept at ``max_fps``."""

    def __init__(self, max_fps: float, time_base: Fraction) -> None:
        self.period = 1 / (Fraction(max_fps).limit_denominator(1001000) * time_base)  # ticks
        self.slack = float(Fraction(1, 2) / self.period) + 1e-6  # half a tick, in slots
        self.first: int | None = None
        self.next_slot = -math.inf  # the first slot a frame may take

    def keep(self, pts: int | None) -> bool:
        """Whether the frame at ``pts`` is kept (called in frame order)."""
        if pts is None:
            return True
        if self.first is None:
            self.first = pts
        slot = float((pts - self.first) / self.period) + self.slack
        if slot < self.next_slot:
            return False
        self.next_slot = math.floor(slot) + 1
        return True

    def batch(self, batch: FrameBatch) -> FrameBatch | None:
        """``batch`` with only its kept frames (itself when all are), None when none is."""
        kept = [i for i, pts in enumerate(batch.pts) if self.keep(pts)]
        if len(kept) == len(batch.pts):
            return batch
        if not kept:
            return None
        durations = []
        for j, i in enumerate(kept):
            following = kept[j + 1] if j + 1 < len(kept) else len(batch.pts)
            own = batch.durations[i:following]
            known = [d for d in own if d is not None]
            durations.append(sum(known) if len(known) == len(own) else batch.durations[i])
        pts = [batch.pts[i] for i in kept]
        return dataclasses.replace(
            batch, eyes=batch.eyes[kept],
            depth_rgb=batch.depth_rgb[kept] if batch.depth_rgb is not None else None,
            pts=pts, durations=durations,
            captions={p: cc for p, cc in batch.captions.items() if p in set(pts)})


def capped(batches: Iterable[FrameBatch], max_fps: float | None,
           time_base: Fraction) -> Iterator[FrameBatch]:
    """``batches`` with the frames above ``max_fps`` left out (all of them when None)."""
    if not max_fps:
        yield from batches
        return
    cap = FrameRateCap(max_fps, time_base)
    for batch in batches:
        kept = cap.batch(batch)
        if kept is not None:
            yield kept
