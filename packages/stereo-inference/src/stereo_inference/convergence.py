"""Auto-convergence: the screen plane set per shot from the depth, smoothed
within a shot, set afresh at each cut.

The screen plane goes through the shot's subject, taken as the
``SUBJECT_QUANTILE`` of the (curved) depth in the middle of the picture (the
centre 60 % of each side): the nearer part of what the camera points at.
Within a shot it follows that target at ``FOLLOW`` of the way a frame (about
half a second to settle at 24 fps), so the plane never jumps; at a cut it
takes the new shot's target at once.

Cuts are found in the depth itself (``ShotCuts``), so they are found the same
way for every estimator, imported depth included: a frame whose depth
thumbnail differs from the frame before by more than ``CUT_CHANGE`` (mean
absolute difference of 0..1 depth), or by ``CUT_RATIO`` times the change the
shot has been showing (and at least ``CUT_FLOOR``).
"""

from __future__ import annotations

import numpy as np

from stereo_inference.arrays import to_numpy

SUBJECT_QUANTILE = 0.7
FOLLOW = 0.12
THUMB = (9, 16)
CUT_CHANGE, CUT_RATIO, CUT_FLOOR = 0.2, 6.0, 0.06


def thumbnails(depth) -> np.ndarray:
    """(B,*THUMB) area averages of depth (B,1,h,w), on the host (any size, a few
    pixels too)."""
    import cv2

    d = to_numpy(depth)[:, 0].astype(np.float32)
    return np.stack([cv2.resize(m, THUMB[::-1], interpolation=cv2.INTER_AREA) for m in d])


class ShotCuts:
    """Which frames begin a shot, from their depth thumbnails, across batches."""

    def __init__(self) -> None:
        self.last: np.ndarray | None = None
        self.change: float | None = None

    def cuts(self, thumbs: np.ndarray) -> list[bool]:
        out = []
        for t in thumbs:
            change = None if self.last is None else float(np.abs(t - self.last).mean())
            cut = change is None or change > CUT_CHANGE or (
                self.change is not None and change > CUT_FLOOR
                and change > CUT_RATIO * self.change)
            if cut or change is None:
                self.change = None
            elif self.change is None:
                self.change = change
            else:
                self.change = 0.7 * self.change + 0.3 * change
            self.last = t
            out.append(cut)
        return out


def subject_depth(depth) -> np.ndarray:
    """(B,) the subject's depth of each frame of depth (B,1,h,w) in 0..1."""
    d = to_numpy(depth)[:, 0]
    h, w = d.shape[1:]
    centre = d[:, int(0.2 * h): max(int(0.8 * h), int(0.2 * h) + 1),
               int(0.2 * w): max(int(0.8 * w), int(0.2 * w) + 1)]
    return np.quantile(centre.reshape(d.shape[0], -1), SUBJECT_QUANTILE, axis=1)


class AutoConvergence:
    """The screen plane (convergence, 0..1) frame by frame."""

    def __init__(self, follow: float = FOLLOW) -> None:
        self.follow = follow
        self.value: float | None = None

    def planes(self, subjects: np.ndarray, cuts: list[bool]) -> np.ndarray:
        out = np.empty(len(subjects), np.float32)
        for i, (subject, cut) in enumerate(zip(subjects, cuts, strict=True)):
            target = float(np.clip(1.0 - subject, 0.0, 1.0))
            if cut or self.value is None:
                self.value = target
            else:
                self.value += self.follow * (target - self.value)
            out[i] = self.value
        return out
