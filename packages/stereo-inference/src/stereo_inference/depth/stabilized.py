"""Per-frame depth models, held steady along the optical flow.

A learned model sees every frame alone: its depth of a still wall wobbles from
frame to frame, and so does its scale (relative depth is only defined up to
an affine map). ``FlowStabilized`` wraps such a model: each new map is first
fitted (scale and offset, least squares over the pixels whose flow holds) to
the previous result moved along the flow (``parallax.FlowField``, DIS at 128
px, photometric check), then blended with it where the flow holds and taken
as it is where it does not (new content) or when most of the frame fails to
match (a scene cut). In a still shot the flow rests wherever the picture did
not change (``still_camera.settle``), so the held map is not dragged along
DIS's guesses on flat walls. Its memory (last grey frame, last map) travels in
``depth_state`` like the weight-free estimator's.

With a ``stride`` above 1 the model runs on every ``stride``-th frame only (a
learned model on a CPU costs seconds a frame); the frames in between take the
last result moved along the flow. The model still sees every frame where the
flow cannot carry the depth: a shot's first frame, a cut, and a frame where
much of the picture is new (mean flow consistency under ``KEEP_CONSISTENCY``).

Torch tensors (a GPU model's frames) stay on their device: only the small grey
frames go down (one transfer a batch) and the small flows up, for DIS, which
runs on the CPU either way; the per-pixel work (resizing the flow, warping,
fitting, blending) is done by torch twins of the numpy helpers, beside them.
"""

from __future__ import annotations

import functools
import sys
from typing import Any

import cv2
import numpy as np

from stereo_inference.arrays import as_float, device_type, is_tensor, to_numpy
from stereo_inference.cuda_graphs import Graphed
from stereo_inference.depth.parallax import (
    FlowField,
    across_cut,
    sample_at,
    sampling_grid,
    warp_back,
)
from stereo_inference.depth.still_camera import settle
from stereo_inference.packed import pack, unpack

