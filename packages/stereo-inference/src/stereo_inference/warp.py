"""View synthesis: shift each pixel by its disparity, nearer pixels winning.

Contract (DESIGN.md): ``warp_view(image, disparity)`` with ``image`` float32
(B,C,H,W) in 0..1 and ``disparity`` float32 (B,1,H,W) in pixels; a source pixel
at x with disparity d lands at x - d (the right-eye view); larger d is nearer and
wins occlusions; holes left by disocclusion are filled from the background side.
The left eye is the same call on mirrored inputs (``warp_left_view``).

How: every row is treated as a piecewise-linear curve x -> x - d(x). Each target
pixel t collects the disparities of the source segments [x, x+1] whose image
covers it and keeps the largest (a z-buffer); it then samples the source at
t + z, the exact sub-pixel position, instead of being splatted. Segments that
fold (occlusion) or stretch past ``max_stretch`` (a depth edge, i.e.
disocclusion) cover nothing: those pixels are holes and take the source
position of their background-side neighbour (``fill="replicate"``, the best
scorer in bench/stereo_quality.py; ``"mirror"`` continues the texture instead).
The plan is a few vectorised array ops written once for numpy and torch tensors
(CUDA; ``stereo_inference.arrays``); on a CPU the engine's C loops
(``native.planes.plan_warp``, row by row) give the same values, bit for bit,
~3x faster, with the numpy code as their reference and fallback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from stereo_inference import native
from stereo_inference.arrays import (
    arange,
    as_float,
    cast,
    concat,
    full,
    is_tensor,
    namespace,
    scatter_max,
    to_index,
)

if TYPE_CHECKING:
    import torch

FILL_MODES = ("replicate", "mirror")
# Pixels planned per call: bounds the temporaries (~100 bytes a pixel). On a
# CPU, ~100 k pixels at a time keep them in the L2 cache: ~3x faster than a
# whole 1080p frame at once.
CHUNK_PIXELS, CPU_CHUNK_PIXELS = 2_500_000, 100_000
_NEG_INF = float("-inf")


def plan_warp(disparity, *, max_stretch: float = 1.9, fill: str = "replicate"):
    """Source x position (B,1,H,W) that each right-view pixel samples.

    A target t covered by a surface of disparity z samples the source at t + z
    (inverting t = x - d(x)), so the warp only needs a z-buffer of disparities.
    ``disparity`` is a numpy array or a tensor; the plan is the same kind.
    Raises ValueError for a disparity that is not (B,1,H,W) or an unknown fill.
    """
    if disparity.ndim != 4 or disparity.shape[1] != 1:
        raise ValueError(f"disparity must be (B,1,H,W), got {tuple(disparity.shape)}")
    if fill not in FILL_MODES:
        raise ValueError(f"fill must be one of {FILL_MODES}, got {fill!r}")
    if is_tensor(disparity) and disparity.device.type == "cpu":
        # numpy plans the same values (bit for bit) ~1.4x faster than torch on a CPU
        import torch

        return torch.from_numpy(_plan(disparity.detach().float().contiguous().numpy(),
                                      max_stretch, fill))
    return _plan(disparity, max_stretch, fill)


def _plan(disparity, max_stretch: float, fill: str):
    """``plan_warp`` of a checked (B,1,H,W) disparity, numpy or a tensor, by row chunks."""
    b, _, h, w = disparity.shape
    rows = as_float(disparity.reshape(b * h, w))
    on_gpu = is_tensor(rows)
    rows = rows.contiguous() if on_gpu else np.ascontiguousarray(rows)
    src = namespace(rows).empty_like(rows)
    if not on_gpu and native.planes is not None:
        native.planes.plan_warp(rows, src, max_stretch, fill == "mirror")
        return src.reshape(b, 1, h, w)
    step = max(1, (CHUNK_PIXELS if on_gpu else CPU_CHUNK_PIXELS) // w)  # rows are independent
    step = min(step, rows.shape[0])
    grid = _Grid(step, w, rows)
    with np.errstate(divide="ignore", invalid="ignore"):  # folds: masked out below
        for i in range(0, rows.shape[0], step):
            _plan_rows(rows[i : i + step], grid, max_stretch, fill, out=src[i : i + step])
    return src.reshape(b, 1, h, w)


class _Grid:
    """Per-pixel constants of a chunk of ``rows`` rows, flattened: each pixel's
    column, and its row's offset in the padded z-buffer (rows of ``width + 2``:
    columns 0 and width+1 collect every target off the frame). Floats, so a
    target's buffer index is one add: exact, a chunk holds far fewer than 2**24.
    ``padded_column`` is the column of each z-buffer cell (-1 and width at the pads)."""

    def __init__(self, rows: int, width: int, like) -> None:
        row = arange(rows, like)[:, None]  # broadcast over columns (no modulo: ~20x cheaper)
        padded_column = arange(width + 2, like) - 1
        column = padded_column[1 : width + 1]
        self.padded_column = row * 0 + padded_column
        self.column = (row * 0 + column).reshape(-1)
        self.offset = (row * (width + 2) + 1 + column * 0).reshape(-1)


def _plan_rows(d, grid: _Grid, max_stretch: float, fill: str, out) -> None:
    """``plan_warp`` of disparity rows (N, W), written into ``out`` (N, W).

    The rows are planned as one flat sequence of pixels (contiguous memory):
    the step from a row's last pixel to the next row's first is no segment.
    """
    n, w = d.shape
    d = d.reshape(-1)
    column, offset = grid.column[: n * w], grid.offset[: n * w]
    f = column - d  # where each source pixel lands
    zbuf = full((n, w + 2), _NEG_INF, d)
    bad = _cover_segments(zbuf.reshape(-1), f, d, offset, w, max_stretch)
    _cover_edge_pixels(zbuf.reshape(-1), f, d, offset, w, bad)
    zbuf[:, 0] = zbuf[:, w + 1] = float("nan")  # the pads: no hole, no neighbour
    src = zbuf + grid.padded_column[:n]
    _fill_holes(src.reshape(-1), zbuf.reshape(-1), grid.padded_column.reshape(-1), fill)
    namespace(src).clip(src[:, 1 : w + 1], 0, w - 1, out=out)


def _scatter(zbuf, t, offset, z, width: int) -> None:
    """z-buffer (flat, padded rows) ``z`` at target columns ``t`` of the rows at ``offset``."""
    index = t.clip(-1, width)
    index += offset
    scatter_max(zbuf, to_index(index), z)


def _cover_segments(zbuf, f, d, offset, width: int, max_stretch: float):
    """Each unfolded, not over-stretched segment [x, x+1] covers the targets inside it.

    The first target of every segment is handled densely; the rare second (and
    further) targets of stretched segments sparsely. Returns the torn-or-folded
    segment mask (flat: segment p joins pixels p and p + 1).
    """
    xp = namespace(f)
    f0, f1, d0 = f[:-1], f[1:], d[:-1]
    span = f1 - f0
    bad = (span <= 1e-3) | (span > max_stretch)
    bad[width - 1 :: width] = True  # a row's end to the next row's start
    t = xp.ceil(f0)
    room = f1 - t  # how many more targets fit after the first
    slope = d[1:] - d0
    slope /= span  # disparity change per target pixel along the segment
    z = t - f0
    z *= slope
    z += d0  # the disparity at the first target (in place: no temporaries)
    z[bad | (room < 0)] = _NEG_INF
    _scatter(zbuf, t, offset[:-1], z, width)
    for k in range(1, int(max_stretch) + 1):
        more = xp.where(room >= k)[0]  # (room >= 1: span >= 1, never folded)
        more = more[~bad[more]]  # not torn either
        if len(more) == 0:
            break
        slope_k = slope[more]
        slope_k *= k
        _scatter(zbuf, t[more] + k, offset[more], z[more] + slope_k, width)
    return bad


def _cover_edge_pixels(zbuf, f, d, offset, width: int, bad) -> None:
    """Pixels beside a folded or torn segment (depth edges) and at the frame
    borders also cover their nearest target, so thin details and edges keep
    their full width. (Row ends are torn segments: see ``_cover_segments``.)"""
    xp = namespace(f)
    torn = xp.where(bad)[0]
    pixels = concat([torn, torn + 1, arange(2, torn, integer=True) * (len(f) - 1)])
    _scatter(zbuf, xp.round(f[pixels]), offset[pixels], d[pixels], width)


def _fill_holes(src, zbuf, column, fill: str) -> None:
    """Give each uncovered pixel the source position of its background-side neighbour.

    ``src`` and ``zbuf`` are flat padded rows whose pads are NaN (no neighbour),
    so a run of holes never reaches into the next row; ``column`` is each cell's.
    Between two surfaces the background texture is mirrored from the hole's edge
    (it continues instead of smearing); at the frame border it is replicated.
    """
    xp = namespace(src)
    hole = xp.where(xp.isinf(zbuf))[0]
    if len(hole) == 0:
        return
    # Holes come in runs, and a run's nearest covered pixels lie just outside it
    # (found from the few hole indices, not a search over every covered pixel).
    starts = hole != hole
    starts[0] = True
    starts[1:] = hole[1:] != hole[:-1] + 1
    ends = starts != starts
    ends[-1] = True
    ends[:-1] = starts[1:]
    run = starts.cumsum(0) - 1
    left, right = hole[starts][run] - 1, hole[ends][run] + 1  # pads bound every row
    z_left, z_right = zbuf[left], zbuf[right]
    has_left, has_right = z_left == z_left, z_right == z_right  # not a pad
    # The background (smaller disparity) side wins; a lone side wins by default.
    use_right = has_right & (~has_left | (z_right <= z_left))
    nb = xp.where(use_right, right, left)
    filled = src[nb]
    if fill == "mirror":
        both = has_left & has_right
        filled = filled + cast(xp.where(both, nb - hole, 0), src)
    lone = ~(has_left | has_right)
    src[hole] = xp.where(lone, column[hole], filled)


def sample_rows(image: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    """Linearly resample each row of ``image`` (B,C,H,W) at x positions ``src`` (B,1,H,W)."""
    import torch

    b, c, h, w = image.shape
    if image.device.type == "cpu" and image.dtype == torch.float32:
        return _sample_rows_opencv(image, src)
    x0 = src.floor()
    a = (src - x0).to(image.dtype)
    i0 = x0.long().clamp_(0, w - 1)
    i1 = (i0 + 1).clamp_(max=w - 1)
    v0 = image.gather(3, i0.expand(b, c, h, w))
    v1 = image.gather(3, i1.expand(b, c, h, w))
    return torch.lerp(v0, v1, a)


def _sample_rows_opencv(image: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    """The same bilinear resampling with OpenCV's SIMD remap (about 5x faster on a CPU)."""
    import torch

    from stereo_inference.remap import remap_rows

    images = image.contiguous().numpy()
    maps = src.float().contiguous().numpy()
    out = np.empty_like(images)
    for i in range(images.shape[0]):
        for ch in range(images.shape[1]):
            remap_rows(images[i, ch], maps[i, 0], dst=out[i, ch])
    return torch.from_numpy(out)


def warp_view(image: torch.Tensor, disparity: torch.Tensor, **options) -> torch.Tensor:
    """The right-eye view of ``image`` (B,C,H,W, 0..1) for ``disparity`` (B,1,H,W) pixels.

    ``options`` go to ``plan_warp`` (``max_stretch``, ``fill``).
    Raises ValueError when the shapes disagree.
    """
    if image.dim() != 4 or image.shape[0] != disparity.shape[0] or (
        image.shape[2:] != disparity.shape[2:]
    ):
        raise ValueError(
            f"image {tuple(image.shape)} and disparity {tuple(disparity.shape)} disagree"
        )
    return sample_rows(image, plan_warp(disparity, **options))


def warp_left_view(image: torch.Tensor, disparity: torch.Tensor, **options) -> torch.Tensor:
    """The left-eye view: a pixel at x with disparity d lands at x + d."""
    return warp_view(image.flip(3), disparity.flip(3), **options).flip(3)
