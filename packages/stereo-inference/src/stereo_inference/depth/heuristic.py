"""Depth without weights: motion parallax where the camera moves, image cues elsewhere.

Each frame's dense optical flow against the previous one (``parallax``) gives
real relative depth whenever the camera translates: nearer things move more.
Where motion says nothing (a still camera, a pure pan) the ground-contact cue
decides (``contact``): the floor is nearer lower in the frame, and whatever
stands on it is as near as the line where it meets it. On a still camera
whatever moves is lifted towards the viewer (within the static range, so the
depth range does not jump when something enters), and the rest holds its
depth: the camera counts as still by the motion across strong edges, where
flow is measured (in flat areas DIS only guesses, from whatever moves
nearby), and past a shot's first frames its depth follows new estimates only
where the picture changed lately, so walls do not shimmer as people pass.
The blend is refined along the image's edges (``guided``) and accumulated
over time: the previous depth, moved by the flow, is blended with the new
estimate where the flow holds (a running mean over a shot's first frames,
then a slow exponential one), and replaced where it does not (new content)
or when most of the frame fails to match (a scene cut). A shot's first frame
reads its motion against the next frame of the batch, so the parallax does
not arrive one frame late. The ground-contact cue, the costliest part, is
computed afresh on a shot's first frames, every few frames after and
wherever new content comes in; in between the last one is moved along the
flow (it enters the held depth with a small weight, so this costs no
measurable accuracy).
"""

from __future__ import annotations

import base64

import numpy as np

from stereo_inference.arrays import is_tensor
from stereo_inference.depth.contact import contact_depth
from stereo_inference.depth.guided import guided_filter
from stereo_inference.depth.parallax import FlowField, parallax, warp_back
from stereo_inference.depth.regions import build_tables_soon
from stereo_inference.depth.still_camera import SETTLING_FRAMES, STILL_PX, recent_change, settle

WIDTH = 128
_LUMA = np.array([0.299, 0.587, 0.114], np.float32)
BLEND = 0.07  # weight of a new estimate where the flow holds (after the first frames)
REPLACE_POWER = 2  # how fast a worse flow match hands over to the new estimate
CUT_CONSISTENCY = 0.6  # mean flow consistency below this: a new shot (within a shot ~0.95)
RANGE_DECAY = 0.8  # share of the running parallax range kept each frame
# The static cue (ground contact, ~half the cost) enters with BLEND once a shot
# is a few frames old: it is computed afresh on a shot's first FRESH_FRAMES,
# every STATIC_EVERY-th frame after, and whenever more than NEW_CONTENT of the
# frame fails to match the last one; in between the last one moves with the flow.
STATIC_EVERY = 4
FRESH_FRAMES = 3
NEW_CONTENT = 0.02


