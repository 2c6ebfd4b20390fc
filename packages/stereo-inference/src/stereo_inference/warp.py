"""View synthesis: shift each pixel by its disparity, nearer pixels winning.

Contract (DESIGN.md): ``warp_view(image, disparity)`` with ``image`` float32
(B,C,H,W) in 0..1 and ``disparity`` float32 (B,1,H,W) in pixels; a source pixel
at x with disparity d lands at x - d (the right-eye view); larger d is nearer and
wins occlusions; holes left by disocclusion are filled from the background side.
The left eye is the same call on mirrored inputs (``warp_left_view``).

How: every row is treated as a piecewise-linear curve x -> x - d(x). Each target
pixel looks for the source segments [x, x+1] whose image covers it (a z-buffer
over candidates keeps the nearest), so the source is resampled at the exact
sub-pixel position instead of being splatted. Segments that fold (occlusion) or
stretch past ``max_stretch`` (a depth edge, i.e. disocclusion) do not cover
anything: those pixels become holes and take the background neighbour's source
position, mirrored so the background texture continues instead of smearing.
Everything is a handful of vectorised tensor ops, so it runs on CPU and CUDA.
"""

from __future__ import annotations

import torch

FILL_MODES = ("mirror", "replicate")
# Candidates are ranked by one int64 key: quantised disparity in the high 32 bits
# (nearest wins), source position in the low 32 bits (carried along for free).
_Q = 1024.0
_Z_OFFSET = 4096.0


def plan_warp(
    disparity: torch.Tensor, *, max_stretch: float = 1.9, fill: str = "mirror"
) -> torch.Tensor:
    """Source x position (B,1,H,W) that each right-view pixel samples.

    Raises ValueError for a disparity that is not (B,1,H,W), an unknown fill, or
    a width or disparity too large for the packed z-buffer keys.
    """
    if disparity.dim() != 4 or disparity.shape[1] != 1:
        raise ValueError(f"disparity must be (B,1,H,W), got {tuple(disparity.shape)}")
    if fill not in FILL_MODES:
        raise ValueError(f"fill must be one of {FILL_MODES}, got {fill!r}")
    b, _, h, w = disparity.shape
    if w >= 2**20:
        raise ValueError(f"image width {w} is too large")
    d = disparity.reshape(b * h, w).float().clamp(-_Z_OFFSET + 1, _Z_OFFSET - 1)
    x = torch.arange(w, device=d.device, dtype=d.dtype)
    f = x - d  # where each source pixel lands
    keys = torch.full((b * h, w), -1, device=d.device, dtype=torch.int64)
    for t, dz, s, valid in _candidates(f, d, x, max_stretch):
        key = ((dz + _Z_OFFSET) * _Q).long() * 2**32 + (s.clamp(-1, w) * _Q + _Q).long()
        key.masked_fill_(~valid, -1)
        keys.scatter_reduce_(1, t.clamp(0, w - 1).long(), key, reduce="amax")
    src = (keys & 0xFFFFFFFF).to(d.dtype) / _Q - 1.0
    _fill_holes(src, keys, fill)
    return src.clamp_(0, w - 1).reshape(b, 1, h, w)


def _candidates(f, d, x, max_stretch):
    """(target, disparity, source position, valid) for every way a target is covered."""
    w = f.shape[1]
    # Each source pixel covers its nearest target (keeps 1-px details alive).
    t = torch.round(f)
    yield t, d, x + (t - f), (t >= 0) & (t < w)
    # Each unfolded, not over-stretched segment covers the targets inside it.
    f0, f1 = f[:, :-1], f[:, 1:]
    d0, dd = d[:, :-1], d[:, 1:] - d[:, :-1]
    span = f1 - f0
    ok = (span > 1e-3) & (span <= max_stretch)
    inv = 1.0 / span.clamp(min=1e-3)
    first = torch.ceil(f0)
    for k in range(int(max_stretch) + 1):
        t = first + k
        a = (t - f0) * inv
        yield t, d0 + a * dd, x[:-1] + a, ok & (t <= f1) & (t >= 0) & (t < w)


def _fill_holes(src: torch.Tensor, keys: torch.Tensor, fill: str) -> None:
    """Give each uncovered pixel the source position of its background-side neighbour."""
    rows, w = src.shape
    flat_keys = keys.reshape(-1)
    hole = (flat_keys < 0).nonzero().squeeze(1)
    if hole.numel() == 0:
        return
    covered = (flat_keys >= 0).nonzero().squeeze(1)
    flat_src = src.view(-1)
    if covered.numel() == 0:
        flat_src[hole] = (hole % w).to(src.dtype)
        return
    # Nearest covered pixel on each side, if it is in the same row.
    pos = torch.searchsorted(covered, hole)
    right = covered[pos.clamp(max=covered.numel() - 1)]
    left = covered[(pos - 1).clamp(min=0)]
    row = hole // w
    has_right = (pos < covered.numel()) & (right // w == row)
    has_left = (pos > 0) & (left // w == row)
    z_right, z_left = flat_keys[right] >> 32, flat_keys[left] >> 32
    # The background (smaller disparity) side wins; a lone side wins by default.
    use_right = has_right & (~has_left | (z_right <= z_left))
    nb = torch.where(use_right, right, left)
    filled = flat_src[nb]
    if fill == "mirror":
        filled = filled + (nb - hole).to(src.dtype)
    lone = ~(has_left | has_right)
    flat_src[hole] = torch.where(lone, (hole % w).to(src.dtype), filled)


def sample_rows(image: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    """Linearly resample each row of ``image`` (B,C,H,W) at x positions ``src`` (B,1,H,W)."""
    b, c, h, w = image.shape
    x0 = src.floor()
    a = (src - x0).to(image.dtype)
    i0 = x0.long().clamp_(0, w - 1)
    i1 = (i0 + 1).clamp_(max=w - 1)
    v0 = image.gather(3, i0.expand(b, c, h, w))
    v1 = image.gather(3, i1.expand(b, c, h, w))
    return torch.lerp(v0, v1, a)


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
