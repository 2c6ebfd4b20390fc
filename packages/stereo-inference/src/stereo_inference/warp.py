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
The plan is a few vectorised array ops written once for numpy (the CPU engine,
which never imports torch) and torch tensors (CUDA; ``stereo_inference.arrays``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

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
    step = max(1, (CHUNK_PIXELS if on_gpu else CPU_CHUNK_PIXELS) // w)  # rows are independent
    src = namespace(rows).empty_like(rows)
    with np.errstate(divide="ignore", invalid="ignore"):  # folds: masked out below
        for i in range(0, rows.shape[0], step):
            _plan_rows(rows[i : i + step], max_stretch, fill, out=src[i : i + step])
    return src.reshape(b, 1, h, w)


def _plan_rows(d, max_stretch: float, fill: str, out) -> None:
    """``plan_warp`` of disparity rows (N, W), written into ``out`` (N, W)."""
    n, w = d.shape
    x = arange(w, d)
    f = x - d  # where each source pixel lands
    # Columns 0 and w+1 collect every target outside the frame.
    zbuf = full((n, w + 2), _NEG_INF, d)
    bad = _cover_segments(zbuf, f, d, max_stretch)
    _cover_edge_pixels(zbuf, f, d, bad)
    zbuf = zbuf[:, 1 : w + 1]
    src = zbuf + x
    _fill_holes(src, zbuf, fill)
    namespace(src).clip(src, 0, w - 1, out=out)


def _scatter(zbuf, rows, t, z) -> None:
    """z-buffer ``z`` at targets ``t`` of ``rows`` (every row, densely, when None)."""
    w2 = zbuf.shape[1]
    col = t.clip(-1, w2 - 2)  # + 1 below: column 0 and w2-1 collect targets off the frame
    if rows is None:  # the flat index in float: exact, a chunk holds far fewer than 2**24
        col += arange(col.shape[0], col)[:, None] * w2 + 1
        index = to_index(col)
    else:
        index = rows * w2 + to_index(col) + 1
    scatter_max(zbuf.reshape(-1), index.reshape(-1), z.reshape(-1))


def _cover_segments(zbuf, f, d, max_stretch):
    """Each unfolded, not over-stretched segment [x, x+1] covers the targets inside it.

    The first target of every segment is handled densely; the rare second (and
    further) targets of stretched segments sparsely. Returns the torn-or-folded
    segment mask.
    """
    xp = namespace(f)
    f0, f1, d0 = f[:, :-1], f[:, 1:], d[:, :-1]
    span = f1 - f0
    bad = (span <= 1e-3) | (span > max_stretch)
    t = xp.ceil(f0)
    room = f1 - t  # how many more targets fit after the first
    slope = d[:, 1:] - d0
    slope /= span  # disparity change per target pixel along the segment
    z = t - f0
    z *= slope
    z += d0  # the disparity at the first target (in place: no temporaries)
    z[bad | (room < 0)] = _NEG_INF
    _scatter(zbuf, None, t, z)
    width = t.shape[1]
    for k in range(1, int(max_stretch) + 1):
        more = xp.where((room >= k).reshape(-1))[0]  # (room >= 1: span >= 1, never folded)
        more = more[~bad.reshape(-1)[more]]  # not torn either
        if len(more) == 0:
            break
        slope_k = slope.reshape(-1)[more]
        slope_k *= k
        _scatter(zbuf, more // width, t.reshape(-1)[more] + k,
                 z.reshape(-1)[more] + slope_k)
    return bad


def _cover_edge_pixels(zbuf, f, d, bad) -> None:
    """Pixels beside a folded or torn segment (depth edges) and at the frame
    borders also cover their nearest target, so thin details and edges keep
    their full width."""
    xp = namespace(f)
    n, w = f.shape
    torn = xp.where(bad.reshape(-1))[0]  # segment x of row r: r * (w - 1) + x
    left = torn + torn // (w - 1)  # its left pixel: r * w + x
    ends = arange(n, torn, integer=True) * w
    pixels = concat([left, left + 1, ends, ends + (w - 1)])
    _scatter(zbuf, pixels // w, xp.round(f.reshape(-1)[pixels]), d.reshape(-1)[pixels])


def _fill_holes(src, zbuf, fill: str) -> None:
    """Give each uncovered pixel the source position of its background-side neighbour.

    Between two surfaces the background texture is mirrored from the hole's edge
    (it continues instead of smearing); at the frame border it is replicated.
    """
    xp = namespace(src)
    w = src.shape[1]
    flat_z = zbuf.reshape(-1)
    hole = xp.where(xp.isinf(flat_z))[0]
    if len(hole) == 0:
        return
    flat_src = src.reshape(-1)  # a view: src is contiguous
    n = flat_z.shape[0]
    # Holes come in runs, and a run's nearest covered pixels lie just outside it
    # (found from the few hole indices, not a search over every covered pixel).
    starts = hole != hole
    starts[0] = True
    starts[1:] = hole[1:] != hole[:-1] + 1
    ends = starts != starts
    ends[-1] = True
    ends[:-1] = starts[1:]
    run = starts.cumsum(0) - 1
    left, right = hole[starts][run] - 1, hole[ends][run] + 1
    # Nearest covered pixel on each side, if it is in the same row.
    row = hole // w
    has_left = (left >= 0) & (left // w == row)
    has_right = (right < n) & (right // w == row)
    left, right = left.clip(0, None), right.clip(None, n - 1)
    # The background (smaller disparity) side wins; a lone side wins by default.
    use_right = has_right & (~has_left | (flat_z[right] <= flat_z[left]))
    nb = xp.where(use_right, right, left)
    filled = flat_src[nb]
    if fill == "mirror":
        both = has_left & has_right
        filled = filled + cast(xp.where(both, nb - hole, 0), src)
    lone = ~(has_left | has_right)
    flat_src[hole] = xp.where(lone, cast(hole % w, src), filled)


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
