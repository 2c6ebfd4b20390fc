"""Ground contact: things take the depth of the ground where they stand.

On the ground plane lower in the frame is nearer, but a box, a person or a
pillar is upright: all of it is as far as the line where it meets the ground.
So the frame is cut into regions (``regions.segment``), the ground is the
region that fills most of the bottom row (plus any other that fills a large
share of it), and every other region gets, column by column, the ground's
depth at its contact line. That line is fitted to the region's lowest pixel
in each column, keeping the lowest ones (where something stands in front of
it, a region's bottom is cut short, higher in the frame), so a wall receding
along the side of the frame gets a slanted contact and a back wall hidden in
places behind pillars keeps the line where it meets the floor. A region
cut by the bottom of the frame is nearer than anything it stands on.

Returned as the height of the contact row, 0 at the top to 1 at the bottom:
the same scale as a plain vertical ramp, which it equals on the ground.
"""

from __future__ import annotations

import numpy as np

from stereo_inference.depth.regions import segment

GROUND_SHARE = 0.4  # a region covering this much of the bottom row is ground too
FIT_ROUNDS = 4
FIT_TOLERANCE = 1.5  # px: bottoms this far above the line count as cut short
MAX_SLOPE = 1.0  # rows per column
SLOPE_RIDGE = 200.0  # column-spread (px^2) a region needs before its slant counts


def contact_depth(rgb: np.ndarray) -> np.ndarray:
    """Nearness (h,w) float32 in 0..1 (1 = bottom row) for ``rgb`` (h,w,3) float32 0..1."""
    labels = segment(rgb)
    h, w = labels.shape
    n = int(labels.max()) + 1
    bottom = _lowest_rows(labels, n)
    cover = np.bincount(labels[-1], minlength=n) / w
    ground = cover > GROUND_SHARE
    ground[int(np.argmax(cover))] = True
    line = _contact_lines(bottom)
    rows = np.arange(h, dtype=np.float32)[:, None]
    contact = np.clip(line[labels, np.arange(w)[None, :]], rows, h - 1)
    contact = np.where(ground[labels], rows, contact)
    return (contact / max(h - 1, 1)).astype(np.float32)


def _lowest_rows(labels: np.ndarray, n: int) -> np.ndarray:
    """(n,w) float32: each region's lowest row in each column, -1 where absent."""
    h, w = labels.shape
    # Only the last pixel of each vertical run can be a region's lowest.
    ends = np.ones((h, w), bool)
    ends[:-1] = labels[:-1] != labels[1:]
    ys, xs = np.nonzero(ends)
    bottom = np.full(n * w, -1, np.int64)
    np.maximum.at(bottom, labels[ys, xs] * w + xs, ys)
    return bottom.reshape(n, w).astype(np.float32)


def _contact_lines(bottom: np.ndarray) -> np.ndarray:
    """(n,w): per region a line row = a + b*column through its lowest bottoms.

    Least squares, refitted without the bottoms that lie above the line
    (columns where something in front cuts the region short)."""
    x = np.arange(bottom.shape[1], dtype=np.float32)[None, :]
    present = (bottom >= 0).astype(np.float32)
    weight = present
    for _ in range(FIT_ROUNDS):
        s = np.maximum(weight.sum(1, keepdims=True), 1e-6)
        mx, my = (weight * x).sum(1, keepdims=True) / s, (weight * bottom).sum(1, keepdims=True) / s
        dx = x - mx
        # The ridge keeps narrow regions (a few columns, no evidence of a slant) level.
        slope = (weight * dx * (bottom - my)).sum(1, keepdims=True) / (
            (weight * dx * dx).sum(1, keepdims=True) + SLOPE_RIDGE)
        line = my + np.clip(slope, -MAX_SLOPE, MAX_SLOPE) * dx
        weight = present * (bottom >= line - FIT_TOLERANCE)
    return line
