"""Temporal normalisation: map raw depth to 0..1 without pumping or flicker.

A running depth range rescales every frame: it follows each frame's robust
range (2nd and 98th percentiles) slowly, a little faster when it widens
(``widen``) than when it narrows (``decay``), so a near object entering the
frame does not push everything else back at once (it saturates briefly
instead). Each map is blended with the previous one; both reset at scene
cuts, found from the mean difference of small grey thumbnails of consecutive
frames, absolute or relative to how much the shot has been changing. The state
(range, last thumbnail, last map) is JSON, so the next segment of the same
video continues exactly where this one stopped.
"""

from __future__ import annotations

from typing import Any, Protocol

import cv2
import numpy as np

from stereo_inference.arrays import as_float, concat, is_tensor, row_quantiles, to_numpy
from stereo_inference.packed import pack, unpack

THUMB = (18, 32)  # (h, w)
# A cut also where the picture changes this many times more than it has been
# changing within the shot (and at least by CUT_FLOOR): a cut between similar
# pictures stays under the absolute threshold.
CUT_RATIO = 5.0
CUT_FLOOR = 0.03
STATE_VERSION = 1


class Normalizer(Protocol):
    """What turns an estimator's raw depth into the depth the renderer uses:
    :class:`TemporalNormalizer`, or an imported depth video's ``AsIs``."""

    def normalize(self, depth: Any, rgb: Any) -> Any: ...
    def state(self) -> dict | None: ...


class TemporalNormalizer:
    def __init__(
        self,
        model: str,
        state: dict | None = None,
        *,
        decay: float = 0.95,
        smoothing: float = 0.35,
        cut_threshold: float = 0.18,
        widen: float = 0.3,
    ) -> None:
        self.model = model
        self.decay, self.smoothing, self.cut_threshold = decay, smoothing, cut_threshold
        self.widen = widen
        self.lo: float | None = None
        self.hi: float | None = None
        self.thumb: np.ndarray | None = None
        self.prev = None  # the last normalised map (numpy or tensor)
        self.change: float | None = None  # typical thumbnail change within this shot
        self.cuts = 0
        if state and state.get("version") == STATE_VERSION:
            if state.get("model") == model:  # other models use other depth scales
                self.lo, self.hi = float(state["lo"]), float(state["hi"])
                prev = unpack(state.get("prev"), np.float16)
                self.prev = None if prev is None else prev.astype(np.float32)[None, None]
                change = state.get("change")
                self.change = float(change) if isinstance(change, (int, float)) else None
            thumb = state.get("thumb")
            if thumb and len(thumb) == THUMB[0] * THUMB[1]:
                self.thumb = np.asarray(thumb, np.float32).reshape(1, 1, *THUMB)

    def normalize(self, depth, rgb):
        """Depth (B,1,h,w) in 0..1 (1 = nearest) for raw ``depth`` of frames ``rgb``
        (B,3,h,w) in 0..1; numpy arrays or tensors (the result is ``depth``'s kind)."""
        thumbs = _thumbnails(rgb)
        depth = as_float(depth)
        flat = depth.reshape(depth.shape[0], -1)[:, ::5]  # plenty for percentiles
        lows, highs = row_quantiles(flat, (0.02, 0.98))
        bounds, cuts = [], []  # per frame: (lo, range), and whether a shot starts there
        for i in range(depth.shape[0]):
            change = None if self.thumb is None else float(
                np.abs(thumbs[i : i + 1] - self.thumb).mean())
            is_cut = change is None or change > self.cut_threshold or (
                self.change is not None and change > CUT_FLOOR
                and change > CUT_RATIO * self.change)
            self.change = None if is_cut else change if self.change is None else (
                0.7 * self.change + 0.3 * change)
            self.thumb = thumbs[i : i + 1]
            if is_cut or self.lo is None:
                self.lo, self.hi = lows[i], highs[i]
            else:
                self.lo = self._follow(self.lo, lows[i], lows[i] < self.lo)
                self.hi = self._follow(self.hi, highs[i], highs[i] > self.hi)
            bounds.append((self.lo, max(self.hi - self.lo, 1e-6)))
            cuts.append(is_cut)
        # the whole batch rescaled at once (on a GPU: a few kernels, not a few a frame)
        lo, span = np.array(bounds, np.float32).T.reshape(2, -1, 1, 1, 1)
        if is_tensor(depth):
            lo, span = depth.new_tensor(lo), depth.new_tensor(span)
        scaled = ((depth - lo) / span).clip(0, 1)
        out = []
        for i, is_cut in enumerate(cuts):
            if is_cut:
                self.cuts += self.prev is not None
                self.prev = None
            n = scaled[i : i + 1]
            if self.prev is not None and self.prev.shape == n.shape:
                if is_tensor(n) and not is_tensor(self.prev):  # restored from a state
                    self.prev = n.new_tensor(self.prev)
                n = n + self.smoothing * (self.prev - n)
            self.prev = n
            out.append(n)
        return concat(out)

    def _follow(self, bound: float, target: float, widens: bool) -> float:
        rate = self.widen if widens else 1 - self.decay
        return bound + rate * (target - bound)

    def state(self) -> dict | None:
        """JSON-serialisable state for the next consecutive segment (None before any frame)."""
        if self.lo is None or self.thumb is None:
            return None
        return {
            "version": STATE_VERSION,
            "model": self.model,
            "lo": self.lo,
            "hi": self.hi,
            "thumb": [round(v, 4) for v in self.thumb.flatten().tolist()],
            # the last map and the shot's pace: the next segment's first frame
            # is smoothed and cut-checked like the whole file's
            "prev": None if self.prev is None else pack(
                to_numpy(self.prev)[0, 0].astype(np.float16)),
            "change": self.change,
        }


def _thumbnails(rgb) -> np.ndarray:
    """(B,1,*THUMB) grey thumbnails (area-averaged) of frames (B,3,h,w), on the host."""
    if is_tensor(rgb):
        from torch.nn import functional

        grey = rgb.float().mean(1, keepdim=True)
        return to_numpy(functional.interpolate(grey, size=THUMB, mode="area"))
    grey = rgb.mean(1, dtype=np.float32)
    return np.stack([cv2.resize(g, THUMB[::-1], interpolation=cv2.INTER_AREA)
                     for g in grey])[:, None]
