"""Regions of a small frame: surfaces that belong together, found without weights.

Two steps, both cheap at the heuristic's 128-pixel width:

- superpixels: a watershed from a regular grid of seeds floods the colour
  image, so every ~6x6 cell grows up to the nearest colour edge;
- merging (Felzenszwalb and Huttenlocher's criterion on the graph of adjacent
  superpixels): neighbours join when the colour difference of their means is
  no larger than the differences already inside either of them, plus ``k``
  over the size (a small region joins more readily). Means over whole cells
  see through texture that a pixel-level edge threshold would split on.

A region's lowest pixels are where it meets what holds it up, which is what
``stereo_inference.depth.contact`` needs.
"""

from __future__ import annotations

import cv2
import numpy as np

STEP = 6  # superpixel seed spacing, pixels
MERGE_K = 1200.0  # larger: fewer, bigger regions
_LAB_SCALE = np.array([100 / 255, 1, 1], np.float32)


def segment(rgb: np.ndarray, *, step: int | None = None, k: float | None = None) -> np.ndarray:
    """Region labels (h,w) int32, 0..n-1, for ``rgb`` (h,w,3) float32 in 0..1."""
    step, k = step or STEP, k or MERGE_K
    image = cv2.GaussianBlur(np.clip(rgb * 255 + 0.5, 0, 255).astype(np.uint8), (0, 0), 1.0)
    cells, n = _superpixels(image, step)
    # 8-bit Lab stores L as 0..255: back to 0..100, so lightness weighs as in
    # CIE Lab against the two colour axes.
    lab = cv2.cvtColor(image, cv2.COLOR_RGB2Lab).astype(np.float32) * _LAB_SCALE
    return _merge(lab, cells, n, k)


def _superpixels(image: np.ndarray, step: int) -> tuple[np.ndarray, int]:
    h, w = image.shape[:2]
    markers = np.zeros((h, w), np.int32)
    ys, xs = np.arange(step // 2, h, step), np.arange(step // 2, w, step)
    n = ys.size * xs.size
    markers[np.ix_(ys, xs)] = np.arange(1, n + 1, dtype=np.int32).reshape(ys.size, xs.size)
    cv2.watershed(image, markers)
    # The watershed marks the lines between basins (and the border) with -1:
    # each such pixel joins a neighbouring basin.
    unset = markers < 1
    while unset.any():
        grown = cv2.dilate(np.where(unset, 0, markers).astype(np.float32), np.ones((3, 3)))
        markers[unset] = grown[unset].astype(np.int32)
        unset = markers < 1
    return markers - 1, n


def _merge(lab: np.ndarray, cells: np.ndarray, n: int, k: float) -> np.ndarray:
    flat = cells.ravel()
    size = np.bincount(flat, minlength=n).astype(np.float64)
    mean = np.stack([np.bincount(flat, lab[..., c].ravel().astype(np.float64), n)
                     for c in range(3)], 1) / np.maximum(size, 1)[:, None]
    a = np.concatenate([cells[:, :-1].ravel(), cells[:-1, :].ravel()])
    b = np.concatenate([cells[:, 1:].ravel(), cells[1:, :].ravel()])
    apart = a != b
    codes = np.unique(np.minimum(a[apart], b[apart]) * n + np.maximum(a[apart], b[apart]))
    first, second = codes // n, codes % n
    distance = np.linalg.norm(mean[first] - mean[second], axis=1)
    # Plain lists: the loop touches single elements, where numpy is slow.
    parent, inner = list(range(n)), [0.0] * n  # inner: largest difference merged so far
    sizes = size.tolist()

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    order = np.argsort(distance, kind="stable")
    for d, u, v in zip(distance[order].tolist(), first[order].tolist(), second[order].tolist(),
                       strict=True):
        i, j = root(u), root(v)
        if i != j and d <= min(inner[i] + k / sizes[i], inner[j] + k / sizes[j]):
            parent[j] = i
            sizes[i] += sizes[j]
            inner[i] = max(inner[i], inner[j], d)
    roots = np.array([root(x) for x in range(n)])
    _, labels = np.unique(roots, return_inverse=True)
    return labels[cells].astype(np.int32)
