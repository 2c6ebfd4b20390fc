"""Layouts made from rendered side-by-side frames: cross-eyed and VR180.

Both work on the packed YUV 4:2:0 frames the renderer hands the encoder
(B, H*3/2, W: the luma rows, then the U and V planes each (H/2, W/2) laid
row after row), so nothing is converted to RGB.

- Cross-eyed: the right view on the left, for free viewing with crossed eyes.
- VR180: each eye, a flat picture, is projected onto a half sphere in the
  equirectangular projection (longitude and latitude -90..90 degrees, one
  square of ``side`` pixels per eye), as a pinhole camera with a horizontal
  field of view of ``VR180_FOV_DEG`` sees it: the picture appears as a large
  screen straight ahead, the rest of the half sphere black. The file then
  carries the spherical metadata players read (``stereo_inference.spherical``).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

VR180_FOV_DEG = 90.0  # how wide the flat picture appears in the headset


def swap_halves(frames: np.ndarray) -> np.ndarray:
    """Packed SBS frames with their left and right halves exchanged (every plane)."""
    b, rows, w = frames.shape
    h = rows * 2 // 3
    out = np.empty_like(frames)
    half = w // 2
    out[:, :h, :half], out[:, :h, half:] = frames[:, :h, half:], frames[:, :h, :half]
    chroma = frames[:, h:].reshape(b, 2, h // 2, w // 2)
    swapped = out[:, h:].reshape(b, 2, h // 2, w // 2)
    q = w // 4
    swapped[..., :q], swapped[..., q:] = chroma[..., q:], chroma[..., :q]
    return out


def vr180_side(eye_width: int) -> int:
    """Pixels of one eye's half sphere, square: the eye's width (even), so a
    1920-wide source gives the usual 3840x1920 VR180 frame."""
    return max(2, math.ceil(eye_width / 2) * 2)


def _maps(src_w: int, src_h: int, side: int, fov_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """cv2.remap maps (side, side): where in a flat ``src_w`` x ``src_h`` picture
    each equirectangular pixel of the front half sphere looks."""
    angles = (np.arange(side, dtype=np.float64) + 0.5) / side * math.pi - math.pi / 2
    lon, lat = np.meshgrid(angles, angles)  # lat grows downwards, like image rows
    x, y, z = np.cos(lat) * np.sin(lon), np.sin(lat), np.cos(lat) * np.cos(lon)
    focal = (src_w / 2) / math.tan(math.radians(fov_deg) / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        map_x = np.where(z > 1e-6, src_w / 2 - 0.5 + focal * x / z, -1e6)
        map_y = np.where(z > 1e-6, src_h / 2 - 0.5 + focal * y / z, -1e6)
    return map_x.astype(np.float32), map_y.astype(np.float32)


class Vr180Projection:
    """Packed full-SBS frames of two ``eye`` (w, h) views in, VR180 frames
    (B, side*3/2, 2*side) out; 8-bit or 10-bit (``bit_depth``) limited range."""

    def __init__(self, eye: tuple[int, int], side: int, *, bit_depth: int = 8,
                 fov_deg: float = VR180_FOV_DEG) -> None:
        self.eye, self.side = eye, side
        w, h = eye
        self.luma = _maps(w, h, side, fov_deg)
        self.chroma = _maps(w // 2, h // 2, side // 2, fov_deg)
        scale = 4 if bit_depth > 8 else 1
        self.black = (16 * scale, 128 * scale)  # luma, chroma: limited-range black

    def _plane(self, plane: np.ndarray, maps: tuple[np.ndarray, np.ndarray],
               fill: int) -> np.ndarray:
        map_x, map_y = maps
        return cv2.remap(plane, map_x, map_y, interpolation=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=fill)

    def __call__(self, frames: np.ndarray) -> np.ndarray:
        b, w, h, s = frames.shape[0], *self.eye, self.side
        out = np.empty((b, s * 3 // 2, 2 * s), frames.dtype)
        for i in range(b):
            luma = frames[i, :h]
            chroma = frames[i, h:].reshape(2, h // 2, w)  # (U|V) rows of both eyes
            out_chroma = out[i, s:].reshape(2, s // 2, s)
            for eye in range(2):
                out[i, :s, eye * s:(eye + 1) * s] = self._plane(
                    luma[:, eye * w:(eye + 1) * w], self.luma, self.black[0])
                for c in range(2):
                    out_chroma[c, :, eye * s // 2:(eye + 1) * s // 2] = self._plane(
                        chroma[c, :, eye * w // 2:(eye + 1) * w // 2], self.chroma,
                        self.black[1])
        return out
