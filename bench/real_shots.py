"""Real photographed scenes with measured disparity, played as shots.

Each scene in ``bench/data/real_scenes/<name>/`` is one photograph
(``image.png``) and its measured disparity (``disparity.png``: 16-bit, pixels
x 64, 0 where nothing was measured); sources, licences and citations are in
``bench/data/real_scenes/LICENCES.md``. Nothing is generated or rendered from
a model: a shot is the real photograph moved by a camera motion made from its
own measured depth.

A camera motion moves every pixel by the projective geometry of its depth
(depth = f B / disparity, f taken as the image width, B the stereo baseline):
a point at centred normalised coordinates (x, y) and depth Z goes to
R (P - T), projected. The photograph is forward-warped: each point claims
the 2x2 pixels around where it lands, the nearer point winning, and each
pixel samples the photograph back along its winner's movement (sub-pixel
motion, one bilinear resampling); its measured depth travels with it. Pixels that nothing
lands on (disocclusions) are filled from the farther side for the picture
and left out of the scoring, and so are pixels whose depth was not measured
(warping them uses a filled-in depth, never scored). The shot is cropped by a
margin its motion needs, so little enters across the border.

Motions, at ``speed`` pixels per frame (of the 95th percentile of the
movement, at the scene's full size):

- ``still``: nothing moves;
- ``truck``: the camera slides sideways;
- ``dolly``: it moves forward;
- ``truck-pan``: slides and turns to keep the middle distance in place
  (an orbit: near things go one way, far ones the other);
- ``wobble``: a handheld camera: small translations and turns on a few
  incommensurate sines;
- ``pan``: a camera on a tripod turns (no translation, so no parallax: its
  depth can only be a still shot's, and must not flicker or invert as the
  turn's bend of the picture is taken for depth);
- ``zoom``: the lens zooms in (the focal length grows; no translation, so no
  parallax either: every point moves away from the centre in proportion to
  its distance, as a forward move past one depth would, and must not be
  read as one).
"""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

import cv2
import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "real_scenes"
MOTIONS = ("still", "truck", "dolly", "truck-pan", "wobble", "pan", "zoom")
# motions with no parallax to read: only a still shot's cues can order them
FLAT_MOTIONS = ("still", "pan", "zoom")
FRAMES = 24


@functools.lru_cache(maxsize=16)
def load_scene(name: str) -> tuple[np.ndarray, np.ndarray]:
    """(rgb (h,w,3) uint8, disparity (h,w) float32 in pixels, 0 = not measured)."""
    folder = DATA / name
    bgr = cv2.imread(str(folder / "image.png"), cv2.IMREAD_COLOR)
    disp = cv2.imread(str(folder / "disparity.png"), cv2.IMREAD_UNCHANGED)
    if bgr is None or disp is None:
        raise FileNotFoundError(f"scene {name!r} is not in {folder}")
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), disp.astype(np.float32) / 64


def scenes() -> list[str]:
    return sorted(p.name for p in DATA.iterdir() if (p / "image.png").is_file())


def _filled(disp: np.ndarray) -> np.ndarray:
    """Disparity everywhere, for warping only: unmeasured pixels inpainted
    (OpenCV Telea on an 8-bit copy), kept where measured."""
    known = disp > 0
    top = float(disp[known].max())
    scaled = np.clip(disp / top * 255, 0, 255).astype(np.uint8)
    filled = cv2.inpaint(scaled, (~known).astype(np.uint8), 5, cv2.INPAINT_TELEA)
    out = filled.astype(np.float32) / 255 * top
    out[known] = disp[known]
    return np.maximum(out, float(disp[known].min()) * 0.5)


def _poses(motion: str, speed: float, disp: np.ndarray, w: int, h: int, f: float
           ) -> list[tuple]:
    """Per frame (tx, ty, tz, pan, tilt, zoom): translation in baselines, angles
    in radians, the focal length's factor, scaled so the 95th percentile of the
    movement is ``speed`` px/frame for a lens of focal length ``f`` px."""
    d95, dmid = float(np.percentile(disp, 95)), float(np.median(disp))
    t = speed / d95  # sideways baselines per frame for `speed` px at d95
    ys, xs = np.mgrid[0:h:8, 0:w:8]
    radius = np.hypot(xs - w / 2, ys - h / 2)  # px from the centre, every 8th pixel
    poses = []
    for k in range(FRAMES):
        if motion == "still":
            poses.append((0.0, 0.0, 0.0, 0.0, 0.0))
        elif motion == "truck":
            poses.append((t * k, 0.0, 0.0, 0.0, 0.0))
        elif motion == "truck-pan":
            # turn so the median depth stays: its shift t*dmid cancelled
            poses.append((t * k, 0.0, 0.0, -t * dmid * k / f, 0.0))
        elif motion == "dolly":
            tz = speed / float(np.percentile(radius / f * disp[::8, ::8], 95))  # depth units: f/d
            poses.append((0.0, 0.0, tz * k, 0.0, 0.0))
        elif motion == "pan":
            poses.append((0.0, 0.0, 0.0, -speed / f * k, 0.0))
        elif motion == "zoom":
            step = speed / float(np.percentile(radius, 95))  # the focal length's growth
            poses.append((0.0, 0.0, 0.0, 0.0, 0.0, 1 + step * k))
        elif motion == "wobble":
            a, b = 2 * np.pi / 11, 2 * np.pi / 17
            poses.append((t / a * np.sin(a * k), 0.6 * t / b * np.sin(b * k + 1),
                          0.0, 0.5 * speed / f / b * np.sin(b * k + 2),
                          0.4 * speed / f / a * np.sin(a * k + 0.5)))
        else:
            raise ValueError(f"unknown motion {motion!r}")
    return poses


