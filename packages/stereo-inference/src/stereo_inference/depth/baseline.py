"""Which frame a frame's parallax is read against: as far as the motion needs.

Parallax grows with the camera's travel between the two frames compared. A
camera sliding at walking speed moves things a few pixels a frame at full
size, a fraction of a pixel at the weight-free estimator's working width:
read against the previous frame, near and far differ by less than the flow's
noise. So each frame is compared with the frame that lies enough motion away
(``TARGET_PX`` of typical movement at the working size, the shot's recent
pace telling how many frames that is), up to ``MAX_FRAMES`` back; where the
shot has not got that far yet (its first frames), with a frame that far ahead
instead (the engine hands the estimator the frames that follow a batch:
``stereo_inference.lookahead``). A fast motion keeps the previous frame.

The frames are kept at three times the working width (``FINE``: a shot's
first frame is read at that size, ``shot_start``), and the flow to the
reference is read at twice the working width (``READ``), where the same
motion spans twice the pixels, then brought back to the working size. (Read
there only when the pace was too slow for MAX_FRAMES to reach TARGET_PX at
the working size, the tuned real scenes' 2.5 px a frame shots ordered worse
than their 0.5 px ones: first frame, moving shots 0.902 against 0.910 read
always at twice the width; trucks 0.930 against 0.944, dollies 0.883 against
0.901. At three times, with the first frame read at three times too: over
the shot 0.948 against 0.944, for 1.5x the old engine's CPU against 1.34x.)
"""

from __future__ import annotations

import math
from collections import deque

import cv2
import numpy as np

from stereo_inference.depth.parallax import flow_at_size, flow_axis

TARGET_PX = 2.0  # typical movement (90th percentile of the flow, px) wanted between the two
MAX_FRAMES = 8  # never further than this, back or ahead
PACE_KEEP = 0.7  # the shot's pace: a running mean of each frame's movement
MIN_PACE_PX = 0.02  # below this a frame's movement is noise: the camera stands
FINE = 3  # the kept frames' width over the working width
READ = 2  # the width the flow to the reference is read at, over the working width


def movement(flow: np.ndarray, consistency: np.ndarray) -> float:
    """Typical movement (px) of a flow (h,w,2): the 90th percentile of its speed
    where it holds (a camera's travel shows most in the near things)."""
    speed = np.hypot(flow[::2, ::2, 0], flow[::2, ::2, 1])[consistency[::2, ::2] > 0.5]
    return float(np.percentile(speed, 90)) if speed.size >= 16 else 0.0


def spread(flow: np.ndarray, consistency: np.ndarray) -> float:
    """How far (px) the picture moves against itself over a flow (h,w,2): the 5th
    to 95th percentile of the flow along its main direction, where it holds.
    An orbit turns to keep the middle distance in place, so its typical
    movement (``movement``) stays small while near and far things move apart,
    each its own way, and DIS loses them as it loses a fast motion."""
    held = flow[::2, ::2][consistency[::2, ::2] > 0.5]
    if len(held) < 16:
        return 0.0
    lo, hi = np.percentile(held @ flow_axis(held[:, 0], held[:, 1], np.ones(len(held))), (5, 95))
    return float(hi - lo)


def reach(flow: np.ndarray, consistency: np.ndarray) -> float:
    """How far (px) a flow (h,w,2) outruns DIS: the larger of its typical
    movement and the picture's against itself (``spread``)."""
    return max(movement(flow, consistency), spread(flow, consistency))


class Baseline:
    """The last MAX_FRAMES grey frames of a shot and its pace."""

    def __init__(self) -> None:
        self.past: deque[np.ndarray] = deque(maxlen=MAX_FRAMES)
        self.pace: float | None = None  # px per frame at the working size

    def reset(self) -> None:
        self.past.clear()
        self.pace = None

    def push(self, gray8: np.ndarray | None, moved: float | None) -> None:
        """A frame that is now past (None: not at hand, as after a restore), and
        how far the picture moved to the next one."""
        if gray8 is None or (self.past and self.past[-1].shape != gray8.shape):
            self.past.clear()
        if gray8 is not None:
            self.past.append(gray8)
        if moved is not None:
            self.pace = moved if self.pace is None else (
                PACE_KEEP * self.pace + (1 - PACE_KEEP) * moved)

    def frames_needed(self) -> int:
        """How many frames away the reference should lie at the shot's pace."""
        if self.pace is None or self.pace < MIN_PACE_PX:
            return MAX_FRAMES
        return int(min(MAX_FRAMES, max(1, math.ceil(TARGET_PX / self.pace))))

    def read(self, flow_field, fine8: np.ndarray, ahead: list[np.ndarray],
             size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, int] | None:
        """(flow, consistency, frames away) from the fine grey frame ``fine8`` to
        its reference (``reference``), at the working ``size`` (w, h); None
        without any other frame."""
        ref = self.reference(ahead)
        if ref is None:
            return None
        other, away = ref
        if fine8.shape[1] > READ * size[0]:  # kept finer for a shot's first frame (shot_start)
            fine8, other = (_narrowed(f, READ * size[0]) for f in (fine8, other))
        if fine8.shape[1] > size[0]:
            flow, consistency = flow_field.backward(fine8, other)
            return (*flow_at_size(flow, consistency, size), away)
        small = [f if f.shape[1] == size[0] else cv2.resize(f, size, interpolation=cv2.INTER_AREA)
                 for f in (fine8, other)]
        return (*flow_field.backward(*small), away)

    def reference(self, ahead: list[np.ndarray]) -> tuple[np.ndarray, int] | None:
        """(frame, frames away: negative back, positive ahead): the past frame the
        pace asks for, else (early in a shot) the frame ahead that far, else the
        farthest there is; None without any."""
        need = self.frames_needed()
        if len(self.past) >= need:
            return self.past[-need], -need
        if len(ahead) >= need:
            return ahead[need - 1], need
        if not self.past and not ahead:
            return None
        if len(ahead) > len(self.past):
            return ahead[-1], len(ahead)
        return self.past[0], -len(self.past)


def _narrowed(grey: np.ndarray, width: int) -> np.ndarray:
    return cv2.resize(grey, (width, max(8, round(grey.shape[0] * width / grey.shape[1]))),
                      interpolation=cv2.INTER_AREA)
