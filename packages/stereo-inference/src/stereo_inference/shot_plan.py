"""Per-frame stereo decisions taken in frame order, in the depth stage.

The render stage runs several batches at once in any order, so whatever
depends on the frames before (the screen plane of ``--auto-convergence``,
``--comfort fix``'s per-shot strength, the floating window, the comfort
report) is decided here, on the small depth maps, as each batch's depth is
made; the render only reads the ``FramePlan`` it left on the batch.

- ``--comfort fix``: each shot's strength is the largest that has kept every
  frame of it so far inside the zone; it only goes down within a shot (no
  pumping) and is set afresh at a cut. The shaping's limits then clip the rest.
- Floating window: when something in front of the screen touches the left
  border, the left eye's strip as wide as its crossed disparity is masked
  black (the right border: the right eye's), so the window edge sits in front
  of it. The width rises at once and falls by ``WINDOW_FALL`` a frame.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from shared_types.models import ComfortAction, ConversionParams

from stereo_inference.arrays import to_numpy
from stereo_inference.comfort_report import ComfortRecorder
from stereo_inference.convergence import (
    THUMB,
    AutoConvergence,
    ShotCuts,
    subject_depth,
    thumbnails,
)
from stereo_inference.shaping import Shaping, curved, total_disparity
from stereo_inference.viewing import viewing_of

STATE_VERSION = 1
EDGE_BAND = 0.03  # the border band checked for near objects, of the width
WINDOW_FALL = 0.9


@dataclass
class FramePlan:
    """What the render applies to one batch; None: nothing of that kind."""

    convergence: np.ndarray | None = None  # (B,) screen plane per frame
    strength: np.ndarray | None = None  # (B,) disparity scale per frame
    window: np.ndarray | None = None  # (B,2) masked strip px: left eye's left, right eye's right


class ShotPlanner:
    """``state`` (from ``state()`` after the previous segment of the same video)
    continues its shot: the cut check, the screen plane, the strength and the
    window go on as if the two segments were one conversion."""

    def __init__(self, params: ConversionParams, shaping: Shaping, frame_s: float,
                 state: dict | None = None) -> None:
        self.shaping = shaping
        self.auto = AutoConvergence() if params.auto_convergence else None
        self.fix = params.comfort is ComfortAction.FIX and shaping.limits is not None
        self.window_on = params.floating_window
        self.recorder = None
        if params.comfort is not ComfortAction.OFF:
            self.recorder = ComfortRecorder(
                shaping.width, frame_s, viewing_of(params), shaping.limits,
                preset=None if params.viewing is None else params.viewing.value,
                fixed=self.fix)
        self.cuts = ShotCuts()
        self.strength = 1.0
        self.window = np.zeros(2, np.float32)
        self.first = True
        if state and state.get("version") == STATE_VERSION:
            self._restore(state)

    def state(self) -> dict | None:
        """JSON-ready state for the next segment (None before any frame)."""
        if self.cuts.last is None:
            return None
        return {"version": STATE_VERSION,
                "thumb": [round(float(v), 4) for v in self.cuts.last.ravel()],
                "change": self.cuts.change,
                "plane": None if self.auto is None else self.auto.value,
                "strength": self.strength,
                # of the width: a warm-up (``seams``) does not know the layout's eye width
                "window": [float(v) / self.shaping.width for v in self.window]}

    def _restore(self, state: dict) -> None:
        thumb = state.get("thumb")
        if not (isinstance(thumb, list) and len(thumb) == THUMB[0] * THUMB[1]):
            return
        self.cuts.last = np.asarray(thumb, np.float32).reshape(THUMB)
        change = state.get("change")
        self.cuts.change = float(change) if isinstance(change, (int, float)) else None
        if self.auto is not None and isinstance(state.get("plane"), (int, float)):
            self.auto.value = float(state["plane"])
        if isinstance(state.get("strength"), (int, float)):
            self.strength = float(state["strength"])
        window = state.get("window")
        if isinstance(window, list) and len(window) == 2:
            self.window = np.asarray(window, np.float32) * self.shaping.width
        self.first = False  # the first frame's cut check is a real one

    @property
    def is_needed(self) -> bool:
        return bool(self.auto or self.fix or self.window_on or self.recorder)

    def plan(self, depth, times: list[float]) -> FramePlan:
        """The plan of one batch of depth (B,1,h,w) whose frames start at ``times``."""
        if not self.is_needed:
            return FramePlan()
        d = to_numpy(depth).astype(np.float32, copy=False)
        cuts = self.cuts.cuts(thumbnails(d))
        known: list[bool | None] = list(cuts)
        if self.first:  # nothing before the first frame: not known to be a cut
            known[0], self.first = None, False
        convergence = None
        if self.auto is not None:
            subjects = subject_depth(curved(d, self.shaping.curve))
            convergence = self.auto.planes(subjects, cuts)
        strength = self._strengths(d, convergence, cuts) if self.fix else None
        t = total_disparity(d, self.shaping, convergence, strength)
        band = max(1, round(EDGE_BAND * t.shape[-1]))
        edges = np.stack([t[:, 0, :, :band].max(axis=(1, 2)),
                          t[:, 0, :, -band:].max(axis=(1, 2))], axis=1).clip(0, None)
        window = self._windows(edges, cuts) if self.window_on else None
        if self.recorder is not None:
            lows, highs = t.min(axis=(1, 2, 3)), t.max(axis=(1, 2, 3))
            for i, time_s in enumerate(times):
                self.recorder.add(time_s, known[i], float(lows[i]), float(highs[i]),
                                  float(edges[i].max()), self.window_on)
        return FramePlan(convergence, strength, window)

    def report(self) -> dict | None:
        return None if self.recorder is None else self.recorder.report()

    def _strengths(self, d: np.ndarray, convergence, cuts: list[bool]) -> np.ndarray:
        s = self.shaping
        free = replace(s, far_px=float("inf"), near_px=float("inf"), offset_px=0.0)
        t = total_disparity(d, free, convergence)
        near = t.max(axis=(1, 2, 3)).clip(1e-6, None)
        far = (-t.min(axis=(1, 2, 3))).clip(1e-6, None)
        lim = s.limits
        if lim is None:  # self.fix is set only where the viewing gives limits
            raise ValueError("fitting strengths needs the viewing's limits")
        allowed = np.minimum((lim.near_px + s.offset_px) / near,
                             (lim.zone_far_px - s.offset_px) / far).clip(0.0, 1.0)
        out = np.empty(len(cuts), np.float32)
        for i, cut in enumerate(cuts):
            self.strength = float(allowed[i]) if cut else min(self.strength, float(allowed[i]))
            out[i] = self.strength
        return out

    def _windows(self, edges: np.ndarray, cuts: list[bool]) -> np.ndarray:
        out = np.empty_like(edges)
        for i, cut in enumerate(cuts):
            self.window = edges[i] if cut else np.maximum(edges[i], self.window * WINDOW_FALL)
            out[i] = self.window
        return out


def warmed_state(params: ConversionParams, width: int, frame_s: float, depth) -> dict | None:
    """The planner's state after the frames of ``depth`` (B,1,h,w): what a
    segment hands the next, rebuilt from its tail (``seams.warm_depth_state``)."""
    from stereo_inference.shaping import shaping_for

    planner = ShotPlanner(params, shaping_for(params, width), frame_s)
    planner.plan(depth, [i * frame_s for i in range(depth.shape[0])])
    return planner.state()
