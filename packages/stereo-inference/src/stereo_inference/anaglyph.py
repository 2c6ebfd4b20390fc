"""Red/cyan anaglyphs mixed on YUV 4:2:0 planes, at the price of a stereo layout.

Every anaglyph method is linear in RGB (``formats.anaglyph``: a 3x3 matrix per
eye), and RGB is affine in limited-range YUV, so the same mix is one 3x3 matrix
per eye plus an offset in YUV space. The two warped eyes are mixed straight
from the decoder's planes into the encoder's planes: no RGB conversion on
either side, no float copy of a full-resolution RGB frame.

The luma output needs the eyes' luma at full resolution and their chroma only
through a term at chroma resolution (upsampled once); the chroma outputs need
the eyes' luma only at chroma resolution. What this does not reproduce is the
RGB clamp of the Dubois matrices (the only method whose result can leave the
gamut): saturated colours there are clipped per YUV plane instead (see
docs/BENCHMARKS.md for the measured difference).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np
from shared_types.models import AnaglyphMethod

from stereo_inference import native
from stereo_inference.remap import warp_packed, warp_widened

if TYPE_CHECKING:  # the tensor (GPU) mixes import torch when called
    import torch

# Dubois' least-squares red/cyan matrices (rows: output R, G, B; columns: input R, G, B).
DUBOIS_LEFT = ((0.456, 0.500, 0.176), (-0.040, -0.038, -0.016), (-0.015, -0.021, -0.005))
DUBOIS_RIGHT = ((-0.043, -0.088, -0.002), (0.378, 0.734, -0.018), (-0.072, -0.113, 1.226))
LUMA = (0.299, 0.587, 0.114)
_KR, _KB = 0.299, 0.114  # BT.601, the matrix FFmpeg's scaler assumes for untagged video


def rgb_matrices(method: AnaglyphMethod | str) -> tuple[np.ndarray, np.ndarray]:
    """(left, right) 3x3 RGB matrices of ``method``: output RGB = L @ left + R @ right."""
    method = AnaglyphMethod(method)
    luma = np.array(LUMA)
    red, cyan = np.diag([1.0, 0, 0]), np.diag([0, 1.0, 1.0])
    gray_red = np.outer([1.0, 0, 0], luma)
    if method is AnaglyphMethod.DUBOIS:
        return np.array(DUBOIS_LEFT), np.array(DUBOIS_RIGHT)
    if method is AnaglyphMethod.COLOR:
        return red, cyan
    if method is AnaglyphMethod.GRAY:
        return gray_red, np.outer([0, 1.0, 1.0], luma)
    return gray_red, cyan  # half-color


def _rgb_to_yuv() -> tuple[np.ndarray, np.ndarray]:
    """(A, o): limited-range YUV (0..255 codes) = A @ rgb (0..1) + o."""
    kg = 1 - _KR - _KB
    y = np.array([_KR, kg, _KB])
    pb = (np.array([0, 0, 1.0]) - y) / (2 * (1 - _KB))
    pr = (np.array([1.0, 0, 0]) - y) / (2 * (1 - _KR))
    return np.stack([219 * y, 224 * pb, 224 * pr]), np.array([16.0, 128.0, 128.0])


@cache
def yuv_matrices(method: AnaglyphMethod) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(NL, NR, k): output YUV = NL @ YUV_left + NR @ YUV_right + k (float64)."""
    a, o = _rgb_to_yuv()
    inv = np.linalg.inv(a)
    ml, mr = rgb_matrices(method)
    nl, nr = a @ ml @ inv, a @ mr @ inv
    return nl, nr, o - nl @ o - nr @ o


