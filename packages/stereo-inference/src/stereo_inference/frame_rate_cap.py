"""``--max-fps``: frames closer together than 1/max_fps are left out of the output.

A frame is kept when its timestamp is at least one period after the last kept
one's slot (slots on a fixed grid from the first frame, so a 59.94 fps source
capped at 30 keeps every other frame, not a drifting pattern); each kept frame
lasts until the next kept one, so the timeline and the audio stay where they
were. Works on whatever timestamps the source has (constant or variable rate).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


class FrameRateCap:
    """An encoder in front of ``encoder`` that passes on at most ``max_fps``
    frames a second; everything else (``close``, ``seconds``...) is the encoder's."""

    def __init__(self, encoder, max_fps: float, time_base: Fraction) -> None:
        self.encoder = encoder
        self.period = 1 / (max_fps * time_base)  # in ticks of the frames' time base
        # a timestamp is rounded to its time base: half a tick of slack, in slots
        # (29.97 fps in milliseconds is not an exact multiple of anything)
        self.slack = float(Fraction(1, 2) / self.period) + 1e-6
        self.first: int | None = None
        self.next_slot = -math.inf  # the first slot a frame may take

    def __getattr__(self, name: str):
        return getattr(self.encoder, name)

    def keep(self, pts: int) -> bool:
        """Whether the frame at ``pts`` is passed on (called in frame order)."""
        if self.first is None:
            self.first = pts
        slot = float((pts - self.first) / self.period) + self.slack
        if slot < self.next_slot:
            return False
        self.next_slot = math.floor(slot) + 1
        return True

    def write(self, frames: np.ndarray, fmt: str, pts: list, durations: list,
              captions: dict[int, bytes] | None = None) -> None:
        kept = [i for i, p in enumerate(pts) if p is None or self.keep(p)]
        if not kept:
            return
        # each kept frame lasts until the next frame of the batch that is kept
        # (the last one keeps its own duration: the next batch's first kept frame
        # starts at its own timestamp anyway)
        lasting = []
        for j, i in enumerate(kept):
            end = kept[j + 1] if j + 1 < len(kept) else None
            if end is not None and pts[i] is not None and pts[end] is not None:
                lasting.append(pts[end] - pts[i])
            else:
                lasting.append(durations[i])
        self.encoder.write(frames[kept], fmt, [pts[i] for i in kept], lasting, captions)
