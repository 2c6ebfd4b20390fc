"""The comfort report of a finished stereo pair, measured from its pictures.

The iw3 delegate (``iw3.py``) makes its video without the engine's shot
planner, so no disparity is known while it renders. Here it is measured back
from the pair iw3 wrote: each frame's eyes, in grey at most ``WORK_WIDTH``
wide, are cut into ``BLOCK``-pixel blocks, and each block of the left eye is
matched along its rows in the right eye (the shift with the least mean
absolute difference, within 12 % of the width, refined to a fraction of a
pixel). A left-eye point at x seen at x - d in the right eye has disparity d:
positive is crossed (in front of the screen), as everywhere in the engine.

A block counts only when it has texture and one clear best shift (flat or
repeating content matches anywhere); a frame's range is the ``PERCENTILE``-th
and (100 - it)-th percentiles of its counted blocks, its edge the most crossed
counted block touching the left or right border. Cuts come from the left
eye's thumbnails (``convergence.ShotCuts``), every frame; the disparity is
measured four times a second and at each cut (it is a CPU loop over every
shift), the frames between taking the last measured row. The rows go into the
same ``ComfortRecorder`` as a conversion's, in pixels of the eye as the file holds it.
Only the packed layouts (full/half side-by-side and top-bottom) are measured.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from shared_types.models import ConversionParams, OutputMode
from stereo_media.demuxers import av_options

from stereo_inference.comfort_report import ComfortRecorder
from stereo_inference.convergence import ShotCuts, thumbnails
from stereo_inference.viewing import limits, viewing_of

WORK_WIDTH = 480
BLOCK = 16
SPAN = 0.12  # the largest disparity looked for, of the width
PERCENTILE = 2.0
MIN_TEXTURE = 4.0  # grey levels (standard deviation) a block needs
UNIQUE = 0.7  # the best cost at most this share of the best one elsewhere
MEASURE_EVERY_S = 0.25  # a frame measured this often, and at each cut; the rest take its row
MEASURED = frozenset({OutputMode.SBS, OutputMode.HALF_SBS, OutputMode.TB, OutputMode.HALF_TB})


def measured_report(video: Path, mode: OutputMode, params: ConversionParams) -> dict | None:
    """The comfort report of the packed stereo ``video`` (None: a layout not measured)."""
    if mode not in MEASURED:
        return None
    import av

    recorder, cuts, measured_at, row = None, ShotCuts(), -1e9, (0.0, 0.0, 0.0)
    with av.open(str(video), options=av_options()) as container:
        stream = container.streams.video[0]
        frame_s = float(1 / stream.average_rate) if stream.average_rate else 1 / 30
        for frame in container.decode(stream):
            left, right = _eyes(frame.to_ndarray(format="gray"), mode)
            first = recorder is None
            if recorder is None:
                recorder = _recorder(left.shape[1], frame_s, params)
            cut = cuts.cuts(thumbnails(left[None, None].astype(np.float32) / 255.0))[0]
            time_s = float(frame.time or 0.0)
            if cut or time_s >= measured_at + MEASURE_EVERY_S:
                row, measured_at = frame_range(left, right), time_s
            recorder.add(time_s, None if first else cut, *row, False)
    return None if recorder is None else recorder.report()


def _recorder(eye_width: int, frame_s: float, params: ConversionParams) -> ComfortRecorder:
    viewing = viewing_of(params)
    return ComfortRecorder(eye_width, frame_s, viewing,
                           None if viewing is None else limits(viewing, eye_width),
                           preset=None if params.viewing is None else params.viewing.value)


def _eyes(grey: np.ndarray, mode: OutputMode) -> tuple[np.ndarray, np.ndarray]:
    h, w = grey.shape
    if mode in (OutputMode.SBS, OutputMode.HALF_SBS):
        return grey[:, :w // 2], grey[:, w // 2:w // 2 * 2]
    return grey[:h // 2], grey[h // 2:h // 2 * 2]


def frame_range(left: np.ndarray, right: np.ndarray) -> tuple[float, float, float]:
    """(most uncrossed, most crossed, most crossed at a side border) disparity of
    one frame's eyes, in pixels of their width (0, 0, 0 when nothing matched)."""
    import cv2

    scale = min(1.0, WORK_WIDTH / left.shape[1])
    if scale < 1.0:
        size = (round(left.shape[1] * scale), round(left.shape[0] * scale))
        left, right = (cv2.resize(e, size, interpolation=cv2.INTER_AREA) for e in (left, right))
    d, ok = block_disparity(left.astype(np.float32), right.astype(np.float32))
    if not ok.any():
        return 0.0, 0.0, 0.0
    low, high = np.percentile(d[ok], [PERCENTILE, 100.0 - PERCENTILE])
    sides = np.concatenate([d[:, 0][ok[:, 0]], d[:, -1][ok[:, -1]]])
    edge = float(sides.max()) if sides.size else 0.0
    return float(low) / scale, float(high) / scale, max(0.0, edge) / scale


def block_disparity(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(disparity per block (rows, cols), which blocks count) of two grey eyes."""
    h, w = left.shape
    rows, cols = h // BLOCK, w // BLOCK
    left, right = left[:rows * BLOCK, :cols * BLOCK], right[:rows * BLOCK, :cols * BLOCK]
    w = cols * BLOCK
    span = max(1, round(SPAN * w))
    shifts = np.arange(-span, span + 1)
    costs = np.full((len(shifts), rows, cols), np.inf, np.float32)
    for k, s in enumerate(shifts):
        diff = np.zeros_like(left)
        seen = np.zeros_like(left)
        lo, hi = max(0, s), min(w, w + s)  # left columns whose partner x - s is in frame
        diff[:, lo:hi] = np.abs(left[:, lo:hi] - right[:, lo - s:hi - s])
        seen[:, lo:hi] = 1.0
        n = _blocks(seen)
        costs[k] = np.where(n >= BLOCK * BLOCK / 2, _blocks(diff) / np.maximum(n, 1), np.inf)
    best = costs.argmin(axis=0)
    best_cost = np.take_along_axis(costs, best[None], 0)[0]
    # the best cost elsewhere (beyond the best's neighbours): a clear winner only
    near = np.abs(np.arange(len(shifts))[:, None, None] - best[None]) <= 1
    other = np.where(near, np.inf, costs).min(axis=0)
    texture = left.reshape(rows, BLOCK, cols, BLOCK).std(axis=(1, 3))
    ok = (texture >= MIN_TEXTURE) & np.isfinite(best_cost) & (best_cost < UNIQUE * other)
    return shifts[best] + _subpixel(costs, best), ok


def _blocks(image: np.ndarray) -> np.ndarray:
    rows, cols = image.shape[0] // BLOCK, image.shape[1] // BLOCK
    return image.reshape(rows, BLOCK, cols, BLOCK).sum(axis=(1, 3))


def _subpixel(costs: np.ndarray, best: np.ndarray) -> np.ndarray:
    """The parabola's vertex through the best cost and its two neighbours."""
    k = np.clip(best, 1, len(costs) - 2)
    a, b, c = (np.take_along_axis(costs, (k + o)[None], 0)[0] for o in (-1, 0, 1))
    denom = a - 2 * b + c
    with np.errstate(invalid="ignore", divide="ignore"):
        offset = np.where(np.isfinite(denom) & (denom > 0), 0.5 * (a - c) / denom, 0.0)
    return np.where(best == k, np.clip(offset, -0.5, 0.5), 0.0)