def warp_mix_cpu(y: np.ndarray, u: np.ndarray, v: np.ndarray, left: np.ndarray,
                 right: np.ndarray, out: np.ndarray, method: AnaglyphMethod) -> None:
    """Write the anaglyph into ``out`` (h*3/2, w) yuv420p from a frame's planes
    (``y`` (h, w), ``u`` and ``v`` (h/2, w/2)) warped into both eyes by their
    plans ``left`` and ``right`` (rows, w/2), made at chroma width.

    The C extension warps and mixes row by row, in float throughout (no warped
    plane is ever whole); without it the eyes are warped whole (``remap``) and
    ``mix_cpu`` mixes them with OpenCV.
    """
    h, w = y.shape
    if native.planes is None:
        warped_uv = [np.empty((h // 2, w), np.uint8) for _ in (u, v)]
        warp_packed([u, v], left, right, warped_uv, side_by_side=True)
        warped_u, warped_v = warped_uv
        mix_cpu(warp_widened(y, left, right), warped_u, warped_v, out, method)
        return
    plan = np.concatenate([left, right], axis=1).astype(np.float32, copy=False)
    native.planes.anaglyph(y, u, v, plan, out[:h], *out[h:].reshape(2, h // 2, w // 2),
                           *_float_terms(AnaglyphMethod(method)))


def mix_cpu(luma: np.ndarray, u: np.ndarray, v: np.ndarray, out: np.ndarray,
            method: AnaglyphMethod) -> None:
    """Write the anaglyph into ``out`` (h*3/2, w) yuv420p from the warped eyes,
    with OpenCV (the C extension's ``anaglyph`` does the same in float).

    ``luma`` (h, 2w): the left eye's luma beside the right eye's; ``u`` and
    ``v`` (h/2, w): their U planes side by side, and their V planes.
    """
    import cv2

    h, w = luma.shape[0], luma.shape[1] // 2
    left_m, right_m, a, b = _chroma_terms(AnaglyphMethod(method))
    # The eyes' luma at chroma size is the warped luma averaged 2x2 (an exact
    # 2:1 bilinear resize), never a second warp. Three channels: OpenCV's
    # transform has a fast path for them, not for four.
    small = cv2.resize(luma, (w, h // 2), interpolation=cv2.INTER_LINEAR)
    wide = cv2.merge((u, v, small)).astype(np.float32)
    terms = cv2.transform(wide[:, : w // 2], left_m)
    # cv2's stub types transform's result so that numpy's stub refuses the in-place add
    terms += cv2.transform(wide[:, w // 2 :], right_m)  # type: ignore[arg-type]
    # to uint8 in one pass, rounded and saturated (OpenCV's conversion)
    # cv2's stub types src2 as an array; OpenCV takes a scalar (4-tuple) too
    term, u, v = cv2.split(cv2.add(terms, (0.0, 0.0, 0.0, 0.0),  # type: ignore[call-overload]
                                   dtype=cv2.CV_8U))
    planes = out[h:].reshape(2, h // 2, w // 2)
    planes[0], planes[1] = u, v
    # The luma output: its eyes' luma at full size (a + b <= 1: never saturates),
    # plus the chroma part stored with +128 (it stays within +-92) and upsampled.
    mixed = cv2.addWeighted(luma[:, :w], a, luma[:, w:], b, 0.0)
    up = cv2.resize(term, (w, h), interpolation=cv2.INTER_LINEAR)
    cv2.addWeighted(mixed, 1.0, up, 1.0, -128.0, dst=out[:h])


@cache
def _float_terms(method: AnaglyphMethod):
    """``_chroma_terms`` without the +128 that stores the luma output's chroma
    part as uint8 (the C mix keeps it in float)."""
    left, right, a, b = _chroma_terms(method)
    left = left.copy()
    left[0, 3] -= 128
    return left, right, a, b


@cache
def _chroma_terms(method: AnaglyphMethod):
    """(left 3x4, right 3x4, a, b): matrices giving (luma output's chroma part +
    128, U, V) at chroma size from an eye's (U, V, luma) and an offset, and the
    luma output's weights of the eyes' luma."""
    nl, nr, k = yuv_matrices(method)
    left = np.stack([nl[:, 1], nl[:, 2], nl[:, 0], k + (128, 0, 0)], axis=1)
    right = np.stack([nr[:, 1], nr[:, 2], nr[:, 0], np.zeros(3)], axis=1)
    a, b = float(left[0, 2]), float(right[0, 2])
    left[0, 2] = right[0, 2] = 0
    return left.astype(np.float32), right.astype(np.float32), a, b


def mix_tensor(left_y: torch.Tensor, right_y: torch.Tensor, left_c: torch.Tensor,
               right_c: torch.Tensor, method: AnaglyphMethod) -> torch.Tensor:
    """The anaglyph (B, h*3/2, w) float from warped eyes: luma (B,1,h,w) and
    (luma, U, V) at chroma size (B,3,h/2,w/2) of each eye, as codes 0..255."""
    import torch
    from torch.nn import functional as F  # noqa: N812

    nl, nr, k = (torch.as_tensor(m, dtype=left_y.dtype, device=left_y.device)
                 for m in yuv_matrices(AnaglyphMethod(method)))
    terms = (torch.einsum("oc,bchw->bohw", nl, left_c)
             + torch.einsum("oc,bchw->bohw", nr, right_c) + k[None, :, None, None])
    # the luma output takes its own luma at full size, not at chroma size
    terms[:, 0] -= nl[0, 0] * left_c[:, 0] + nr[0, 0] * right_c[:, 0]
    b, _, h, w = left_y.shape
    up = F.interpolate(terms[:, :1], size=(h, w), mode="bilinear", align_corners=False)
    y = nl[0, 0] * left_y + nr[0, 0] * right_y + up
    return torch.cat([y.reshape(b, h, w), terms[:, 1:].reshape(b, h // 2, w)], dim=1)


def mix_rgb(left: torch.Tensor, right: torch.Tensor,
            method: AnaglyphMethod | str) -> torch.Tensor:
    """The reference anaglyph (B,3,H,W) of two RGB eye images (B,3,H,W) in 0..1:
    red carries the left eye, green and blue the right eye; clamped to 0..1."""
    import torch

    ml, mr = (torch.as_tensor(m, dtype=left.dtype, device=left.device)
              for m in rgb_matrices(method))
    out = torch.einsum("oc,bchw->bohw", ml, left) + torch.einsum("oc,bchw->bohw", mr, right)
    return out.clamp_(0, 1)
