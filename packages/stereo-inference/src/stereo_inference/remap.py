"""CPU resampling of whole frames along x (uint8 or uint16 in, the same out).

The warp plan (source x per pixel) is computed by ``stereo_inference.warp`` on
a few rows; here it is stretched to the frame and applied with linear
interpolation along each row. Both eyes of a packed layout come from one plan
over the packed plane, so one call writes the finished plane straight into
the output frame (``warp_packed``, ``warp_widened``).

The resampling itself is in the engine's C extension (``native``; csrc/
rowwarp.c: a warp moves pixels along rows only, so both neighbours come from
one load, 8 or 16 pixels at a time with AVX2 or AVX-512), which also
stretches the plan to each row as it goes (and squeezes the half layouts'
rows 2:1): no frame-sized map of positions is ever made. Given
the same map it gives OpenCV's ``remap`` pixels to the bit, ~3x faster; its
row-by-row stretch rounds positions differently from OpenCV's ``resize`` by
an ulp, which moves about one sample in 50,000 by one level. Where the
extension was not built (no C compiler at install) the maps are made whole
(``packed_map``, ``widened_map``) and OpenCV's ``remap`` applies them.
"""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np

from stereo_inference import native


@cache
def _rows(h: int, w: int, repeats: int = 1) -> np.ndarray:
    """Source row of each pixel of ``repeats`` planes of (h, w) stacked vertically."""
    rows = np.repeat(np.arange(h, dtype=np.float32)[:, None], w, axis=1)
    return np.tile(rows, (repeats, 1)) if repeats > 1 else rows


def stretch_plan(plan: np.ndarray, h: int, w: int, subsample: int = 1) -> np.ndarray:
    """A (rows, W) plan as a (h, w) map of source x for a plane ``subsample`` times smaller."""
    if subsample > 1:
        plan = np.ascontiguousarray(plan[:, ::subsample]) / subsample
    if plan.shape != (h, w):
        plan = cv2.resize(plan, (w, h), interpolation=cv2.INTER_LINEAR)
    return plan.astype(np.float32, copy=False)


def packed_map(left: np.ndarray, right: np.ndarray, h: int, w: int, side_by_side: bool,
               subsample: int = 1) -> np.ndarray:
    """One map of source x for a packed plane: the (rows, W) plans of the two eyes,
    each stretched to an (h, w) eye plane, side by side (h, 2w) or stacked (2h, w)."""
    if side_by_side:  # the stretch runs along y only, so the eyes never blend
        return stretch_plan(np.concatenate([left, right], axis=1), h, 2 * w, subsample)
    out = np.empty((2 * h, w), np.float32)
    out[:h] = stretch_plan(left, h, w, subsample)
    out[h:] = stretch_plan(right, h, w, subsample)
    return out


def widened_map(left: np.ndarray, right: np.ndarray, h: int, w: int) -> np.ndarray:
    """One (h, 2w) map of source x for two eyes planned at half width: each
    (rows, w/2) plan (positions in the half-width image) becomes an (h, w) eye
    map in full-width positions, side by side. Stretching along x too, the
    eyes' two columns that meet are stretched from their own eye alone."""
    plans = np.concatenate([left, right], axis=1) * 2 + 0.5  # half to full positions
    out = cv2.resize(plans, (2 * w, h), interpolation=cv2.INTER_LINEAR)
    half = plans.shape[1] // 2
    for col, src in ((w - 1, half - 1), (w, half)):  # the bilinear stretch mixed these
        out[:, col] = cv2.resize(np.ascontiguousarray(plans[:, src : src + 1]), (1, h),
                                 interpolation=cv2.INTER_LINEAR)[:, 0]
    return out


def shrink(plane: np.ndarray, w: int, h: int) -> np.ndarray:
    """``plane`` area-averaged to (h, w) (a box filter for the 2:1 half layouts).

    An exact 2:1 (or 1:1) ratio per axis takes OpenCV's bilinear path: at that
    ratio it is the same pair average, correctly rounded, and ~3x faster.
    """
    sh, sw = plane.shape[:2]
    if (sh, sw) == (h, w):
        return plane
    exact = sh in (h, 2 * h) and sw in (w, 2 * w)
    return cv2.resize(plane, (w, h), interpolation=cv2.INTER_LINEAR if exact else cv2.INTER_AREA)


