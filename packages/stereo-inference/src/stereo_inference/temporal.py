"""Temporal normalisation: map raw depth to 0..1 without pumping or flicker.

A running depth range (widened at once by new extremes, narrowed slowly with
``decay``) rescales every frame, and each map is blended with the previous one;
both reset at scene cuts, found from the mean difference of small grey
thumbnails of consecutive frames. The state (range + last thumbnail) is JSON,
so the next segment of the same video continues where this one stopped.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

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
        self.thumb: torch.Tensor | None = None
        self.prev: torch.Tensor | None = None
        self.cuts = 0
        if state and state.get("version") == STATE_VERSION:
            if state.get("model") == model:  # other models use other depth scales
                self.lo, self.hi = float(state["lo"]), float(state["hi"])
            thumb = state.get("thumb")
            if thumb and len(thumb) == THUMB[0] * THUMB[1]:
                self.thumb = torch.tensor(thumb, dtype=torch.float32).view(1, 1, *THUMB)

    @torch.inference_mode()
    def normalize(self, depth: torch.Tensor, rgb: torch.Tensor) -> torch.Tensor:
        """Depth (B,1,h,w) in 0..1 (1 = nearest) for raw ``depth`` of frames ``rgb``."""
        thumbs = F.interpolate(rgb.float().mean(1, keepdim=True), size=THUMB, mode="area").cpu()
        flat = depth.flatten(1)[:, ::5].float()  # a subsample is plenty for percentiles
        lows = torch.quantile(flat, 0.02, dim=1).tolist()
        highs = torch.quantile(flat, 0.98, dim=1).tolist()
        out = []
        for i in range(depth.shape[0]):
            is_cut = self.thumb is None or (
                float((thumbs[i : i + 1] - self.thumb).abs().mean()) > self.cut_threshold
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
            n = ((depth[i : i + 1].float() - self.lo) / max(self.hi - self.lo, 1e-6)).clamp(0, 1)
            if self.prev is not None and self.prev.shape == n.shape:
                n = torch.lerp(n, self.prev, self.smoothing)
            self.prev = n
            out.append(n)
        return torch.cat(out)

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
