"""Measure how far apart two views of a stereo frame show the same content."""

from __future__ import annotations

import numpy as np


def horizontal_offset(left: np.ndarray, right: np.ndarray, max_shift: int = 40) -> int:
    """k with left(x) ~ right(x - k) over two equally sized (H, W) arrays: positive
    when the content is nearer than the screen (crossed disparity)."""
    w = left.shape[1]
    best, best_k = None, 0
    for k in range(-max_shift, max_shift + 1):
        a = left[:, max(0, k):w + min(0, k)]
        b = right[:, max(0, -k):w - max(0, k)]
        score = np.abs(a - b).mean()
        if best is None or score < best:
            best, best_k = score, k
    return best_k
