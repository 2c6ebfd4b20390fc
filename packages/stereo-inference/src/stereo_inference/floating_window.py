"""The floating window: black strips on the frame edges that near objects cross.

A thing in front of the screen cut by the left border shows, in the left eye,
a strip (as wide as its crossed disparity) that the right eye does not see;
the border then sits behind the thing it cuts, which the eyes read as a
conflict. Masking that strip black in the left eye (the right border: in the
right eye) moves the border forward, in front of the thing: a window that
floats. ``shot_plan`` decides the widths; this module paints them onto packed
YUV 4:2:0 frames of the side-by-side and top-bottom layouts.
"""

from __future__ import annotations

import numpy as np
from shared_types.models import OutputMode

SIDE_BY_SIDE = (OutputMode.SBS, OutputMode.HALF_SBS)
TOP_BOTTOM = (OutputMode.TB, OutputMode.HALF_TB)
FULL_RANGE = 2  # FFmpeg's AVCOL_RANGE_JPEG


def has_window(mode: OutputMode) -> bool:
    return mode in SIDE_BY_SIDE or mode in TOP_BOTTOM


def mask_windows(frames: np.ndarray, mode: OutputMode, eye: tuple[int, int],
                 widths: np.ndarray, *, bit_depth: int = 8, full_range: bool = False) -> None:
    """Paint black, in place, the strips ``widths`` (B,2) pixels wide (the left
    eye's left edge, the right eye's right edge) on packed frames (B,H*3/2,W)
    of ``mode`` with eyes ``eye`` (w, h)."""
    w, h = eye
    sbs = mode in SIDE_BY_SIDE
    oh = h if sbs else 2 * h
    shift = bit_depth - 8
    black_y = 0 if full_range else 16 << shift
    mid = 128 << shift
    for frame, (left, right) in zip(frames, np.ceil(widths).astype(int), strict=True):
        left, right = min(left, w), min(right, w)
        if not (left or right):
            continue
        luma = frame[:oh]
        chroma = frame[oh:].reshape(2, oh // 2, -1)
        # (rows, columns) of each eye in the packed picture
        lrows, rrows = (slice(0, oh), slice(0, oh)) if sbs else (slice(0, h), slice(h, 2 * h))
        rend = 2 * w if sbs else w
        if left:
            luma[lrows, :left] = black_y
            chroma[:, _half(lrows), : (left + 1) // 2] = mid
        if right:
            luma[rrows, rend - right: rend] = black_y
            chroma[:, _half(rrows), (rend - right) // 2: rend // 2] = mid


def _half(rows: slice) -> slice:
    return slice(rows.start // 2, rows.stop // 2)
