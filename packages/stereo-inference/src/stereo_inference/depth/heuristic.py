"""Depth without weights: motion parallax where the camera moves, image cues elsewhere.

Each frame's dense optical flow against the previous one (``parallax``) gives
real relative depth whenever the camera translates: nearer things move more.
Where motion says nothing (a still camera, a pure pan) the frame's position
cue decides: lower is nearer (the ground). On a still camera whatever moves is
lifted towards the viewer. The blend is refined
along the image's edges (``guided``) and accumulated over time: the previous
depth, moved by the flow, is blended with the new estimate where the flow
holds, and replaced where it does not (new content, scene cuts).
"""

from __future__ import annotations

import base64

import numpy as np

from stereo_inference.arrays import is_tensor
from stereo_inference.depth.contact import contact_depth
from stereo_inference.depth.guided import guided_filter
from stereo_inference.depth.parallax import FlowField, parallax, warp_back

WIDTH = 128
BLEND = 0.15  # weight of a new estimate where the flow holds
REPLACE_POWER = 2  # how fast a worse flow match hands over to the new estimate
STILL_PX = 0.12  # median flow below this: the camera stands still
CUT_CONSISTENCY = 0.35
RANGE_DECAY = 0.8  # mean flow consistency below this: a new shot


class HeuristicDepth:
    name = "heuristic"
    max_batch = None  # cheap per frame: any batch fits

    def __init__(self, device) -> None:
        self.device = device
        self._flow = FlowField()
        self._prev: np.ndarray | None = None  # last grey frame (uint8)
        self._depth: np.ndarray | None = None  # accumulated depth of that frame
        self._range: tuple[float, float] | None = None  # running parallax range

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        w = min(WIDTH, width)
        return w, max(8, round(height * w / width))

    def state(self) -> dict | None:
        """The last frame and its depth (JSON), for the next segment; None before any."""
        if self._prev is None or self._depth is None:
            return None
        return {"shape": list(self._prev.shape), "range": self._range,
                "gray": base64.b64encode(self._prev.tobytes()).decode(),
                "depth": base64.b64encode(self._depth.astype(np.float16).tobytes()).decode()}

    def restore(self, state: dict) -> None:
        """Continue from ``state()`` of the previous segment (ignored when malformed)."""
        try:
            h, w = (int(v) for v in state["shape"])
            prev = np.frombuffer(base64.b64decode(state["gray"]), np.uint8).reshape(h, w)
            depth = np.frombuffer(base64.b64decode(state["depth"]), np.float16).reshape(h, w)
            rng = state.get("range")
        except (KeyError, TypeError, ValueError):
            return
        self._prev, self._depth = prev.copy(), depth.astype(np.float32)
        self._range = (float(rng[0]), float(rng[1])) if rng else None

    def estimate(self, rgb):
        """Depth of frames (B,3,h,w): numpy in, numpy out (no torch); a tensor in,
        a tensor on this estimator's device out."""
        if not is_tensor(rgb):
            return np.stack([self._step(np.ascontiguousarray(f.transpose(1, 2, 0),
                                                             dtype=np.float32))
                             for f in rgb])[:, None]
        import torch

        out = self.estimate(rgb.detach().to("cpu", torch.float32).numpy())
        return torch.from_numpy(out).to(self.device)

    def _step(self, rgb: np.ndarray) -> np.ndarray:
        gray = rgb @ np.array([0.299, 0.587, 0.114], np.float32)
        gray8 = np.clip(gray * 255 + 0.5, 0, 255).astype(np.uint8)
        new = contact_depth(rgb)  # things as near as the ground where they stand
        prev, self._prev = self._prev, gray8
        if prev is None or prev.shape != gray8.shape:
            self._depth, self._range = guided_filter(gray, new), None
            return self._depth
        flow, consistency = self._flow.backward(gray8, prev)
        if float(consistency.mean()) < CUT_CONSISTENCY:
            self._depth, self._range = guided_filter(gray, new), None
            return self._depth
        new = guided_filter(gray, self._with_motion(new, flow, consistency))
        held = warp_back(self._depth, flow)
        weight = BLEND + (1 - BLEND) * (1 - consistency) ** REPLACE_POWER
        self._depth = (held + weight * (new - held)).astype(np.float32)
        return self._depth

    def _with_motion(self, static: np.ndarray, flow: np.ndarray,
                     consistency: np.ndarray) -> np.ndarray:
        """The static estimate, replaced by parallax depth as far as it can be trusted."""
        speed = np.hypot(flow[..., 0], flow[..., 1])
        if float(np.median(speed)) < STILL_PX:  # still camera: lift what moves
            lift = np.clip((speed - 2 * STILL_PX) / 1.0, 0, 1) * consistency
            return static + 0.5 * lift
        p = parallax(flow, consistency)
        trusted = p.inverse_depth[consistency > 0.5]
        if trusted.size < 32:
            return static
        lo, p10, mid, p90, hi = np.quantile(trusted, (0.02, 0.1, 0.5, 0.9, 0.98))
        spread = (p90 - p10) / max(abs(mid), 1e-6)
        if self._range is not None:  # a steady scale: no pumping with the speed
            lo = RANGE_DECAY * self._range[0] + (1 - RANGE_DECAY) * lo
            hi = RANGE_DECAY * self._range[1] + (1 - RANGE_DECAY) * hi
        self._range = (float(lo), float(hi))
        trust = float(np.clip((spread - 0.4) / 0.6, 0, 1))  # a pan moves all alike
        motion = np.clip((p.inverse_depth - lo) / max(hi - lo, 1e-6), 0, 1)
        return static + trust * consistency * (motion - static)
