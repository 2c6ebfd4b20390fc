"""Depth to disparity with the comfort controls: curve, screen plane, foreground
scale, IPD offset, limits, and which eye takes the disparity.

Disparity here is the separation of a point between the eyes, in pixels of
the eye image, positive when crossed (in front of the screen: the right eye
sees it further left), negative when uncrossed (behind the screen). For a
normalised depth d (0 far .. 1 near) and screen plane c:

    t = (curve(d) - (1 - c)) * scale_px
    t = t * foreground_scale          where t > 0 (in front of the screen)
    t = t * strength - offset_px      (strength: ``--comfort fix``, per frame)
    t = clip(t, -far_px, near_px)

``far_px`` is the viewing's IPD on screen when a viewing is given (far things
never diverge), ``near_px`` the comfort zone's near limit with ``--comfort
fix``; both are also bounded by the engine's 10 % of the width.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from shared_types.models import ComfortAction, ConversionParams, DepthCurve, SynthesisedEye

from stereo_inference.arrays import is_tensor, resize_bilinear
from stereo_inference.disparity import MAX_DIVERGENCE_PCT
from stereo_inference.viewing import Limits, fitted_strength, limits, viewing_of


@dataclass(frozen=True)
class Shaping:
    """How depth becomes disparity for eye images ``width`` pixels wide."""

    width: int
    scale_px: float  # the whole depth range's disparity
    convergence: float
    curve: DepthCurve = DepthCurve.LINEAR
    foreground_scale: float = 1.0
    offset_px: float = 0.0  # uncrossed positive: pushes everything back
    far_px: float = float("inf")
    near_px: float = float("inf")
    dilation: int = 0
    eye: SynthesisedEye = SynthesisedEye.BOTH
    limits: Limits | None = None  # the viewing's, when one is given

    def at_width(self, width: int) -> Shaping:
        """The same shaping for the same picture sampled ``width`` pixels wide
        (an anaglyph plans at chroma width): every pixel amount scaled."""
        if width == self.width:
            return self
        k = width / self.width
        return replace(self, width=width, scale_px=self.scale_px * k,
                       offset_px=self.offset_px * k, far_px=self.far_px * k,
                       near_px=self.near_px * k)


def shaping_for(params: ConversionParams, width: int) -> Shaping:
    """The shaping ``params`` ask for, for eye images ``width`` pixels wide."""
    viewing = viewing_of(params)
    lim = None if viewing is None else limits(viewing, width)
    divergence, convergence = params.divergence, params.convergence
    if lim is not None and params.fit_strength:
        divergence, convergence = fitted_strength(lim, width, MAX_DIVERGENCE_PCT)
    cap = MAX_DIVERGENCE_PCT / 100.0 * width
    far = cap if lim is None else min(cap, lim.far_px)
    near = cap
    if lim is not None and params.comfort is ComfortAction.FIX:
        far, near = min(far, lim.zone_far_px), min(near, lim.near_px)
    return Shaping(
        width=width, scale_px=divergence / 100.0 * width, convergence=convergence,
        curve=params.depth_curve, foreground_scale=params.foreground_scale,
        offset_px=params.ipd_offset / 100.0 * width, far_px=far, near_px=near,
        dilation=params.edge_dilation, eye=params.synthesised_eye, limits=lim,
    )


def total_disparity(depth, shaping: Shaping, convergence=None, strength=None):
    """Disparity (crossed positive, pixels) of depth (B,1,h,w) on its own grid;
    ``convergence`` and ``strength`` (B,) per frame (None: the shaping's, 1)."""
    d = curved(dilate(depth, shaping.dilation), shaping.curve)
    c = shaping.convergence if convergence is None else _per_frame(convergence, depth)
    t = (d - (1.0 - c)) * shaping.scale_px
    if shaping.foreground_scale != 1.0:
        t = t + (shaping.foreground_scale - 1.0) * t.clip(0, None)
    if strength is not None:
        t = t * _per_frame(strength, depth)
    if shaping.offset_px:
        t = t - shaping.offset_px
    return t.clip(-shaping.far_px, shaping.near_px)


def eye_shifts(depth, size: tuple[int, int], shaping: Shaping, convergence=None,
               strength=None):
    """(right, left) per-eye disparities (B,1,H,W) at ``size``: each eye half of
    the total, or one eye all of it (``shaping.eye``); the left eye's as its
    mirrored warp takes it (positive moves content right)."""
    h, w = size
    if shaping.dilation:
        depth = dilate(depth, shaping.dilation)
        shaping = replace(shaping, dilation=0)
    if depth.shape[-2:] != (h, w):
        depth = resize_bilinear(depth, (h, w))
    t = total_disparity(depth, shaping, convergence, strength)
    right = {SynthesisedEye.BOTH: 0.5, SynthesisedEye.RIGHT: 1.0, SynthesisedEye.LEFT: 0.0}
    return t * right[shaping.eye], t * (1.0 - right[shaping.eye])


def dilate(depth, radius: int):
    """Depth with near values grown ``radius`` depth pixels into their surroundings
    (so an object's edge carries its own disparity, and the warp's stretch
    falls on the background)."""
    if radius <= 0:
        return depth
    k = 2 * radius + 1
    if is_tensor(depth):
        from torch.nn import functional as F  # noqa: N812

        return F.max_pool2d(depth, k, stride=1, padding=radius)
    import cv2

    kernel = np.ones((k, k), np.uint8)
    return np.stack([cv2.dilate(m, kernel) for m in depth[:, 0]])[:, None]


def curved(d, curve: DepthCurve):
    if curve is DepthCurve.NEAR:
        return d * d
    if curve is DepthCurve.FAR:
        return d.clip(0, None) ** 0.5
    if curve is DepthCurve.S_CURVE:
        return d * d * (3.0 - 2.0 * d)
    return d


def _per_frame(values, like):
    values = np.asarray(values, np.float32).reshape(-1, 1, 1, 1)
    return like.new_tensor(values) if is_tensor(like) else values

