"""From normalised depth to per-eye disparity in pixels.

``divergence`` is the largest disparity between the two eyes, in percent of the
eye image width; ``convergence`` picks the screen plane (0 = nearest depth sits
on the screen, everything else behind; 1 = farthest depth on the screen,
everything pops out). Each eye shifts by half of the disparity.
"""

from __future__ import annotations

from stereo_inference.arrays import resize_bilinear

MAX_DIVERGENCE_PCT = 10.0


def eye_disparity(
    depth,
    *,
    size: tuple[int, int],
    divergence: float,
    convergence: float,
):
    """Per-eye disparity (B,1,H,W) in pixels at ``size`` (H, W) for depth (B,1,h,w) in 0..1
    (a numpy array or a tensor; the result is the same kind).

    Raises ValueError for divergence outside 0..10 % or convergence outside 0..1.
    """
    if not 0.0 <= divergence <= MAX_DIVERGENCE_PCT:
        raise ValueError(f"divergence must be within 0..{MAX_DIVERGENCE_PCT}, got {divergence}")
    if not 0.0 <= convergence <= 1.0:
        raise ValueError(f"convergence must be within 0..1, got {convergence}")
    h, w = size
    if depth.shape[-2:] != (h, w):
        depth = resize_bilinear(depth, (h, w))
    total = (depth - (1.0 - convergence)) * (divergence / 100.0 * w)
    limit = MAX_DIVERGENCE_PCT / 100.0 * w
    return total.clip(-limit, limit) * 0.5
