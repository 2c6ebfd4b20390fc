"""Edge-aware refinement: the guided filter (He, Sun and Tang, 2010).

Within every small window the output is a linear function of the guide image,
fitted to the input depth: where the guide is flat the depth is smoothed,
where the guide has an edge the depth may jump with it. So coarse depth from
flow or position cues snaps to object outlines instead of leaking as blobs.
"""

from __future__ import annotations

import cv2
import numpy as np


def guided_filter(guide: np.ndarray, src: np.ndarray, *, radius: int = 2,
                  eps: float = 2e-3) -> np.ndarray:
    """``src`` (h,w) float32 filtered along the edges of ``guide`` (h,w) float32 0..1.

    ``eps`` is the guide variance below which a window counts as flat.
    """
    k = (2 * radius + 1, 2 * radius + 1)

    def mean(x: np.ndarray) -> np.ndarray:
        return cv2.boxFilter(x, -1, k, borderType=cv2.BORDER_REFLECT)

    mean_i, mean_p = mean(guide), mean(src)
    cov = mean(guide * src) - mean_i * mean_p
    var = mean(guide * guide) - mean_i * mean_i
    a = cov / (var + eps)
    b = mean_p - a * mean_i
    return (mean(a) * guide + mean(b)).astype(np.float32)
