"""Temporal normalisation: map raw depth to 0..1 without pumping or flicker.

A running depth range (widened at once by new extremes, narrowed slowly with
``decay``) rescales every frame, and each map is blended with the previous one;
both reset at scene cuts, found from the mean difference of small grey
thumbnails of consecutive frames. The state (range + last thumbnail) is JSON,
so the next segment of the same video continues where this one stopped.
"""

from __future__ import annotations

import cv2
import numpy as np

from stereo_inference.arrays import as_float, concat, is_tensor, row_quantiles

THUMB = (18, 32)  # (h, w)
STATE_VERSION = 1


class TemporalNormalizer:
    def __init__(
        self,
        model: str,
        state: dict | None = None,
        *,
        decay: float = 0.9,
        smoothing: float = 0.35,
        cut_threshold: float = 0.18,
    ) -> None:
        self.model = model
        self.decay, self.smoothing, self.cut_threshold = decay, smoothing, cut_threshold
        self.lo: float | None = None
        self.hi: float | None = None
        self.thumb: np.ndarray | None = None
        self.prev = None  # the last normalised map (numpy or tensor)
        self.cuts = 0
        if state and state.get("version") == STATE_VERSION:
            if state.get("model") == model:  # other models use other depth scales
                self.lo, self.hi = float(state["lo"]), float(state["hi"])
            thumb = state.get("thumb")
            if thumb and len(thumb) == THUMB[0] * THUMB[1]:
                self.thumb = np.asarray(thumb, np.float32).reshape(1, 1, *THUMB)

    def normalize(self, depth, rgb):
        """Depth (B,1,h,w) in 0..1 (1 = nearest) for raw ``depth`` of frames ``rgb``
        (B,3,h,w) in 0..1; numpy arrays or tensors (the result is ``depth``'s kind)."""
        thumbs = _thumbnails(rgb)
        flat = as_float(depth.reshape(depth.shape[0], -1)[:, ::5])  # plenty for percentiles
        lows, highs = row_quantiles(flat, 0.02), row_quantiles(flat, 0.98)
        out = []
        for i in range(depth.shape[0]):
            is_cut = self.thumb is None or (
                float(np.abs(thumbs[i : i + 1] - self.thumb).mean()) > self.cut_threshold
            )
            self.thumb = thumbs[i : i + 1]
            if is_cut:
                self.cuts += self.prev is not None
                self.prev = None
            if is_cut or self.lo is None:
                self.lo, self.hi = lows[i], highs[i]
            else:
                k = self.decay
                self.lo = min(lows[i], k * self.lo + (1 - k) * lows[i])
                self.hi = max(highs[i], k * self.hi + (1 - k) * highs[i])
            n = ((as_float(depth[i : i + 1]) - self.lo) / max(self.hi - self.lo, 1e-6)).clip(0, 1)
            if self.prev is not None and self.prev.shape == n.shape:
                n = n + self.smoothing * (self.prev - n)
            self.prev = n
            out.append(n)
        return concat(out)

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
        }


def _thumbnails(rgb) -> np.ndarray:
    """(B,1,*THUMB) grey thumbnails (area-averaged) of frames (B,3,h,w), on the host."""
    if is_tensor(rgb):
        from torch.nn import functional

        grey = rgb.float().mean(1, keepdim=True)
        return functional.interpolate(grey, size=THUMB, mode="area").cpu().numpy()
    grey = rgb.mean(1, dtype=np.float32)
    return np.stack([cv2.resize(g, THUMB[::-1], interpolation=cv2.INTER_AREA)
                     for g in grey])[:, None]
