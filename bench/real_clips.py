"""Real video clips with measured depth for every frame: how they are stored and read.

A clip is a folder ``bench/data/real_clips/<name>/`` of consecutive frames from
a real camera (sources, licences and citations in ``LICENCES.md`` there):

- ``rgb/000.png`` (or ``.jpg``), ``rgb/001.png``, ...: the colour frames, 8-bit;
- ``depth/000.png``, ...: each frame's measured depth, registered to its colour
  frame, as 16-bit grey PNG in millimetres (1 = 1 mm, up to 65.535 m), 0 where
  nothing was measured;
- ``clip.json``: where it came from (``source``), the frame rate it plays at
  (``fps``) and the lens's focal length in image widths (``focal``), for the
  record.

Nothing in a clip is generated, rendered or predicted: colour and depth are the
sensors' own (a depth camera, a laser scanner), at most downscaled. A source
that timestamps colour and depth apart (TUM RGB-D's ``rgb.txt`` /
``depth.txt``) pairs each colour frame with the depth frame nearest in time
(``associate``); ``write_clip`` stores a clip, ``load_clip`` reads it back.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "real_clips"
MAX_MM = 65535  # the farthest a 16-bit millimetre PNG holds
SMALLEST_PNG = [cv2.IMWRITE_PNG_COMPRESSION, 9]


def clips(data: Path = DATA) -> list[str]:
    """Names of the clips stored under ``data``, sorted."""
    return sorted(p.parent.name for p in data.glob("*/clip.json"))


def associate(colour_times, depth_times, max_dt: float = 0.02) -> list[tuple[int, int]]:
    """(colour index, depth index) pairs, each colour frame with the depth frame
    nearest in time, never further apart than ``max_dt`` seconds and each depth
    frame used once (the closest pairs are taken first, as TUM's own tool
    does), in colour order. Colour frames with no depth frame near are left out."""
    colour = np.asarray(colour_times, np.float64)
    depth = np.asarray(depth_times, np.float64)
    if colour.size == 0 or depth.size == 0:
        return []
    gap = np.abs(colour[:, None] - depth[None, :])
    order = np.argsort(gap, axis=None, kind="stable")
    used_c: set[int] = set()
    used_d: set[int] = set()
    pairs = []
    for flat in order:
        i, j = divmod(int(flat), depth.size)
        if gap[i, j] > max_dt:
            break
        if i in used_c or j in used_d:
            continue
        used_c.add(i)
        used_d.add(j)
        pairs.append((i, j))
    return sorted(pairs)


def encode_depth(metres: np.ndarray) -> np.ndarray:
    """Depth in metres (nan, 0 or negative: not measured) as 16-bit millimetres."""
    z = np.asarray(metres, np.float64)
    measured = np.isfinite(z) & (z > 0)
    if np.any(z[measured] * 1000 > MAX_MM + 0.5):
        raise ValueError(f"depth beyond {MAX_MM / 1000} m cannot be stored in millimetres")
    mm = np.where(measured, np.rint(z * 1000), 0)
    return np.where(measured & (mm == 0), 1, mm).astype(np.uint16)  # under 0.5 mm stays measured


def decode_depth(mm: np.ndarray) -> np.ndarray:
    """16-bit millimetres as metres, nan where nothing was measured (0)."""
    if mm.dtype != np.uint16:
        raise ValueError(f"a depth frame must be 16-bit, not {mm.dtype}")
    return np.where(mm > 0, mm.astype(np.float32) / 1000, np.float32(np.nan))


def write_clip(folder: Path, rgb, depth_m, info: dict, jpeg_quality: int | None = None) -> None:
    """Store frames ``rgb`` (N,H,W,3 uint8, RGB order) and their depth
    ``depth_m`` (N,H,W metres, nan = not measured) as a clip in ``folder``;
    colour as PNG, or as JPEG of ``jpeg_quality`` when given."""
    rgb, depth_m = list(rgb), list(depth_m)
    if len(rgb) != len(depth_m) or not rgb:
        raise ValueError(f"a clip needs as many depth frames as colour frames "
                         f"(got {len(rgb)} and {len(depth_m)})")
    for sub in ("rgb", "depth"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    for k, (image, z) in enumerate(zip(rgb, depth_m, strict=True)):
        if image.shape[:2] != np.shape(z):
            raise ValueError(f"frame {k}: colour {image.shape[:2]} and depth "
                             f"{np.shape(z)} differ in size")
        bgr = cv2.cvtColor(image, cv2.COLOR_RGB2BGR)
        if jpeg_quality is None:
            cv2.imwrite(str(folder / "rgb" / f"{k:03d}.png"), bgr, SMALLEST_PNG)
        else:
            cv2.imwrite(str(folder / "rgb" / f"{k:03d}.jpg"), bgr,
                        [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
        cv2.imwrite(str(folder / "depth" / f"{k:03d}.png"), encode_depth(z), SMALLEST_PNG)
    (folder / "clip.json").write_text(json.dumps(info, indent=1) + "\n")


def load_clip(name: str, data: Path = DATA) -> tuple[np.ndarray, np.ndarray]:
    """(rgb (N,H,W,3) uint8, depth (N,H,W) float32 metres, nan = not measured)."""
    folder = data / name
    if not (folder / "clip.json").is_file():
        raise FileNotFoundError(f"clip {name!r} is not in {data} (no clip.json); "
                                f"clips there: {', '.join(clips(data)) or 'none'}")
    colour = sorted(p for p in (folder / "rgb").glob("*") if p.suffix in (".png", ".jpg"))
    depth = sorted((folder / "depth").glob("*.png"))
    if [p.stem for p in colour] != [p.stem for p in depth] or not colour:
        raise ValueError(f"clip {name!r}: colour frames {[p.stem for p in colour]} and depth "
                         f"frames {[p.stem for p in depth]} do not pair up")
    rgb, metres = [], []
    for c, d in zip(colour, depth, strict=True):
        bgr = cv2.imread(str(c), cv2.IMREAD_COLOR)
        mm = cv2.imread(str(d), cv2.IMREAD_UNCHANGED)
        if bgr is None or mm is None:
            raise ValueError(f"clip {name!r}: cannot read {c.name} or its depth")
        if mm.shape != bgr.shape[:2]:
            raise ValueError(f"clip {name!r}, frame {c.stem}: depth {mm.shape} and colour "
                             f"{bgr.shape[:2]} differ in size")
        rgb.append(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
        metres.append(decode_depth(mm))
    return np.stack(rgb), np.stack(metres)


def clip_info(name: str, data: Path = DATA) -> dict:
    return json.loads((data / name / "clip.json").read_text())
