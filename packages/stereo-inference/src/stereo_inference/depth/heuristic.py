"""Depth without weights: motion parallax where the camera moves, a ramp elsewhere.

Each frame's dense optical flow against a reference frame (``parallax``) gives
real relative depth whenever the camera translates: nearer things move more.
A shot's first frame is read against several frames ahead, from the frames
the engine decodes past the batch, at three times the working width, and the
readings combined (``shot_start``); later ones against the frame as far back
as the shot's pace needs (``baseline``: several frames when the camera moves
slowly, read at twice the working width). Each is turned into steady 0..1
nearness (``parallax_depth``) and counts as far as the camera-motion fit
explains the flow; a reading it does not explain leaves the shot's depth as
it is. Where motion says nothing (a
still camera, a pure pan) a plain ramp decides (bottom nearest): on the real photographs of
``bench/depth_real.py`` no image cue tried (ground contact, texture, blur,
saturation, brightness, per-region mixes) ordered better than it by more than
noise, and ground contact, a third of the old cue, ordered one of them worse
than the ramp alone (docs/BENCHMARKS.md). On a still camera
whatever moves is lifted towards the viewer (within the static range, so the
depth range does not jump when something enters), and the rest holds its
depth: the camera counts as still by the motion across strong edges, where
flow is measured (in flat areas DIS only guesses, from whatever moves
nearby), unless that motion grows over farther references and the camera
model explains it (a slow orbit: ``still_camera.still_over``), and past a
shot's first frames its depth follows new estimates only
where the picture changed lately, so walls do not shimmer as people pass.
The blend is refined along the image's edges (``guided``) and accumulated
over time: the previous depth, moved by the flow, is blended with the new
estimate where the flow holds (at 1/(n+1)^2 on a shot's n-th frame: its
first frame's combined reading is the best it gets; then a slow exponential
mean), and replaced where it does not (new content)
or when most of the frame fails to match (a scene cut). The parallax is read
afresh every few frames after the first, moved along the flow in between.
What travels to the next segment: ``heuristic_state``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import cv2
import numpy as np

from stereo_inference.arrays import is_tensor
from stereo_inference.depth.baseline import FINE, Baseline, movement, reach
from stereo_inference.depth.guided import guided_filter
from stereo_inference.depth.heuristic_state import Saved, pack, unpack
from stereo_inference.depth.parallax import (
    FlowField,
    Parallax,
    across_cut,
    parallax,
    warp_back,
)
from stereo_inference.depth.parallax_depth import ParallaxScale
from stereo_inference.depth.shot_start import CANDIDATES, read_first
from stereo_inference.depth.still_camera import (
    SETTLING_FRAMES,
    STILL_PX,
    changed,
    recent_change,
    still_over,
)

WIDTH = 128
_LUMA = np.array([0.299, 0.587, 0.114], np.float32)
BLEND = 0.07  # weight of a new estimate where the flow holds (after the first frames)
REPLACE_POWER = 2  # how fast a worse flow match hands over to the new estimate
# The parallax (a flow to the reference frame at twice the working width, two
# motion fits) is read afresh on a shot's first frame (against several frames
# ahead: ``shot_start``), every MOTION_EVERY-th frame and where new content
# came in (NEW_CONTENT of the frame matching badly); in between the last
# reading moves along the flow. Every 8th frame and 5 % new content, against
# every 4th and 2 %, since the first frame's combined reading carries the shot:
# the tuned real scenes' moving shots order the same (first 0.949 / 0.903,
# over the shot 0.948 / 0.904, flicker 0.315 -> 0.314) for 1.34x the old
# engine's CPU instead of 1.50x (bench/depth_real.py --cv-threads 1).
MOTION_EVERY = 8
FRESH_FRAMES = 1
# DIS patch stride of the flow to the reference at twice the working width:
# the preset's 4 cost 6.5 ms a flow, 6 costs 3.2 (the tuned real scenes' moving
# shots: first frame 0.910 either way)
FINE_STRIDE = 6
NEW_CONTENT = 0.05
# parallax trusted this far makes motion that grows over the references a camera's
# (``still_camera.still_over``), not things moving in a still shot
MOVING_TRUST = 0.5


class HeuristicDepth:
    name = "heuristic"
    max_batch: int | None = None  # cheap per frame: any batch fits
    lookahead = max(CANDIDATES)  # frames after a batch a shot's first frame reads against

    def __init__(self, device) -> None:
        self.device = device
        self._flow = FlowField()
        self._fine_flow = FlowField(patch_stride=FINE_STRIDE)  # to the reference, at 256 px
        self._prev: np.ndarray | None = None  # last grey frame (uint8)
        self._prev_fine: np.ndarray | None = None  # the same at the input size
        self._depth: np.ndarray | None = None  # accumulated depth of that frame
        self._scale = ParallaxScale()  # the shot's parallax readings' running range
        self._age = 0  # frames accumulated since the shot started
        self._recent: np.ndarray | None = None  # where a still shot changed lately (0..1)
        self._baseline = Baseline()  # the shot's recent frames and pace
        self._cue: np.ndarray | None = None  # the last static + parallax reading
        self._still = False  # whether that reading found the camera still
        self._ahead: list[np.ndarray] | None = None  # frames after the next batch
        self.references: list[int] = []  # per frame, how far its parallax was read (for tests)

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        """Frames at twice the working width: a slow motion's flow is read there
        (``baseline``); the rest works on them shrunk to WIDTH."""
        w = min(WIDTH * FINE, width)
        return w, max(8, round(height * w / width))

    def state(self) -> dict | None:
        """The last frame and its depth (JSON), for the next segment; None before any."""
        if self._prev is None or self._depth is None:
            return None
        return pack(Saved(self._prev, self._depth, self._age, self._baseline.pace,
                          self._scale.range, self._still, self._recent, self._cue))

    def restore(self, state: dict) -> None:
        """Continue from ``state()`` of the previous segment (ignored when malformed)."""
        saved = unpack(state)
        if saved is None:
            return
        self._prev, self._depth, self._age = saved.gray, saved.depth, saved.age
        self._recent, self._cue, self._still = saved.recent, saved.cue, saved.still
        self._baseline.reset()  # its frames stay behind; the shot's pace comes along
        self._baseline.pace = saved.pace
        self._scale.range = saved.range

    def estimate(self, rgb):
        """Depth of frames (B,3,h,w): numpy in, numpy out (no torch); a tensor in,
        a tensor on this estimator's device out."""
        if is_tensor(rgb):
            import torch

            out = self.estimate(rgb.detach().to("cpu", torch.float32).numpy())
            return torch.from_numpy(out).to(self.device)
        fine = [_LUMA[0] * f[0] + _LUMA[1] * f[1] + _LUMA[2] * f[2] for f in rgb]  # grey 0..1
        fine8 = [_to8(f * 255) for f in fine]
        size = _working_size(fine[0].shape[1], fine[0].shape[0])
        grays = [(f if f.shape[1] == size[0] else cv2.resize(f, size, interpolation=cv2.INTER_AREA)
                  ).astype(np.float32, copy=False) for f in fine]
        grays8 = [_to8(g * 255) for g in grays]
        ahead = _Greys(self._ahead)
        self._ahead = None
        return np.stack([self._step(g, g8, f8, lambda i=i: [*fine8[i + 1:], *ahead.get()])
                         for i, (g, g8, f8) in enumerate(zip(grays, grays8, fine8, strict=True))
                         ])[:, None]

    def look_ahead(self, frames: Sequence[np.ndarray]) -> None:
        """The frames ((h,w,3) uint8 each) at the input size that follow the next batch
        (``lookahead`` of them at most): a shot's first frames read their
        parallax against them. Forgotten after that batch."""
        self._ahead = list(frames[: self.lookahead])  # made grey only if a frame needs them

    def _step(self, gray: np.ndarray, gray8: np.ndarray, fine8: np.ndarray,
              following: Callable[[], list[np.ndarray]]) -> np.ndarray:
        """One frame's depth: ``gray`` and ``gray8`` at the working size, ``fine8``
        and the ``following`` frames' grey (asked for only when needed: a shot's
        first frames) at the input size."""
        prev, self._prev = self._prev, gray8
        if prev is None or prev.shape != gray8.shape:
            return self._start(gray, gray8, fine8, following())
        flow, consistency = self._flow.backward(gray8, prev)
        if across_cut(consistency):
            return self._start(gray, gray8, fine8, following())
        self._age += 1
        self._baseline.push(self._prev_fine, movement(flow, consistency))
        self._prev_fine = fine8
        fresh = (self._cue is None or self._cue.shape != consistency.shape
                 or self._age < FRESH_FRAMES or self._age % MOTION_EVERY == 0
                 or float(np.mean(consistency < 0.5)) > NEW_CONTENT)
        fit, away = None, 0
        if fresh:
            rflow, rconsistency, away = self._reference_motion(fine8, following,
                                                               (flow, consistency, -1))
            fit = functools.cache(lambda: parallax(rflow, rconsistency))  # fitted once, if asked
            # A camera that moved keeps moving while its motion across edges grows
            # from the adjacent frame to the reference and the motion model explains
            # it (a slow orbit; things moving in a still shot can look alike).
            moved = not self._still
            self._still = still_over(
                [(1, flow)] if rflow is flow else [(1, flow), (abs(away), rflow)], gray8,
                lambda: moved and fit().trust >= MOVING_TRUST)
        change = None
        if self._still:
            change = changed(gray8, prev)  # a still camera: what did not change rests
            flow = flow * change[..., None]
        held = warp_back(self._depth, flow)
        static = _ramp(*gray.shape)
        if fresh:
            self._cue = self._with_motion(static, fit, away, flow, consistency, self._still,
                                          held)
        else:  # between readings the last one moves with the picture
            self._cue = warp_back(self._cue, flow)
        new = guided_filter(gray, self._cue)
        # The first frames' single readings count less and less against the
        # shot's first, combined one (a running mean of them let the slow
        # sway's depth drift), then an exponential mean.
        blend = max(BLEND, 1 / (self._age + 1) ** 2)
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

    def _start(self, gray: np.ndarray, gray8: np.ndarray, fine8: np.ndarray,
               following: list[np.ndarray]) -> np.ndarray:
        """A new shot (or the first frame): nothing to hold. Its motion is read
        against the frames that follow (the batch's, then the lookahead's), so
        that the shot's first depth already has the parallax the next ones will
        have: the next frame gives the pace, the pace how far ahead to look."""
        self._age, self._prev_fine, self._cue = 0, fine8, None
        self._still = True  # until the frames ahead show the camera moving
        self._scale.reset()
        self._baseline.reset()
        new = _ramp(*gray.shape)
        following = [f for f in following if f.shape == fine8.shape]
        if following:
            size = gray8.shape[::-1]
            nxt = following[0] if following[0].shape == gray8.shape else cv2.resize(
                following[0], size, interpolation=cv2.INTER_AREA)
            flow, consistency = self._flow.backward(gray8, nxt)
            if not across_cut(consistency):
                self._baseline.pace = movement(flow, consistency)
                # how far ahead to read: as far as neither the typical movement nor
                # the picture's against itself (an orbit's) outruns the flow
                reading = read_first(self._fine_flow, fine8, following,
                                     reach(flow, consistency), size, new)
                if reading is not None:
                    self.references.append(reading.frames[-1] if reading.frames else 1)
                    self._still = still_over(reading.flows, gray8,
                                             lambda: reading.trust >= MOVING_TRUST)
                    if self._still:
                        flow = flow * changed(gray8, nxt)[..., None]
                        new = self._with_motion(new, None, 0, flow, consistency, True)
                    elif reading.trust > 0:
                        everywhere = np.ones_like(reading.inverse_depth)  # it is filled in
                        # oriented already, reading by reading (``read_first``): turned
                        # again against the ramp as a whole, KITTI's drive under a
                        # bridge (near at the top) read reversed, 0.36
                        depth = self._scale.nearness(reading.inverse_depth, everywhere, 1, new,
                                                     oriented=True)
                        new = new + reading.trust * (depth - new)
        self._depth = guided_filter(gray, new)
        return self._depth

    def _reference_motion(self, fine8: np.ndarray, following: Callable[[], list[np.ndarray]],
                          near: tuple[np.ndarray, np.ndarray, int]
                          ) -> tuple[np.ndarray, np.ndarray, int]:
        """(flow, consistency, frames away) at the working size against the frame
        the shot's pace asks for (``baseline``); ``near`` is the flow to the
        adjacent frame, kept when the pace asks for no other or none matches."""
        size = near[1].shape[::-1]
        if self._baseline.frames_needed() == 1:  # fast: the adjacent frame, read already
            self.references.append(near[2])
            return near
        ahead = [] if len(self._baseline.past) >= self._baseline.frames_needed() else [
            f for f in following() if f.shape == fine8.shape]
        motion = self._baseline.read(self._fine_flow, fine8, ahead, size)
        if motion is None or across_cut(motion[1]):
            self.references.append(near[2])
            return near
        self.references.append(motion[2])
        return motion

    def _with_motion(self, static: np.ndarray, fit: Callable[[], Parallax] | None, away: int,
                     flow: np.ndarray, consistency: np.ndarray, still: bool,
                     held: np.ndarray | None = None) -> np.ndarray:
        """What the shot knows (``held``: its depth so far, moved to this frame;
        else the static estimate), replaced by parallax depth (``fit``: the
        reading over ``away`` frames, fitted when first asked) as far as the motion
        model explains it, and taking the direction that agrees with it. A
        reading the model does not trust changes nothing: a sway's weak
        readings no longer pulled the shot's depth towards the ramp (on the
        tuned real scenes the slow sway's depth had drifted from 0.91 on the
        first frame to 0.73 on the 24th). In a still shot (``still``) what
        moves (``flow`` to the adjacent frame, at rest where nothing changed)
        is lifted instead, over the static estimate."""
        if still:  # lift what moves
            speed = np.hypot(flow[..., 0], flow[..., 1])
            lift = np.clip((speed - 2 * STILL_PX) / 1.0, 0, 1) * consistency
            # within the static range: the depth range stays put as things enter
            return np.minimum(static + 0.5 * lift, 1.0)
        known = held if held is not None else static
        if fit is None:
            return known
        p = fit()
        inverse, weight = p.unbiased()  # near the focus of expansion what the shot knows holds
        if np.count_nonzero(weight > 0.5) < 32 or p.trust <= 0:
            return known
        depth = self._scale.nearness(inverse, weight, away, known, oriented=p.sure_side)
        return known + p.trust * weight * (depth - known)


class _Greys:
    """The grey of a batch's lookahead frames, made on first use (most batches
    never need them: only a shot's first frames read against frames ahead)."""

    def __init__(self, frames: list[np.ndarray] | None) -> None:
        self._frames = frames
        self._greys: list[np.ndarray] | None = None

    def get(self) -> list[np.ndarray]:
        if self._greys is None:
            self._greys = [] if self._frames is None else [
                cv2.cvtColor(np.ascontiguousarray(f), cv2.COLOR_RGB2GRAY) for f in self._frames]
        return self._greys


def _ramp(h: int, w: int) -> np.ndarray:
    """The static cue: nearness growing from the top row (0) to the bottom (1)."""
    return np.broadcast_to(np.linspace(0, 1, h, dtype=np.float32)[:, None], (h, w))


def _working_size(width: int, height: int) -> tuple[int, int]:
    """(w, h) the cues work at for input frames of ``width`` x ``height``."""
    w = min(WIDTH, width)
    return w, max(8, round(height * w / width))


def _to8(grey255: np.ndarray) -> np.ndarray:
    """uint8 of grey values in 0..255 (float), rounded."""
    return np.clip(grey255 + 0.5, 0, 255).astype(np.uint8)
