"""Scenes of ``bench/depth_scenes.py`` as videos (with their exact depth as a
depth video), and the disparity measured back from a converted output's pair.

Disparity is measured the way a viewer's eyes meet it: by block matching each
patch of the left half of a side-by-side output against the right half along
its row, with a sub-pixel parabola through the best match; positive when
crossed (in front of the screen: the right eye sees it further left).
"""

from __future__ import annotations

import sys
from pathlib import Path

import av
import numpy as np

BENCH = Path(__file__).resolve().parents[4] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import depth_scenes  # noqa: E402  (bench/, put on the path above)


def write_scene(folder: Path, name: str, *, seconds: float = 0.5, fps: int = 24,
                size: tuple[int, int] = (320, 180)) -> tuple[Path, Path, np.ndarray]:
    """(video, depth video, exact normalised depth (T,h,w) 1 = nearest) of scene ``name``."""
    frames = list(depth_scenes.scene_frames(name, seconds=seconds, fps=fps, size=size))
    rgb = np.stack([f[0] for f in frames])
    metres = np.stack([f[1] for f in frames]).astype(np.float64)
    inverse = 1.0 / np.clip(metres, 0.1, None)
    lo, hi = inverse.min(), inverse.max()
    depth = ((inverse - lo) / (hi - lo)).astype(np.float32)
    if rgb.dtype != np.uint8:
        rgb = (np.clip(rgb, 0, 1) * 255 + 0.5).astype(np.uint8)
    video, depth_video = folder / f"{name}.mp4", folder / f"{name}.depth.mkv"
    _write(video, rgb, fps, "libx264", "yuv420p", {"crf": "8", "preset": "ultrafast"})
    grey = (depth * 65535 + 0.5).astype(np.uint16)
    _write(depth_video, grey, fps, "ffv1", "gray16le", {}, fmt="gray16le")
    return video, depth_video, depth


def _write(path: Path, frames: np.ndarray, fps: int, codec: str, pix_fmt: str,
           options: dict, fmt: str = "rgb24") -> None:
    with av.open(str(path), "w") as out:
        stream = out.add_stream(codec, rate=fps)
        stream.width, stream.height = frames.shape[2], frames.shape[1]
        stream.pix_fmt, stream.options = pix_fmt, options
        for f in frames:
            out.mux(stream.encode(av.VideoFrame.from_ndarray(f, format=fmt)))
        out.mux(stream.encode())


def output_pairs(path: Path, *, top_bottom: bool = False) -> list[tuple[np.ndarray, np.ndarray]]:
    """(left, right) grey eye images (float32) of every frame of a packed output."""
    pairs = []
    with av.open(str(path)) as c:
        for frame in c.decode(video=0):
            grey = frame.to_ndarray(format="gray").astype(np.float32)
            if top_bottom:
                h = grey.shape[0] // 2
                pairs.append((grey[:h], grey[h:]))
            else:
                w = grey.shape[1] // 2
                pairs.append((grey[:, :w], grey[:, w:]))
    return pairs


def disparity_map(left: np.ndarray, right: np.ndarray, *, radius: int = 5,
                  search: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """(disparity, texture) per pixel of ``left``: the crossed-positive shift of the
    best-matching (zero-mean SSD) patch of ``right`` along the row, refined by a
    parabola; ``texture`` the patch's standard deviation (flat patches match anywhere)."""
    import cv2

    k = (2 * radius + 1, 2 * radius + 1)

    def zero_mean(img):
        return img - cv2.blur(img, k, borderType=cv2.BORDER_REFLECT)

    lz, rz = zero_mean(left), zero_mean(right)
    h, w = left.shape
    shifts = np.arange(-search, search + 1)
    costs = np.full((len(shifts), h, w), np.inf, np.float32)
    for n, s in enumerate(shifts):
        moved = np.zeros_like(rz)  # right at x - s, seen from left's x
        if s >= 0:
            moved[:, s:] = rz[:, : w - s]
        else:
            moved[:, : w + s] = rz[:, -s:]
        cost = cv2.blur((lz - moved) ** 2, k, borderType=cv2.BORDER_REFLECT)
        if s >= 0:  # patches reaching past the right picture's side match nothing
            cost[:, : s + radius] = np.inf
        else:
            cost[:, w + s - radius:] = np.inf
        costs[n] = cost
    best = costs.argmin(0)
    inner = np.clip(best, 1, len(shifts) - 2)
    take = np.take_along_axis
    a, b, c = (take(costs, (inner + o)[None], 0)[0] for o in (-1, 0, 1))
    denom = a - 2 * b + c
    with np.errstate(invalid="ignore", divide="ignore"):
        sub = np.where(np.isfinite(denom) & (denom > 0), 0.5 * (a - c) / denom, 0.0)
    disparity = shifts[inner] + np.where(best == inner, sub, 0.0)
    texture = np.sqrt(cv2.blur(lz * lz, k, borderType=cv2.BORDER_REFLECT))
    return disparity.astype(np.float32), texture


def region_disparity(pair: tuple[np.ndarray, np.ndarray], mask: np.ndarray, *,
                     step: int = 1, search: int = 40, radius: int = 5) -> float:
    """The median measured disparity over the textured points of ``mask`` (eye-sized
    bool) away from the picture's sides."""
    disparity, texture = disparity_map(*pair, radius=radius, search=search)
    usable = mask.copy()
    usable[:, : radius + 1] = usable[:, -radius - 1:] = False
    usable &= texture > 2.0
    values = disparity[usable]
    if values.size < 5:
        raise AssertionError(f"only {values.size} measurable points in the region")
    return float(np.median(values))


def eye_mask(depth: np.ndarray, eye: tuple[int, int], lo: float, hi: float,
             margin: int = 0) -> np.ndarray:
    """Where exact depth ``depth`` (h,w), scaled to the eye (w, h), lies in lo..hi,
    eroded by ``margin`` pixels (away from the region's edges)."""
    import cv2

    d = cv2.resize(depth, eye, interpolation=cv2.INTER_NEAREST)
    mask = ((d >= lo) & (d <= hi)).astype(np.uint8)
    if margin:
        mask = cv2.erode(mask, np.ones((2 * margin + 1, 2 * margin + 1), np.uint8))
    return mask.astype(bool)
