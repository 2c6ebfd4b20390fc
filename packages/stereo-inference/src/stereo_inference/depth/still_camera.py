"""Whether the camera stood still between two small grey frames, and what changed.

DIS guesses the flow of flat areas from whatever moves nearby: a still shot of
plain walls with a few things moving reads as a camera moving ~0.3 px a frame
(median over the frame), while 92 % of its pixels did not change at all. Only
across strong edges is the flow measured (along an edge it is anyone's guess),
so that is where stillness is read; and where the picture did not change, the
flow of a still camera is put at rest, so nothing held along it (a depth map)
drifts with the guesses (the weight-free estimator, ``heuristic``, and the
flow stabiliser of learned models, ``stabilized``). Past a still shot's first
frames the weight-free estimator's depth also follows new estimates only where
the picture changed lately (``recent_change``): elsewhere it stays as it is,
instead of following each estimate's noise (walls that shimmer as people
pass; at 720p 2 % of the depth range is half a pixel of parallax). The
stabiliser does not hold so: freezing a per-frame model's map after a few
frames kept their noise (docs/BENCHMARKS.md, "Depth quality").
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from stereo_inference.depth.parallax import warp_back

STILL_PX = 0.12  # median flow below this: the camera stands still
# Flow across strong edges (gradient above EDGE_LEVELS grey levels a pixel, at
# least EDGE_SHARE of the frame): under STILL_ACROSS_PX (median), the camera
# stands still whatever the flow elsewhere says.
EDGE_LEVELS = 12.0
EDGE_SHARE = 0.01
STILL_ACROSS_PX = 0.04
# Across several references: the motion across edges grown to GROWTH_FLOOR_PX
# (2.5 times the most a still camera's noise showed) and by at least GROWTH of
# the growth in distance, the camera moves
GROWTH, GROWTH_FLOOR_PX = 0.5, 0.02
# Mean grey change (of 255) around a pixel between two frames: at most the
# first, nothing moved there; from the second on, something surely did.
CHANGED_LEVELS = (1.0, 4.0)
# A still shot's depth is held (where nothing changed) once the shot is this
# many frames old; "lately" fades by RECENT_KEEP a frame, so what a passing
# thing uncovers still settles.
SETTLING_FRAMES = 3
RECENT_KEEP = 0.85


def settle(flow: np.ndarray, gray8: np.ndarray, other8: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray | None]:
    """(flow, change) for ``flow`` from grey frame ``gray8`` to ``other8`` (uint8).
    When the camera stood still (``camera_still``): where the picture changed
    (``changed``), and the flow with every other area at rest. When the camera
    moved: the flow as it is, and None."""
    if not camera_still(flow, gray8):
        return flow, None
    change = changed(gray8, other8)
    return flow * change[..., None], change


def camera_still(flow: np.ndarray, gray8: np.ndarray) -> bool:
    """Whether the camera stood still over ``flow`` from grey frame ``gray8``: the
    flow's median speed is under STILL_PX, or its median motion across strong
    edges (where it is measured, not guessed) under STILL_ACROSS_PX."""
    return _Edges(gray8).still(flow)


def still_over(flows: list[tuple[int, np.ndarray]], gray8: np.ndarray,
               explained: Callable[[], bool]) -> bool:
    """Whether the camera stood still from grey frame ``gray8`` to each of several
    frames ahead or back (``flows``: how far and the flow to there, nearest
    first): each flow says so (``camera_still``), unless the motion across
    strong edges grows with the distance (to GROWTH_FLOOR_PX, and by at least
    GROWTH of what the distance grew: 8 to 16 frames, 1.5 times) and the
    camera's motion model explains it (``explained``, asked only then: its
    parallax is trusted). A slow orbit keeps the middle distance in place, and
    on a wide road view that holds most of the frame and its edges: each
    reading's median motion looks still, but the rest moves farther and
    farther from one reference to the next (KITTI's slow orbit: 0.03, 0.05,
    0.06 px 8, 12 and 16 frames ahead, its parallax fully trusted), while a
    still camera's noise stays where it is (0.001-0.008 px under sensor noise
    and JPEG at quality 60, however far). Things that move in a still shot
    grow too (DIS's guesses on plain walls around them: 0.016 to 0.040 px
    from 1 to 2 frames), but no camera motion explains them."""
    edges = _Edges(gray8)  # the frame's edges, found once for every flow
    if not all(edges.still(f) for _, f in flows):
        return False
    if len(flows) < 2:
        return True
    (k_near, near_flow), (k_far, far_flow) = flows[0], flows[-1]
    near, far = edges.motion_across(near_flow), edges.motion_across(far_flow)
    if near is None or far is None:
        return True
    grows = far >= max(GROWTH_FLOOR_PX, near * (1 + GROWTH * (k_far / k_near - 1)))
    return not (grows and explained())


class _Edges:
    """The strong edges of a grey frame (gradient above EDGE_LEVELS), found on
    first use: where a flow's motion is measured, not guessed."""

    def __init__(self, gray8: np.ndarray) -> None:
        self._gray8 = gray8
        self._found: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def still(self, flow: np.ndarray) -> bool:
        """Whether ``flow`` is a still camera's (``camera_still``)."""
        speed = np.hypot(flow[::2, ::2, 0], flow[::2, ::2, 1])
        if float(np.median(speed)) < STILL_PX:
            return True
        across = self.motion_across(flow)
        return across is not None and across < STILL_ACROSS_PX

    def motion_across(self, flow: np.ndarray) -> float | None:
        """The median motion (px) of ``flow`` across the strong edges; None when
        under EDGE_SHARE of the frame has them."""
        gx, gy, magnitude = self._edges()
        strong = magnitude > EDGE_LEVELS
        if np.count_nonzero(strong) < EDGE_SHARE * strong.size:
            return None
        across = np.abs(flow[..., 0] * gx + flow[..., 1] * gy)[strong] / magnitude[strong]
        return float(np.median(across))

    def _edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._found is None:
            gx = cv2.Sobel(self._gray8, cv2.CV_32F, 1, 0, ksize=3, scale=1 / 8)
            gy = cv2.Sobel(self._gray8, cv2.CV_32F, 0, 1, ksize=3, scale=1 / 8)
            self._found = gx, gy, np.hypot(gx, gy)
        return self._found


def changed(gray8: np.ndarray, other8: np.ndarray) -> np.ndarray:
    """0..1 per pixel: how surely the picture changed around it from one grey
    frame (uint8) to the other (their difference's 5x5 mean, CHANGED_LEVELS)."""
    change = cv2.blur(cv2.absdiff(gray8, other8).astype(np.float32), (5, 5))
    low, high = CHANGED_LEVELS
    return np.clip((change - low) / (high - low), 0, 1)


def recent_change(previous: np.ndarray | None, change: np.ndarray, flow: np.ndarray
                  ) -> np.ndarray:
    """Where a still shot changed lately (0..1): this frame's ``change``, or
    ``previous`` (the last frame's answer, None at first) moved along ``flow``
    and faded by RECENT_KEEP, whichever is larger."""
    if previous is None or previous.shape != change.shape:
        return change
    return np.maximum(change, RECENT_KEEP * warp_back(previous, flow))