FLOW_WIDTH = 128
BLEND = 0.3  # weight of a new map where the flow holds
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
        # last result (h,w) float32: numpy, or a tensor on the input's device
        self._held: Any = None
        self._since = 0  # frames since the model last ran

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        return self.inner.input_size(width, height)

    def estimate(self, rgb):
        tensor = is_tensor(rgb)
        if tensor:
            grays = _small_grays(rgb)
        else:
            grays = [_small_gray(f) for f in to_numpy(rgb).astype(np.float32, copy=False)]
        # at stride 1 every frame is a keyframe: the model is asked first, so a
        # GPU computes it while the CPU computes the flow
        early = self.inner.estimate(rgb) if self.stride == 1 else None
        motions = self._motions(grays)
        keys = self._keyframes(motions)
        raw = None
        if keys:  # (the first frame always is one)
            raw = early if early is not None and len(keys) == len(grays) else (
                self.inner.estimate(rgb[keys] if len(keys) < len(grays) else rgb))
            if tensor:  # the model's maps stay where the input is
                raw = _in_kind(raw, rgb).detach()[:, 0].float()
            else:
                raw = to_numpy(raw)[:, 0].astype(np.float32)
        maps = iter(() if raw is None else raw)
        self._held = _in_kind(self._held, rgb)  # as restore() or the last input left it
        if tensor:  # answered in the input's kind, keyframes or not
            size = tuple(rgb.shape[-2:]) if self._held is None else tuple(self._held.shape)
            motions, moved = _uploaded(motions, rgb.device, size)
            if len(keys) == len(motions) and self._all_held(moved, raw):
                # every frame a keyframe moved from the one before (stride 1,
                # no cut): one graph for the whole batch's recurrence
                out = _KEYFRAMES(raw, *moved, self._held)
                self._held = out[-1]
                return out[:, None]
        chosen = set(keys)
        out = [self._step(next(maps) if i in chosen else None, motion)
               for i, motion in enumerate(motions)]
        if tensor:
            return sys.modules["torch"].stack(out)[:, None]
        return np.stack(out)[:, None]

    def _all_held(self, moved, raw) -> bool:
        """Whether ``moved`` (a batch's motions at the map's size, or None) covers
        every frame and fits the held map and the model's maps ``raw`` (B,h,w)."""
        return (moved is not None and self._held is not None
                and moved[1].shape[0] == raw.shape[0]
                and tuple(moved[1].shape[1:]) == tuple(self._held.shape) == tuple(raw.shape[1:]))

    def state(self) -> dict | None:
        """The last grey frame and result (JSON), for the next segment; None before any."""
        if self._prev is None or self._held is None:
            return None
        return {"gray": pack(self._prev), "held": pack(to_numpy(self._held).astype(np.float16)),
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
                if not across_cut(consistency):
                    motion = (settle(flow, gray8, prev)[0], consistency)
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

    def _step(self, depth, motion):
        """The next result from the model's map ``depth`` (None between keyframes);
        numpy arrays or tensors (``depth``, ``motion`` and the held map alike).
        ``motion`` is (flow, consistency) at the flow's size, or a tensor batch's
        ``_Moved`` (prepared at the map's size by ``_uploaded``)."""
        if motion is None or self._held is None or (
                depth is not None and self._held.shape != depth.shape):
            self._held = depth
            return depth
        if isinstance(motion, _Moved) and motion.consistency.shape == self._held.shape:
            held = sample_at(self._held, motion.grid)
            consistency, weight = motion.consistency, motion.weight
        else:  # (a held map of another size, restored from a state, gets its own)
            small = motion.small if isinstance(motion, _Moved) else motion
            flow, consistency = _resized(*small, self._held.shape)
            held = warp_back(self._held, flow)
            weight = _blend_weight(consistency)
        if depth is None:  # between keyframes: the depth moves with the picture
            self._held = held
            return held
        self._held = _blended(depth, held, consistency, weight)
        return self._held


class _Moved:
    """A tensor frame's motion at the depth map's size: where to sample the
    previous map (``grid``), the flow's ``consistency``, the new map's blend
    ``weight``, and the flow at its own size (``small``)."""

    __slots__ = ("small", "grid", "consistency", "weight")

    def __init__(self, small, grid, consistency, weight) -> None:
        self.small, self.grid, self.consistency, self.weight = small, grid, consistency, weight


def _blend_weight(consistency):
    """The new map's share: BLEND where the flow holds, all of it where it fails."""
    return BLEND + (1 - BLEND) * (1 - consistency) ** 2


def _blended(depth, held, consistency, weight):
    """The model's map ``depth`` fitted to the moved previous result ``held``
    and blended into it with ``weight`` (float32, numpy or tensors)."""
    fitted = _fit_affine(depth, held, consistency)
    return as_float(held + weight * (fitted - held))


def _resized(flow, consistency, size: tuple[int, int]):
    """The small ``flow`` (in pixels of the map of ``size`` (h, w)) and
    ``consistency``, resized bilinear (half-pixel centres) to ``size``; a tensor
    ``flow`` may be a batch (M,h,w,2) with ``consistency`` (M,h,w)."""
    dh, dw = size
    sx, sy = dw / flow.shape[-2], dh / flow.shape[-3]
    if is_tensor(flow):
        if flow.ndim == 3:
            flow, consistency = _resized(flow[None], consistency[None], size)
            return flow[0], consistency[0]
        from torch.nn import functional

        both = sys.modules["torch"].cat([flow.permute(0, 3, 1, 2), consistency[:, None]], 1)
        both = functional.interpolate(both, size=(dh, dw), mode="bilinear", align_corners=False)
        both[:, 0] *= sx
        both[:, 1] *= sy
        return both[:, :2].permute(0, 2, 3, 1), both[:, 2]
    scale = np.array([sx, sy], np.float32)
    flow = cv2.resize(flow, (dw, dh), interpolation=cv2.INTER_LINEAR) * scale
    return flow, cv2.resize(consistency, (dw, dh), interpolation=cv2.INTER_LINEAR)


def _in_kind(x, like):
    """``x`` (None, an array or a tensor) as numpy, or as a tensor on ``like``'s device."""
    if x is None or not is_tensor(like):
        return None if x is None else to_numpy(x)
    return sys.modules["torch"].as_tensor(x, device=like.device)


def _uploaded(motions: list, device, size: tuple[int, int]) -> tuple[list, tuple | None]:
    """The (flow, consistency) pairs of a batch as ``_Moved`` on ``device``, at
    the map ``size`` (h, w): one transfer, and each step batched (a frame's
    share of the per-frame work used to be ~90 small kernels). Also the moving
    frames' (grid, consistency, weight) as batches, or None when none moves."""
    moving = [np.dstack(m) for m in motions if m is not None]
    if not moving:
        return motions, None
    packed = sys.modules["torch"].from_numpy(np.stack(moving))
    if device_type(device) == "cuda":  # queued behind the model, not waited for
        packed = packed.pin_memory()
    packed = packed.to(device, non_blocking=True)
    small_flow, small_consistency = packed[..., :2], packed[..., 2]
    flow, consistency = _resized(small_flow, small_consistency, size)
    grid, weight = sampling_grid(flow), _blend_weight(consistency)
    out: list[_Moved | None] = []
    i = 0
    for motion in motions:
        if motion is None:
            out.append(None)
            continue
        out.append(_Moved((small_flow[i], small_consistency[i]), grid[i], consistency[i],
                          weight[i]))
        i += 1
    return out, (grid, consistency, weight)


def _keyframes_run(maps, grid, consistency, weight, held):
    """``FlowStabilized._step`` over a batch where every frame is a keyframe
    moved from the one before: the results (B,h,w), the last one the new held
    map. Tensors only, with no branching on values (``cuda_graphs``)."""
    out = []
    for i in range(maps.shape[0]):
        held = _blended(maps[i], sample_at(held, grid[i]), consistency[i], weight[i])
        out.append(held)
    return sys.modules["torch"].stack(out)


_KEYFRAMES = Graphed(_keyframes_run, "flow stabiliser")


def _small_gray(rgb: np.ndarray) -> np.ndarray:
    """``rgb`` (3,h,w) float 0..1 as a grey uint8 frame FLOW_WIDTH wide."""
    gray = np.tensordot(_LUMA, rgb, axes=(0, 0))
    h, w = gray.shape
    fw = min(FLOW_WIDTH, w)
    small = cv2.resize(gray, (fw, max(8, round(h * fw / w))), interpolation=cv2.INTER_AREA)
    return np.clip(small * 255 + 0.5, 0, 255).astype(np.uint8)


def _small_grays(rgb) -> list[np.ndarray]:
    """``_small_gray`` of every frame of a (B,3,h,w) tensor, computed on its device
    (INTER_AREA as two products with the box-overlap weights), one download."""
    h, w = rgb.shape[2:]
    fw = min(FLOW_WIDTH, w)
    fh = max(8, round(h * fw / w))
    if fh > h:  # a tiny frame grows: OpenCV's INTER_AREA is no box average then
        return [_small_gray(f) for f in to_numpy(rgb).astype(np.float32, copy=False)]
    rgb = rgb.detach().float()
    gray = rgb[:, 0] * float(_LUMA[0]) + rgb[:, 1] * float(_LUMA[1]) + rgb[:, 2] * float(_LUMA[2])
    small = _area_weights(h, fh, rgb.device) @ gray @ _area_weights(w, fw, rgb.device).T
    return list(to_numpy(small.mul_(255).add_(0.5).clamp_(0, 255).to(sys.modules["torch"].uint8)))


@functools.lru_cache(maxsize=8)
def _area_weights(size: int, small: int, device):
    """(small, size) tensor: row i averages the source pixels [i, i+1) * size/small
    covers, each weighted by its overlap (OpenCV's INTER_AREA when shrinking)."""
    import torch

    edges = np.arange(small + 1) * (size / small)
    pixels = np.arange(size)
    overlap = (np.minimum(edges[1:, None], pixels + 1) - np.maximum(edges[:-1, None], pixels))
    weights = np.clip(overlap, 0, None) / (size / small)
    return torch.from_numpy(weights.astype(np.float32)).to(device)


def _fit_affine(new: np.ndarray, held: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``a*new + b`` closest to ``held`` (weighted least squares): the model's
    per-frame scale and offset taken out, so only what changed shape remains."""
    if is_tensor(new):
        return _fit_affine_tensor(new, held, weight)
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


def _fit_affine_tensor(new, held, weight):
    """``_fit_affine`` for tensors, with the same guards but no host sync: each
    guard picks ``new`` through ``where``."""
    w = weight.reshape(-1)[::4]
    x, y = new.reshape(-1)[::4], held.reshape(-1)[::4]
    sw = w.sum()
    mx, my = (w * x).sum() / sw.clamp_min(1e-3), (w * y).sum() / sw.clamp_min(1e-3)
    var = (w * (x - mx) ** 2).sum()
    a = (w * (x - mx) * (y - my)).sum() / var.clamp_min(1e-12)
    fits = (sw >= 1e-3) & (var >= 1e-12) & (a > 0)
    return sys.modules["torch"].where(fits, a * (new - mx) + my, new)
