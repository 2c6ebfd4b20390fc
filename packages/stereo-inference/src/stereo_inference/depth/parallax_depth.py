"""From a parallax reading to depth in 0..1 that holds still over a shot.

``parallax`` gives inverse depth up to a scale, a sign and (where a turn went
partly unexplained, a handheld sway's) an offset. The weight-free estimator
(``heuristic``) needs 0..1 nearness that does not pump with the camera's
speed, flip with each reading or shift as the sway turns. So a reading is:

- per frame of baseline (divided by how many frames it spans), so a longer
  or shorter reference gives the same scale;
- turned round when it clearly runs against what the shot already knows (its
  depth so far, moved to this frame; on a shot's first frame the static cue):
  their weighted correlation below -ORIENT_CORRELATION;
- taken about its median, and scaled by a running range of its 2nd and 98th
  percentiles about that median (RANGE_DECAY of the last range kept a
  reading). About the median, the offset a turn adds moves nothing: ranged
  about zero instead, the running range lagged behind each shift, and the
  tuned real scenes' sway flickered 2.6 % of the depth range a frame (0.76
  about the median), with the same ordering.
"""

from __future__ import annotations

import numpy as np

RANGE_DECAY = 0.8  # share of the running parallax range kept each reading
# Parallax whose correlation with the shot's depth so far (or the static cue)
# is below minus this is turned round: the fit's sign is a guess when a turn
# went unexplained (a handheld sway); nearer zero the fit's own sign stands.
ORIENT_CORRELATION = 0.1


class ParallaxScale:
    """The running range of a shot's parallax readings."""

    def __init__(self) -> None:
        self.range: tuple[float, float] | None = None  # about the median, per frame

    def reset(self) -> None:
        self.range = None

    def nearness(self, inverse_depth: np.ndarray, weight: np.ndarray, frames_away: int,
                 known: np.ndarray, oriented: bool = False) -> np.ndarray:
        """0..1 nearness (h,w) from a reading's ``inverse_depth`` over
        ``frames_away`` frames, trusted where ``weight`` > 0.5, oriented as
        ``known`` (what the shot already knows, or the static cue) unless its
        sign is settled (``oriented``: the geometry's, or oriented already)."""
        inverse = inverse_depth / abs(frames_away)
        if not oriented and runs_against(inverse, known, weight):
            inverse = -inverse
        lo, mid, hi = np.quantile(inverse[weight > 0.5][::4], (0.02, 0.5, 0.98))
        lo, hi = lo - mid, hi - mid
        if self.range is not None:  # a steady scale: no pumping with the speed
            lo = RANGE_DECAY * self.range[0] + (1 - RANGE_DECAY) * lo
            hi = RANGE_DECAY * self.range[1] + (1 - RANGE_DECAY) * hi
        self.range = (float(lo), float(hi))
        return np.clip((inverse - mid - lo) / max(hi - lo, 1e-6), 0, 1)


def runs_against(depth: np.ndarray, reference: np.ndarray, weight: np.ndarray) -> bool:
    """Whether ``depth`` clearly runs against ``reference``: their weighted
    correlation is below -ORIENT_CORRELATION (near zero: no say)."""
    w = weight[::2, ::2].ravel()
    a, b = depth[::2, ::2].ravel(), reference[::2, ::2].ravel()
    total = max(float(w.sum()), 1e-6)
    a, b = a - float(w @ a) / total, b - float(w @ b) / total
    spread = np.sqrt(float(w @ (a * a)) * float(w @ (b * b)))
    return float(w @ (a * b)) < -ORIENT_CORRELATION * max(spread, 1e-12)
