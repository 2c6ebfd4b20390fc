"""Depth without weights: motion parallax where the camera moves, image cues elsewhere.

Each frame's dense optical flow against the previous one (``parallax``) gives
real relative depth whenever the camera translates: nearer things move more.
Where motion says nothing (a still camera, a pure pan) the ground-contact cue
decides (``contact``): the floor is nearer lower in the frame, and whatever
stands on it is as near as the line where it meets it. On a still camera
whatever moves is lifted towards the viewer (within the static range, so the
depth range does not jump when something enters). The blend is refined along
the image's edges (``guided``) and accumulated over time: the previous depth,
moved by the flow, is blended with the new estimate where the flow holds (a
running mean over a shot's first frames, then a slow exponential one), and
replaced where it does not (new content) or when most of the frame fails to
match (a scene cut). A shot's first frame reads its motion against the next
frame of the batch, so the parallax does not arrive one frame late.
"""

from __future__ import annotations

import base64

import numpy as np

from stereo_inference.arrays import is_tensor
from stereo_inference.depth.contact import contact_depth
from stereo_inference.depth.guided import guided_filter
from stereo_inference.depth.parallax import FlowField, parallax, warp_back

WIDTH = 128
_LUMA = np.array([0.299, 0.587, 0.114], np.float32)
BLEND = 0.07  # weight of a new estimate where the flow holds (after the first frames)
REPLACE_POWER = 2  # how fast a worse flow match hands over to the new estimate
STILL_PX = 0.12  # median flow below this: the camera stands still
CUT_CONSISTENCY = 0.6  # mean flow consistency below this: a new shot (within a shot ~0.95)
RANGE_DECAY = 0.8  # share of the running parallax range kept each frame


class HeuristicDepth:
    name = "heuristic"
    max_batch = None  # cheap per frame: any batch fits

    def __init__(self, device) -> None:
        self.device = device
        self._flow = FlowField()
        self._prev: np.ndarray | None = None  # last grey frame (uint8)
        self._depth: np.ndarray | None = None  # accumulated depth of that frame
        self._range: tuple[float, float] | None = None  # running parallax range
        self._age = 0  # frames accumulated since the shot started

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        w = min(WIDTH, width)
        return w, max(8, round(height * w / width))

    def state(self) -> dict | None:
        """The last frame and its depth (JSON), for the next segment; None before any."""
        if self._prev is None or self._depth is None:
            return None
        return {"shape": list(self._prev.shape), "range": self._range, "age": self._age,
                "gray": base64.b64encode(self._prev.tobytes()).decode(),
                "depth": base64.b64encode(self._depth.astype(np.float16).tobytes()).decode()}

    def restore(self, state: dict) -> None:
        """Continue from ``state()`` of the previous segment (ignored when malformed)."""
        try:
            h, w = (int(v) for v in state["shape"])
            prev = np.frombuffer(base64.b64decode(state["gray"]), np.uint8).reshape(h, w)
            depth = np.frombuffer(base64.b64decode(state["depth"]), np.float16).reshape(h, w)
            rng = state.get("range")
            age = int(state.get("age", 1000))
        except (KeyError, TypeError, ValueError):
            return
        self._prev, self._depth, self._age = prev.copy(), depth.astype(np.float32), age
        self._range = (float(rng[0]), float(rng[1])) if rng else None

    def estimate(self, rgb):
        """Depth of frames (B,3,h,w): numpy in, numpy out (no torch); a tensor in,
        a tensor on this estimator's device out."""
        if is_tensor(rgb):
            import torch

            out = self.estimate(rgb.detach().to("cpu", torch.float32).numpy())
            return torch.from_numpy(out).to(self.device)
        frames = [np.ascontiguousarray(f.transpose(1, 2, 0), dtype=np.float32) for f in rgb]
        grays = [f @ _LUMA for f in frames]
        grays8 = [np.clip(g * 255 + 0.5, 0, 255).astype(np.uint8) for g in grays]
        following = [*grays8[1:], None]
        return np.stack([self._step(f, g, g8, nxt) for f, g, g8, nxt
                         in zip(frames, grays, grays8, following, strict=True)])[:, None]

    def _step(self, rgb: np.ndarray, gray: np.ndarray, gray8: np.ndarray,
              following: np.ndarray | None) -> np.ndarray:
        new = contact_depth(rgb)  # things as near as the ground where they stand
        prev, self._prev = self._prev, gray8
        if prev is None or prev.shape != gray8.shape:
            return self._start(gray, new, following)
        flow, consistency = self._flow.backward(gray8, prev)
        if float(consistency.mean()) < CUT_CONSISTENCY:
            return self._start(gray, new, following)
        new = guided_filter(gray, self._with_motion(new, flow, consistency))
        held = warp_back(self._depth, flow)
        # A running mean over the shot's first frames (no long drift away from
        # the first estimate), then an exponential one.
        self._age += 1
        blend = max(BLEND, 1 / (self._age + 1))
        weight = blend + (1 - blend) * (1 - consistency) ** REPLACE_POWER
        self._depth = (held + weight * (new - held)).astype(np.float32)
        return self._depth

    def _start(self, gray: np.ndarray, new: np.ndarray, following: np.ndarray | None
               ) -> np.ndarray:
        """A new shot (or the first frame): nothing to hold. Its motion is read
        against the following frame, when the batch has it, so that the shot's
        first depth already has the parallax the next ones will have."""
        self._range, self._age = None, 0
        if following is not None and following.shape == self._prev.shape:
            flow, consistency = self._flow.backward(self._prev, following)
            if float(consistency.mean()) >= CUT_CONSISTENCY:
                new = self._with_motion(new, flow, consistency)
        self._depth = guided_filter(gray, new)
        return self._depth

    def _with_motion(self, static: np.ndarray, flow: np.ndarray,
                     consistency: np.ndarray) -> np.ndarray:
        """The static estimate, replaced by parallax depth as far as it can be trusted."""
        speed = np.hypot(flow[..., 0], flow[..., 1])
        if float(np.median(speed)) < STILL_PX:  # still camera: lift what moves
            lift = np.clip((speed - 2 * STILL_PX) / 1.0, 0, 1) * consistency
            # within the static range: the depth range stays put as things enter
            return np.minimum(static + 0.5 * lift, 1.0)
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
