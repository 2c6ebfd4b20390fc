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

Ground contact alone read a close shot upside down: with no floor in sight
(someone in front of a wall), the torso cut by the bottom of the frame filled
most of the bottom row and was taken for the floor, and the wall, reaching
the bottom row beside it, for something standing at the very front. So an
occlusion rule comes first: a region most of whose outline larger neighbours
hold (the wall around a head, or around a torso cut by the bottom of the
frame, whose outline goes on below it) is a figure in front of them. A figure
is never the ground, and where the ground holds none of it, it is moved to at
least a little nearer than the regions around it when its own contact line
says less (a head, whose lowest pixels are mid-frame, would stand far away on
the floor).

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
FIGURE_HOLD = 0.5  # share of a region's outline larger neighbours hold: a figure
FIGURE_SOFT = 0.15  # the lift grows from FIGURE_HOLD - this to FIGURE_HOLD + this
FIGURE_LIFT = 0.05  # a figure is at least this much nearer than what surrounds it
SLIVER = 4  # a neighbour this many times smaller is a sliver along the border


def contact_depth(rgb: np.ndarray) -> np.ndarray:
    """Nearness (h,w) float32 in 0..1 (1 = bottom row) for ``rgb`` (h,w,3) float32 0..1."""
    labels = segment(rgb)
    h, w = labels.shape
    n = int(labels.max()) + 1
    bottom = _lowest_rows(labels, n)
    pairs = _pairs(labels)
    size = np.bincount(labels.ravel(), minlength=n)
    held, edge = _outlines(labels, n, pairs)
    holders, hold = _holders(held, edge, size)
    cover = np.bincount(labels[-1], minlength=n) / w
    cover = np.where(hold < FIGURE_HOLD, cover, 0.0)  # a figure is no floor
    ground = cover > GROUND_SHARE
    if cover.max() > 0:  # (every region on the bottom row a figure: no floor in sight)
        ground[int(np.argmax(cover))] = True
    line = _contact_lines(bottom)
    rows = np.arange(h, dtype=np.float32)[:, None]
    contact = np.clip(line[labels, np.arange(w)[None, :]], rows, h - 1)
    contact = np.where(ground[labels], rows, contact)
    near = contact / max(h - 1, 1)
    near = _in_front_of_surrounds(near, labels, pairs, held, size, holders, hold, ground)
    return (near / max(1.0, float(near.max()))).astype(np.float32)


def _pairs(labels: np.ndarray) -> tuple[np.ndarray, ...]:
    """The 4-neighbour pixel pairs across region borders: (region a, region b,
    flat index of a's pixel, of b's pixel)."""
    h, w = labels.shape
    index = np.arange(h * w).reshape(h, w)
    parts = []
    for a, b, ia, ib in ((labels[:, :-1], labels[:, 1:], index[:, :-1], index[:, 1:]),
                         (labels[:-1, :], labels[1:, :], index[:-1, :], index[1:, :])):
        cut = a != b
        parts.append((a[cut], b[cut], ia[cut], ib[cut]))
    return tuple(np.concatenate(column) for column in zip(*parts, strict=True))


def _outlines(labels: np.ndarray, n: int, pairs: tuple[np.ndarray, ...]
              ) -> tuple[np.ndarray, np.ndarray]:
    """(held (n,n): border pixel pairs between each two regions (``_pairs``),
    edge (n,): each region's pixels on the frame's top, left and right edges,
    an outline nobody holds; the bottom edge is not counted: what it cuts goes
    on below it)."""
    a, b, _, _ = pairs
    held = np.bincount(a * n + b, minlength=n * n).reshape(n, n)
    held += held.T
    edge = (np.bincount(labels[0], minlength=n) + np.bincount(labels[1:, 0], minlength=n)
            + np.bincount(labels[1:, -1], minlength=n))
    return held, edge


def _holders(held: np.ndarray, edge: np.ndarray, size: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """(holders (n,n) bool: which larger neighbours border each region, hold (n,):
    how much of its outline they hold together, 0..1). Slivers (neighbours under
    a quarter of a region's size: the watershed's leftovers along an edge) hold
    no part of the outline either way."""
    counted = np.where(size[None, :] * SLIVER >= size[:, None], held, 0)
    outline = counted.sum(1) + edge
    larger = np.where(size[None, :] > size[:, None], counted, 0)
    return larger > 0, larger.sum(1) / np.maximum(outline, 1)


def _in_front_of_surrounds(near: np.ndarray, labels: np.ndarray,
                           pairs: tuple[np.ndarray, ...], held: np.ndarray, size: np.ndarray,
                           holders: np.ndarray, hold: np.ndarray, ground: np.ndarray
                           ) -> np.ndarray:
    """``near`` with each figure moved to at least FIGURE_LIFT nearer than the
    larger regions around it along their border, by as much as its outline is
    held (a smooth step around FIGURE_HOLD, so a region about as much held as
    not does not jump between frames). Not where the ground holds any of it:
    a thing on the floor is placed by where it stands. Larger regions first,
    so a figure inside a figure ends in front of both."""
    weight = np.clip((hold - FIGURE_HOLD + FIGURE_SOFT) / (2 * FIGURE_SOFT), 0, 1)
    figures = np.nonzero((weight > 0) & ~ground & ~(holders & ground[None, :]).any(1))[0]
    if figures.size == 0:
        return near
    n = len(hold)
    a, b, ia, ib = pairs
    flat = near.ravel()
    # total[x, y]: y's nearness summed over its border pixels with x (held[x, y] of them)
    pair = np.concatenate([a * n + b, b * n + a])
    total = np.bincount(pair, np.concatenate([flat[ib], flat[ia]]), n * n).reshape(n, n)
    mean = np.bincount(labels.ravel(), flat, n) / np.maximum(size, 1)
    lift = np.zeros(n)
    for f in figures[np.argsort(-size[figures])]:
        around = holders[f]
        border = ((total[f, around] + lift[around] * held[f, around]).sum()
                  / max(held[f, around].sum(), 1))
        lift[f] = weight[f] * max(0.0, border + FIGURE_LIFT - mean[f])
    return near + lift[labels]


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
