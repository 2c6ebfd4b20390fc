"""CPU resampling of whole frames with OpenCV's SIMD ``remap`` (uint8 in, uint8 out).

The warp plan (source x per pixel) is computed by ``stereo_inference.warp`` on
a few rows; here it is stretched to the frame and applied with bilinear
interpolation, several times faster than the same gather in torch on a CPU.
"""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np


@cache
def _rows(h: int, w: int) -> np.ndarray:
    return np.repeat(np.arange(h, dtype=np.float32)[:, None], w, axis=1)


def stretch_plan(plan: np.ndarray, h: int, w: int, subsample: int = 1) -> np.ndarray:
    """A (rows, W) plan as a (h, w) map of source x for a plane ``subsample`` times smaller."""
    if subsample > 1:
        plan = np.ascontiguousarray(plan[:, ::subsample]) / subsample
    if plan.shape != (h, w):
        plan = cv2.resize(plan, (w, h), interpolation=cv2.INTER_LINEAR)
    return plan.astype(np.float32, copy=False)


def shrink(plane: np.ndarray, w: int, h: int) -> np.ndarray:
    """``plane`` area-averaged to (h, w) (a box filter for the 2:1 half layouts)."""
    if plane.shape[:2] == (h, w):
        return plane
    return cv2.resize(plane, (w, h), interpolation=cv2.INTER_AREA)


def remap_rows(plane: np.ndarray, map_x: np.ndarray, dst: np.ndarray | None = None) -> np.ndarray:
    """``plane`` (h, w[, c]) uint8 or float32 resampled along x at ``map_x`` (h, w),
    bilinear; written into ``dst`` when given."""
    h, w = map_x.shape
    return cv2.remap(plane, map_x, _rows(h, w), cv2.INTER_LINEAR, dst=dst,
                     borderMode=cv2.BORDER_REPLICATE)