class HeuristicDepth:
    name = "heuristic"
    max_batch: int | None = None  # cheap per frame: any batch fits

    def __init__(self, device) -> None:
        self.device = device
        self._flow = FlowField()
        self._prev: np.ndarray | None = None  # last grey frame (uint8)
        self._depth: np.ndarray | None = None  # accumulated depth of that frame
        self._range: tuple[float, float] | None = None  # running parallax range
        self._age = 0  # frames accumulated since the shot started
        self._static: np.ndarray | None = None  # the last static cue, on that frame
        self._recent: np.ndarray | None = None  # where a still shot changed lately (0..1)
        self.static_cues = 0  # how many frames got a fresh static cue (for tests)
        build_tables_soon()  # while the decoder opens, not on the first frame

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        w = min(WIDTH, width)
        return w, max(8, round(height * w / width))

    def state(self) -> dict | None:
        """The last frame and its depth (JSON), for the next segment; None before any."""
        if self._prev is None or self._depth is None:
            return None
        state = {"shape": list(self._prev.shape), "range": self._range, "age": self._age,
                 "gray": _encode(self._prev), "depth": _encode(self._depth.astype(np.float16))}
        for key, value in (("static", self._static), ("recent", self._recent)):
            if value is not None:
                state[key] = _encode(value.astype(np.float16))
        return state

    def restore(self, state: dict) -> None:
        """Continue from ``state()`` of the previous segment (ignored when malformed)."""
        try:
            h, w = (int(v) for v in state["shape"])
            prev = np.frombuffer(base64.b64decode(state["gray"]), np.uint8).reshape(h, w)
            depth = np.frombuffer(base64.b64decode(state["depth"]), np.float16).reshape(h, w)
            rng = state.get("range")
            age = int(state.get("age", 1000))
            # absent from older states: the static cue computed afresh, no recent change
            static, recent = (_decode(state.get(key), h, w) for key in ("static", "recent"))
        except (KeyError, TypeError, ValueError):
            return
        self._prev, self._depth, self._age = prev.copy(), depth.astype(np.float32), age
        self._static, self._recent = static, recent
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
        prev, self._prev = self._prev, gray8
        if prev is None or prev.shape != gray8.shape:
            return self._start(rgb, gray, gray8, following)
        flow, consistency = self._flow.backward(gray8, prev)
        if float(consistency.mean()) < CUT_CONSISTENCY:
            return self._start(rgb, gray, gray8, following)
        self._age += 1
        flow, change = settle(flow, gray8, prev)
        new = guided_filter(gray, self._with_motion(self._static_cue(rgb, flow, consistency),
                                                    flow, consistency, change is not None))
        held = warp_back(self._depth, flow)
        # A running mean over the shot's first frames (no long drift away from
        # the first estimate), then an exponential one.
        blend = max(BLEND, 1 / (self._age + 1))
        weight = self._where_changed(blend + (1 - blend) * (1 - consistency) ** REPLACE_POWER,
                                     change, flow)
        self._depth = (held + weight * (new - held)).astype(np.float32)
        return self._depth

    def _where_changed(self, weight: np.ndarray, change: np.ndarray | None,
                       flow: np.ndarray) -> np.ndarray:
        """``weight`` (of the new estimate) kept only where the picture changed
        lately (``still_camera.recent_change``), in a still shot (``change`` not
        None) past its first frames; elsewhere the depth stays as it is."""
        if change is None or self._age < SETTLING_FRAMES:
            self._recent = None
            return weight
        self._recent = recent_change(self._recent, change, flow)
        return weight * self._recent

    def _static_cue(self, rgb: np.ndarray, flow: np.ndarray, consistency: np.ndarray
                    ) -> np.ndarray:
        """Things as near as the ground where they stand: afresh on a shot's first
        frames, every STATIC_EVERY-th frame and where new content came in, else
        the last one moved along the flow."""
        if (self._static is None or self._static.shape != consistency.shape
                or self._age < FRESH_FRAMES or self._age % STATIC_EVERY == 0
                or float(np.mean(consistency < 0.5)) > NEW_CONTENT):
            return self._fresh_static(rgb)
        self._static = warp_back(self._static, flow)
        return self._static

    def _fresh_static(self, rgb: np.ndarray) -> np.ndarray:
        self._static = contact_depth(rgb)
        self.static_cues += 1
        return self._static

    def _start(self, rgb: np.ndarray, gray: np.ndarray, gray8: np.ndarray,
               following: np.ndarray | None) -> np.ndarray:
        """A new shot (or the first frame): nothing to hold. Its motion is read
        against the following frame, when the batch has it, so that the shot's
        first depth already has the parallax the next ones will have."""
        self._range, self._age = None, 0
        new = self._fresh_static(rgb)
        if following is not None and following.shape == gray8.shape:
            flow, consistency = self._flow.backward(gray8, following)
            if float(consistency.mean()) >= CUT_CONSISTENCY:
                flow, change = settle(flow, gray8, following)
                new = self._with_motion(new, flow, consistency, change is not None)
        self._depth = guided_filter(gray, new)
        return self._depth

    def _with_motion(self, static: np.ndarray, flow: np.ndarray, consistency: np.ndarray,
                     still: bool) -> np.ndarray:
        """The static estimate, replaced by parallax depth as far as it can be trusted
        (``flow`` and ``still`` as ``settle`` gives them)."""
        if still:  # lift what moves
            speed = np.hypot(flow[..., 0], flow[..., 1])
            lift = np.clip((speed - 2 * STILL_PX) / 1.0, 0, 1) * consistency
            # within the static range: the depth range stays put as things enter
            return np.minimum(static + 0.5 * lift, 1.0)
        p = parallax(flow, consistency)
        trusted = p.inverse_depth[consistency > 0.5]
        if trusted.size < 32:
            return static
        lo, p10, mid, p90, hi = np.quantile(trusted[::4], (0.02, 0.1, 0.5, 0.9, 0.98))
        spread = (p90 - p10) / max(abs(mid), 1e-6)
        if self._range is not None:  # a steady scale: no pumping with the speed
            lo = RANGE_DECAY * self._range[0] + (1 - RANGE_DECAY) * lo
            hi = RANGE_DECAY * self._range[1] + (1 - RANGE_DECAY) * hi
        self._range = (float(lo), float(hi))
        trust = float(np.clip((spread - 0.4) / 0.6, 0, 1))  # a pan moves all alike
        motion = np.clip((p.inverse_depth - lo) / max(hi - lo, 1e-6), 0, 1)
        return static + trust * consistency * (motion - static)


def _encode(array: np.ndarray) -> str:
    return base64.b64encode(array.tobytes()).decode()


def _decode(text: str | None, h: int, w: int) -> np.ndarray | None:
    """The (h, w) float16 map ``_encode`` wrote, as float32; None for None."""
    if text is None:
        return None
    return np.frombuffer(base64.b64decode(text), np.float16).reshape(h, w).astype(np.float32)