def warp_packed(planes: list[np.ndarray], left: np.ndarray, right: np.ndarray,
                dsts: list[np.ndarray], side_by_side: bool, subsample: int = 1) -> None:
    """Each eye plane of ``planes`` warped by both eyes' (rows, W) plans into its
    packed ``dsts`` plane: (h, 2w) side by side or (2h, w) stacked, for an eye
    of (h, w). ``subsample`` 2: the planes are chroma, half the plans' size.

    A plane larger than the eye (the half layouts decode at full size) is
    squeezed to it first (``shrink``). With the C extension the map is made
    row by row beside the warp (never a whole frame of positions), and a 2:1
    squeeze is made there too, row by row as the warp reads it (the same
    pixels); without it, ``packed_map`` and ``remap_planes``.
    """
    dh, dw = dsts[0].shape
    h, w = (dh, dw // 2) if side_by_side else (dh // 2, dw)
    if native.planes is None or not all(_native(p) for p in planes):
        remap_planes([shrink(p, w, h) for p in planes],
                     packed_map(left, right, h, w, side_by_side, subsample), dsts,
                     repeats=1 if side_by_side else 2)
        return
    if subsample > 1:
        left, right = (np.ascontiguousarray(p[:, ::subsample]) / subsample for p in (left, right))
    left, right = (p.astype(np.float32, copy=False) for p in (left, right))
    both = np.concatenate([left, right], axis=1) if side_by_side else None
    for plane, dst in zip(planes, dsts, strict=True):
        plane, halve = _as_read(plane, h, w)
        if both is not None:
            native.planes.remap_plan(plane, both, dst, eyes=2, halve=halve)
        else:
            native.planes.remap_plan(plane, left, dst[:h], halve=halve)
            native.planes.remap_plan(plane, right, dst[h:], halve=halve)


# The C loops' ``halve``: a plane read as it is, or pair-averaged along x or y.
HALVE_NONE, HALVE_X, HALVE_Y = 0, 1, 2


def _as_read(plane: np.ndarray, h: int, w: int) -> tuple[np.ndarray, int]:
    """``plane`` and the ``halve`` the C loops read it with as an (h, w) eye: a
    2:1 squeeze along x or y made as its rows are read, else none (the plane
    squeezed by ``shrink`` first when it has another size)."""
    halve = {(h, 2 * w): HALVE_X, (2 * h, w): HALVE_Y}.get(plane.shape[:2], HALVE_NONE)
    return (plane if halve != HALVE_NONE else shrink(plane, w, h)), halve


def warp_widened(plane: np.ndarray, left: np.ndarray, right: np.ndarray,
                 dst: np.ndarray | None = None) -> np.ndarray:
    """The (h, w) ``plane`` warped by both eyes' plans made at half width
    ((rows, w/2) each), side by side at full width: (h, 2w), into ``dst`` when
    given (``widened_map``'s positions, made row by row with the C extension)."""
    h, w = plane.shape[:2]
    if native.planes is None or not _native(plane):
        return remap_rows(plane, widened_map(left, right, h, w), dst)
    if dst is None:
        dst = np.empty((h, 2 * w), plane.dtype)
    plans = np.concatenate([left, right], axis=1).astype(np.float32, copy=False)
    native.planes.remap_plan(plane, plans, dst, eyes=2, widen=True)
    return dst


def remap_rows(plane: np.ndarray, map_x: np.ndarray, dst: np.ndarray | None = None,
               repeats: int = 1) -> np.ndarray:
    """``plane`` (h, w[, c]) uint8, uint16 or float32 resampled along x at
    ``map_x`` (repeats*h, W) by OpenCV, linearly, the ends replicated; written
    into ``dst`` when given. ``repeats`` 2 reads the plane twice, stacked (two
    eyes on top of each other). For float images (``warp_view``) and where the
    C extension is missing: the C loops take the plan itself (``warp_packed``).
    """
    rows, cols = map_x.shape
    return cv2.remap(plane, map_x, _rows(rows // repeats, cols, repeats), cv2.INTER_LINEAR,
                     dst=dst, borderMode=cv2.BORDER_REPLICATE)


def remap_planes(planes: list[np.ndarray], map_x: np.ndarray,
                 dsts: list[np.ndarray] | None = None, repeats: int = 1) -> list[np.ndarray]:
    """Up to four same-size planes (uint8 or uint16) resampled at one ``map_x``
    by OpenCV (where the C extension is missing), each into its ``dsts`` entry
    when given; the warped planes in order. One four-channel ``remap``: its
    SIMD path for four channels costs about what one plane costs."""
    targets: list[np.ndarray | None] = list(dsts) if dsts else [None] * len(planes)
    four = remap_rows(cv2.merge((list(planes) * 4)[:4]), map_x, repeats=repeats)
    out = []
    for k, d in enumerate(targets):
        if d is None:
            d = np.empty(four.shape[:2], four.dtype)
        d[...] = four[..., k]
        out.append(d)
    return out


def _native(plane: np.ndarray) -> bool:
    """Whether the C loops take ``plane``: 2-D uint8/uint16, contiguous along x."""
    return (plane.ndim == 2 and plane.dtype in (np.uint8, np.uint16) and plane.shape[1] >= 2
            and plane.strides[1] == plane.itemsize)