def _project(pose: tuple, xs: np.ndarray, ys: np.ndarray, z: np.ndarray, f: float
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pixel offsets (centred, px) and depth of points after the camera ``pose``."""
    tx, ty, tz, pan, tilt, *zoom = pose
    px, py, pz = xs / f * z - tx, ys / f * z - ty, z - tz
    # pan about y, then tilt about x (small angles, exact rotations)
    c, s = np.cos(pan), np.sin(pan)
    px, pz = c * px - s * pz, s * px + c * pz
    c, s = np.cos(tilt), np.sin(tilt)
    py, pz = c * py - s * pz, s * py + c * pz
    seen = f * (zoom[0] if zoom else 1.0)  # the focal length this frame
    return seen * px / pz, seen * py / pz, pz


def render_shot(name: str, motion: str, speed: float, lens: float = 1.0
                ) -> tuple[np.ndarray, np.ndarray]:
    """(frames (N,h,w,3) uint8, depth (N,h,w) float32, nan = not scored), cached in /tmp.
    ``lens``: the focal length in image widths (1: a 53-degree view; 0.5 a
    phone's or action camera's wide one, 2 a short telephoto): the same
    photograph and depth, seen as taken through that lens, so a turn bends
    the picture as much as that lens would."""
    suffix = "" if lens == 1.0 else f"-lens{lens:g}"
    cache = Path(tempfile.gettempdir()) / f"real-shot-{name}-{motion}-{speed}{suffix}-v3.npz"
    if cache.is_file():
        data = np.load(cache)
        return data["rgb"], data["depth"]
    rgb, disp = load_scene(name)
    h, w = disp.shape
    filled = _filled(disp)
    f = lens * w
    poses = _poses(motion, speed, filled, w, h, f)
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    xs, ys = (gx - (w - 1) / 2).ravel(), (gy - (h - 1) / 2).ravel()
    z = (w / filled).ravel()
    known = (disp > 0).ravel()
    order = np.argsort(-z, kind="stable")  # far first: the nearer point is written last
    xs, ys, z, known = xs[order], ys[order], z[order], known[order]
    sub = slice(None, None, 7)  # the margin from every 7th point
    shift = max(float(np.percentile(np.abs(np.concatenate([mx - xs[sub], my - ys[sub]])), 99.5))
                for mx, my, _ in (_project(p, xs[sub], ys[sub], z[sub], f)
                                  for p in poses))
    margin = int(min(np.ceil(shift) + 2, 0.2 * min(w, h)))
    window = (slice(margin, h - margin), slice(margin, w - margin))
    frames, depths = [], []
    for pose in poses:
        mx, my, mz = _project(pose, xs, ys, z, f)
        dx, dy = mx - xs, my - ys  # each point's movement
        tx, ty = mx + (w - 1) / 2, my + (h - 1) / 2
        # Each point covers the 2x2 pixels around where it lands (no cracks where
        # things grow); the nearest point's movement wins a pixel, and the
        # picture there is sampled back along it (exact sub-pixel positions).
        move = np.full((h * w, 2), np.nan, np.float32)
        zt = np.full(h * w, np.nan, np.float32)
        x0, y0 = np.floor(tx).astype(np.int64), np.floor(ty).astype(np.int64)
        for ox, oy in ((0, 0), (1, 0), (0, 1), (1, 1)):
            px, py = x0 + ox, y0 + oy
            inside = (px >= 0) & (px < w) & (py >= 0) & (py < h)
            idx = py[inside] * w + px[inside]
            move[idx, 0], move[idx, 1] = dx[inside], dy[inside]
            zt[idx] = np.where(known[inside], mz[inside], np.nan)
        move, zt = move.reshape(h, w, 2), zt.reshape(h, w)
        hit = np.isfinite(move[..., 0])
        move = np.nan_to_num(_fill_far(move, hit, _far_key(zt, w, filled)))
        image = cv2.remap(rgb, gx - move[..., 0], gy - move[..., 1], cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
        frames.append(image[window])
        depths.append(np.where(hit, zt, np.nan)[window])
    rgb_out, depth_out = np.stack(frames), np.stack(depths).astype(np.float32)
    partial = cache.with_name(f"{cache.stem}.{os.getpid()}.partial.npz")
    np.savez(partial, rgb=rgb_out, depth=depth_out)
    os.replace(partial, cache)  # whole or not at all: runs may share the cache
    return rgb_out, depth_out


def _far_key(zt: np.ndarray, w: int, filled: np.ndarray) -> np.ndarray:
    """Depth to rank landed pixels by when filling holes: measured where known,
    else the source's filled-in depth at that pixel."""
    return np.where(np.isfinite(zt), zt, w / filled)


def _fill_far(image: np.ndarray, hit: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Pixels nothing landed on take the colour of their farthest landed neighbour,
    growing inwards (a disocclusion shows what was behind)."""
    image, hit, depth = image.copy(), hit.copy(), np.where(hit, depth, -np.inf)
    for _ in range(64):
        if hit.all():
            break
        best = np.full(hit.shape, -np.inf, np.float32)
        colour = np.zeros_like(image)
        for dy, dx in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            nd = np.roll(depth, (dy, dx), (0, 1))
            nc = np.roll(image, (dy, dx), (0, 1))
            better = (~hit) & (nd > best)
            best = np.where(better, nd, best)
            colour[better] = nc[better]
        grow = (~hit) & np.isfinite(best)
        image[grow], depth[grow], hit[grow] = colour[grow], best[grow], True
    return image
