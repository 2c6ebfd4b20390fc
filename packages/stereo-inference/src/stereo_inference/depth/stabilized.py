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

With a ``stride`` above 1 the model runs on every ``stride``-th frame only (a
learned model on a CPU costs seconds a frame); the frames in between take the
last result moved along the flow. The model still sees every frame where the
flow cannot carry the depth: a shot's first frame, a cut, and a frame where
much of the picture is new (mean flow consistency under ``KEEP_CONSISTENCY``).
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
KEEP_CONSISTENCY = 0.85  # below this, a frame between keyframes gets the model too
_LUMA = np.array([0.299, 0.587, 0.114], np.float32)


class FlowStabilized:
    """A DepthEstimator: ``inner``'s depth, held along the flow between frames."""

    def __init__(self, inner, *, stride: int = 1) -> None:
        self.inner, self.stride = inner, max(1, int(stride))
        self.name, self.max_batch = inner.name, inner.max_batch
        self.device = getattr(inner, "device", "cpu")
        self._flow = FlowField()
        self._prev: np.ndarray | None = None  # last grey frame (uint8, FLOW_WIDTH wide)
        self._held: np.ndarray | None = None  # last result (h,w) float32
        self._since = 0  # frames since the model last ran

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        return self.inner.input_size(width, height)

    def estimate(self, rgb):
        frames = to_numpy(rgb).astype(np.float32, copy=False)
        motions = self._motions([_small_gray(f) for f in frames])
        keys = self._keyframes(motions)
        maps = iter(())
        if keys:  # (the first frame always is one)
            raw = self.inner.estimate(rgb[keys] if len(keys) < len(frames) else rgb)
            maps = iter(to_numpy(raw)[:, 0].astype(np.float32))
        chosen = set(keys)
        out = np.stack([self._step(next(maps) if i in chosen else None, motion)
                        for i, motion in enumerate(motions)])[:, None]
        if is_tensor(rgb):  # answered in the input's kind, keyframes or not
            import torch

            return torch.from_numpy(out).to(rgb.device)
        return out

    def state(self) -> dict | None:
        """The last grey frame and result (JSON), for the next segment; None before any."""
        if self._prev is None or self._held is None:
            return None
        return {"gray": pack(self._prev), "held": pack(self._held.astype(np.float16)),
                "since": self._since}

    def restore(self, state: dict) -> None:
        """Continue from ``state()`` of the previous segment (ignored when malformed)."""
        prev, held = unpack(state.get("gray"), np.uint8), unpack(state.get("held"), np.float16)
        if prev is not None and held is not None:
            self._prev, self._held = prev, held.astype(np.float32)
            since = state.get("since", 0)
            self._since = since if isinstance(since, int) else 0

    def _motions(self, grays: list[np.ndarray]) -> list[tuple[np.ndarray, np.ndarray] | None]:
        """Per frame, (flow, consistency) back to the frame before, or None where
        nothing can be held (the first frame, a cut)."""
        motions = []
        for gray8 in grays:
            prev, self._prev = self._prev, gray8
            motion = None
            if prev is not None and prev.shape == gray8.shape:
                flow, consistency = self._flow.backward(gray8, prev)
                if float(consistency.mean()) >= CUT_CONSISTENCY:
                    motion = (flow, consistency)
            motions.append(motion)
        return motions

    def _keyframes(self, motions: list) -> list[int]:
        """Indices of the frames the model must see (every one at stride 1);
        advances the count of frames since the model last ran."""
        keys, since, held = [], self._since, self._held is not None
        for i, motion in enumerate(motions):
            if (not held or motion is None or since + 1 >= self.stride
                    or float(motion[1].mean()) < KEEP_CONSISTENCY):
                keys.append(i)
                since = 0
            else:
                since += 1
            held = True
        self._since = since
        return keys

    def _step(self, depth: np.ndarray | None, motion) -> np.ndarray:
        """The next result from the model's map ``depth`` (None between keyframes)."""
        if motion is None or self._held is None or (
                depth is not None and self._held.shape != depth.shape):
            self._held = depth
            return depth
        dh, dw = self._held.shape
        flow, consistency = motion
        scale = np.array([dw / flow.shape[1], dh / flow.shape[0]], np.float32)
        flow = cv2.resize(flow, (dw, dh), interpolation=cv2.INTER_LINEAR) * scale
        consistency = cv2.resize(consistency, (dw, dh), interpolation=cv2.INTER_LINEAR)
        held = warp_back(self._held, flow)
        if depth is None:  # between keyframes: the depth moves with the picture
            self._held = held
            return held
        fitted = _fit_affine(depth, held, consistency)
        weight = BLEND + (1 - BLEND) * (1 - consistency) ** 2
        self._held = (held + weight * (fitted - held)).astype(np.float32)
        return self._held


def _small_gray(rgb: np.ndarray) -> np.ndarray:
    """``rgb`` (3,h,w) float 0..1 as a grey uint8 frame FLOW_WIDTH wide."""
    gray = np.tensordot(_LUMA, rgb, axes=(0, 0))
    h, w = gray.shape
    fw = min(FLOW_WIDTH, w)
    small = cv2.resize(gray, (fw, max(8, round(h * fw / w))), interpolation=cv2.INTER_AREA)
    return np.clip(small * 255 + 0.5, 0, 255).astype(np.uint8)


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

