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


def disparity_at(left: np.ndarray, right: np.ndarray, y: int, x: int, *, radius: int = 5,
                 search: int = 40) -> float | None:
    """Crossed-positive disparity (pixels) of the patch of ``left`` at (y, x); None
    where the patch is flat or leaves the picture."""
    h, w = left.shape
    if not (radius <= y < h - radius and radius <= x < w - radius):
        return None
    patch = left[y - radius: y + radius + 1, x - radius: x + radius + 1]
    if patch.std() < 2.0:
        return None
    costs = {}
    for s in range(-search, search + 1):
        xr = x - s
        if radius <= xr < w - radius:
            cand = right[y - radius: y + radius + 1, xr - radius: xr + radius + 1]
            costs[s] = float(((cand - cand.mean()) - (patch - patch.mean())).__pow__(2).sum())
    if len(costs) < 3:
        return None
    best = min(costs, key=costs.get)
    if best - 1 not in costs or best + 1 not in costs:
        return float(best)
    a, b, c = costs[best - 1], costs[best], costs[best + 1]
    denom = a - 2 * b + c
    return best + (0.5 * (a - c) / denom if denom > 0 else 0.0)


def region_disparity(pair: tuple[np.ndarray, np.ndarray], mask: np.ndarray, *,
                     step: int = 3, search: int = 40) -> float:
    """The median measured disparity over the points of ``mask`` (eye-sized bool)."""
    left, right = pair
    ys, xs = np.nonzero(mask[::step, ::step])
    values = [disparity_at(left, right, y * step, x * step, search=search)
              for y, x in zip(ys, xs, strict=True)]
    values = [v for v in values if v is not None]
    if len(values) < 5:
        raise AssertionError(f"only {len(values)} measurable points in the region")
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
