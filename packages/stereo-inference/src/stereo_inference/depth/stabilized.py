"""Per-frame depth models, held steady along the optical flow.

A learned model sees every frame alone: its depth of a still wall wobbles from
frame to frame, and so does its scale (relative depth is only defined up to
an affine map). ``FlowStabilized`` wraps such a model: each new map is first
fitted (scale and offset, least squares over the pixels whose flow holds) to
the previous result moved along the flow (``parallax.FlowField``, DIS at 128
px, photometric check), then blended with it where the flow holds and taken
as it is where it does not (new content) or when most of the frame fails to
match (a scene cut). Its memory (last grey frame, last map) travels in
``depth_state`` like the weight-free estimator's.
"""

from __future__ import annotations

import cv2
import numpy as np

from stereo_inference.arrays import is_tensor, to_numpy
from stereo_inference.depth.parallax import FlowField, warp_back
from stereo_inference.packed import pack, unpack

FLOW_WIDTH = 128
BLEND = 0.3  # weight of a new map where the flow holds
CUT_CONSISTENCY = 0.6  # mean flow consistency below this: a new shot
_LUMA = np.array([0.299, 0.587, 0.114], np.float32)


class FlowStabilized:
    """A DepthEstimator: ``inner``'s depth, held along the flow between frames."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name, self.max_batch = inner.name, inner.max_batch
        self.device = getattr(inner, "device", "cpu")
        self._flow = FlowField()
        self._prev: np.ndarray | None = None  # last grey frame (uint8, FLOW_WIDTH wide)
        self._held: np.ndarray | None = None  # last result (h,w) float32

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        return self.inner.input_size(width, height)

    def estimate(self, rgb):
        raw = self.inner.estimate(rgb)
        frames = to_numpy(rgb).astype(np.float32, copy=False)
        maps = to_numpy(raw)[:, 0].astype(np.float32)
        out = np.stack([self._step(f, m) for f, m in zip(frames, maps, strict=True)])[:, None]
        if is_tensor(raw):
            import torch

            return torch.from_numpy(out).to(raw.device)
        return out

    def state(self) -> dict | None:
        """The last grey frame and result (JSON), for the next segment; None before any."""
        if self._prev is None or self._held is None:
            return None
        return {"gray": pack(self._prev), "held": pack(self._held.astype(np.float16))}

    def restore(self, state: dict) -> None:
        """Continue from ``state()`` of the previous segment (ignored when malformed)."""
        prev, held = unpack(state.get("gray"), np.uint8), unpack(state.get("held"), np.float16)
        if prev is not None and held is not None:
            self._prev, self._held = prev, held.astype(np.float32)

    def _step(self, rgb: np.ndarray, depth: np.ndarray) -> np.ndarray:
        gray = np.tensordot(_LUMA, rgb, axes=(0, 0))
        h, w = gray.shape
        fw = min(FLOW_WIDTH, w)
        small = cv2.resize(gray, (fw, max(8, round(h * fw / w))), interpolation=cv2.INTER_AREA)
        gray8 = np.clip(small * 255 + 0.5, 0, 255).astype(np.uint8)
        prev, self._prev = self._prev, gray8
        if prev is None or prev.shape != gray8.shape or self._held is None or (
                self._held.shape != depth.shape):
            self._held = depth
            return depth
        flow, consistency = self._flow.backward(gray8, prev)
        if float(consistency.mean()) < CUT_CONSISTENCY:
            self._held = depth
            return depth
        dh, dw = depth.shape
        scale = np.array([dw / gray8.shape[1], dh / gray8.shape[0]], np.float32)
        flow = cv2.resize(flow, (dw, dh), interpolation=cv2.INTER_LINEAR) * scale
        consistency = cv2.resize(consistency, (dw, dh), interpolation=cv2.INTER_LINEAR)
        held = warp_back(self._held, flow)
        fitted = _fit_affine(depth, held, consistency)
        weight = BLEND + (1 - BLEND) * (1 - consistency) ** 2
        self._held = (held + weight * (fitted - held)).astype(np.float32)
        return self._held


def _fit_affine(new: np.ndarray, held: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``a*new + b`` closest to ``held`` (weighted least squares): the model's
    per-frame scale and offset taken out, so only what changed shape remains."""
    w = weight.ravel()[::4]
    x, y = new.ravel()[::4], held.ravel()[::4]
    sw = float(w.sum())
    if sw < 1e-3:
        return new
    mx, my = float((w * x).sum()) / sw, float((w * y).sum()) / sw
    var = float((w * (x - mx) ** 2).sum())
    if var < 1e-12:
        return new
    a = float((w * (x - mx) * (y - my)).sum()) / var
    if a <= 0:  # the map turned over: no fit is better than a flipped one
        return new
    return a * (new - mx) + my

