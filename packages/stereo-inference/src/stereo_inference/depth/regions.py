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

import threading

import cv2
import numpy as np

STEP = 6  # superpixel seed spacing, pixels
MERGE_K = 1200.0  # larger: fewer, bigger regions
_LAB_SCALE = np.array([100 / 255, 1, 1], np.float32)
_tables_lock = threading.Lock()
_tables_built = False


def build_tables() -> None:
    """Build OpenCV's 8-bit Lab tables now: ~0.13 s of CPU, once a process, which
    would otherwise land on the first ``segment`` call (the first frame of a
    process's first conversion). Safe from any thread: a second caller waits
    for the first one's build."""
    global _tables_built
    if _tables_built:
        return
    with _tables_lock:
        if not _tables_built:
            cv2.cvtColor(np.zeros((1, 1, 3), np.uint8), cv2.COLOR_RGB2Lab)
            _tables_built = True


def build_tables_soon() -> None:
    """``build_tables`` in a background thread (OpenCV releases the GIL), unless
    built: it overlaps whatever the caller does before its first ``segment``.
    Not a daemon thread: an interpreter that exits while OpenCV is inside the
    build aborts (``std::terminate``), so an exit waits for it (~0.2 s at most)."""
    if not _tables_built:
        threading.Thread(target=build_tables, name="lab-tables").start()


def segment(rgb: np.ndarray, *, step: int | None = None, k: float | None = None) -> np.ndarray:
    """Region labels (h,w) int32, 0..n-1, for ``rgb`` (h,w,3) float32 in 0..1."""
    step, k = step or STEP, k or MERGE_K
    build_tables()
    image = cv2.GaussianBlur(np.clip(rgb * 255 + 0.5, 0, 255).astype(np.uint8), (0, 0), 1.0)
    cells, n = _superpixels(image, step)
    # 8-bit Lab stores L as 0..255: back to 0..100, so lightness weighs as in
    # CIE Lab against the two colour axes.
    lab = cv2.cvtColor(image, cv2.COLOR_RGB2Lab).astype(np.float32) * _LAB_SCALE
    return _merge(lab, cells, n, k)


def _superpixels(image: np.ndarray, step: int) -> tuple[np.ndarray, int]:
    h, w = image.shape[:2]
    markers = np.zeros((h, w), np.int32)
    # at least one seed a side: a frame a few pixels wide (a tiny source) is one cell
    ys, xs = np.arange(min(step // 2, h // 2), h, step), np.arange(min(step // 2, w // 2), w, step)
    n = ys.size * xs.size
    markers[np.ix_(ys, xs)] = np.arange(1, n + 1, dtype=np.int32).reshape(ys.size, xs.size)
    cv2.watershed(image, markers)
    # The watershed marks the lines between basins (and the border) with -1:
    # each such pixel joins a neighbouring basin.
    if (markers < 1).all():  # every seed lay on the border (1-2 pixels a side): one cell
        markers[:] = 1  # (the other seeds got no pixels, which merging allows)
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
    # Adjacent superpixels, each pair once (smaller label first), in code order.
    adjacent = np.zeros((n, n), bool)
    for a, b in ((cells[:, :-1], cells[:, 1:]), (cells[:-1, :], cells[1:, :])):
        adjacent[a, b] = True
    adjacent = np.triu(adjacent | adjacent.T, 1)
    first, second = np.nonzero(adjacent)
    distance = np.linalg.norm(mean[first] - mean[second], axis=1)
    # Plain lists: the loop touches single elements, where numpy is slow. Edges
    # come in increasing distance, so a merge's distance is the largest inside
    # the merged region: each root keeps only its limit, that distance + k/size.
    parent, sizes = list(range(n)), size.tolist()
    limit = [k / max(s, 1.0) for s in sizes]  # (a seed that got no pixels has no edges)
    order = np.argsort(distance, kind="stable")
    for d, i, j in zip(distance[order].tolist(), first[order].tolist(), second[order].tolist(),
                       strict=True):
        while parent[i] != i:  # the roots, halving the paths on the way
            parent[i] = i = parent[parent[i]]
        while parent[j] != j:
            parent[j] = j = parent[parent[j]]
        if i != j and d <= limit[i] and d <= limit[j]:
            parent[j] = i
            sizes[i] += sizes[j]
            limit[i] = d + k / sizes[i]
    roots = np.array(parent)
    while True:  # every label straight to its root
        up = roots[roots]
        if np.array_equal(up, roots):
            break
        roots = up
    _, labels = np.unique(roots, return_inverse=True)
    return labels[cells].astype(np.int32)
