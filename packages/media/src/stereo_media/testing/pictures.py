"""Comparing decoded pictures from two encodes of what should be one video.

Two x264 encodes of the same frames in one process are not always identical
(its frame threads: about one encode in five here, a level apart in 0.1 % of
pixels), so a test that asks "did both conversions decide the same picture"
compares the mean difference against that noise, far below what a different
decision leaves (a seam warmed on its context against one that was not: ~5
levels over two thirds of the pixels). Under heavy load that noise has once
gone past the tolerance, so tests that compare decisions encode losslessly
(``crf`` 0), and this tolerance is only a second guard.
"""

from __future__ import annotations

import numpy as np

ENCODER_NOISE = 0.5  # mean absolute difference (levels) two encodes of one picture stay under


def difference(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute difference of two pictures of one shape, in levels."""
    if a.shape != b.shape:
        raise ValueError(f"pictures of different shapes: {a.shape} and {b.shape}")
    return float(np.abs(a.astype(np.int16) - b.astype(np.int16)).mean())


def same_picture(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` and ``b`` are one picture, encoded twice."""
    return difference(a, b) < ENCODER_NOISE
