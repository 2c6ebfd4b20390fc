"""Real photographed scenes with measured disparity, for the depth tests.

Middlebury's "motorcycle" and the others of ``bench/data/real_scenes``
(licences in its LICENCES.md): ``slid`` moves the photograph by its own
measured disparity, the way a camera sliding sideways would move it,
``pushed_in`` the way a camera carried straight ahead would, and ``ordinal``
scores a depth map against the measurement.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import cv2
import numpy as np

SCENES = Path(__file__).resolve().parents[5] / "bench" / "data" / "real_scenes"


def available(name: str = "motorcycle") -> bool:
    return (SCENES / name).is_dir()


def motorcycle() -> tuple[np.ndarray, np.ndarray]:
    """(rgb (h,w,3) uint8, disparity (h,w) float px, 0 where not measured)."""
    return scene("motorcycle")


def scene(name: str) -> tuple[np.ndarray, np.ndarray]:
    """The real scene ``name``: (rgb (h,w,3) uint8, disparity (h,w) float px,
    0 where not measured)."""
    bgr = cv2.imread(str(SCENES / name / "image.png"))
    disparity = cv2.imread(str(SCENES / name / "disparity.png"), cv2.IMREAD_UNCHANGED)
    if bgr is None or disparity is None:
        raise FileNotFoundError(f"the {name} scene is not in {SCENES}")
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), disparity.astype(np.float32) / 64


def slid(rgb: np.ndarray, disparity: np.ndarray, offsets: Iterable[float],
         size: tuple[int, int]) -> np.ndarray:
    """(n,h,w,3) frames at ``size`` (w, h): the photograph with the camera slid
    sideways so that the nearest things (95th percentile of the disparity)
    move by each of ``offsets`` px at full size, farther ones less."""
    h, w = disparity.shape
    filled = np.where(disparity > 0, disparity, np.median(disparity[disparity > 0]))
    step = (filled / np.percentile(filled, 95)).astype(np.float32)
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    return np.stack([cv2.resize(cv2.remap(rgb, gx + np.float32(offset) * step, gy, cv2.INTER_LINEAR,
                                          borderMode=cv2.BORDER_REFLECT), size,
                                interpolation=cv2.INTER_AREA) for offset in offsets])


def pushed_in(rgb: np.ndarray, disparity: np.ndarray, offsets: Iterable[float],
              size: tuple[int, int]) -> np.ndarray:
    """(n,h,w,3) frames at ``size`` (w, h): the photograph with the camera
    carried straight ahead, each point moving away from the picture's centre
    by its disparity times its distance from the centre, so that the
    fastest (95th percentile) move by each of ``offsets`` px at full size.
    Each pixel samples the photograph where its own point came from (its
    disparity read where it lands: a slight approximation at occluding
    edges)."""
    h, w = disparity.shape
    filled = np.where(disparity > 0, disparity, np.median(disparity[disparity > 0]))
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = (w - 1) / 2, (h - 1) / 2
    per_offset = 1 / np.percentile(filled * np.hypot(gx - cx, gy - cy), 95)
    frames = []
    for offset in offsets:
        shrink = (1 - np.float32(offset * per_offset) * filled).astype(np.float32)
        frames.append(cv2.resize(cv2.remap(rgb, cx + (gx - cx) * shrink, cy + (gy - cy) * shrink,
                                           cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT),
                                 size, interpolation=cv2.INTER_AREA))
    return np.stack(frames)


def ordinal(depth: np.ndarray, disparity: np.ndarray, pairs: int = 6000) -> float:
    """Share of pixel pairs whose measured depths differ by over 10 % that
    ``depth`` (larger = nearer) orders the same way."""
    h, w = disparity.shape
    est = cv2.resize(depth.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    rng = np.random.default_rng(0)
    valid = np.flatnonzero(disparity.ravel() > 0)
    a, b = rng.choice(valid, pairs), rng.choice(valid, pairs)
    da, db = disparity.flat[a], disparity.flat[b]
    keep = np.maximum(da, db) > 1.1 * np.minimum(da, db)
    return float((np.sign(est.flat[a] - est.flat[b]) == np.sign(da - db))[keep].mean())
