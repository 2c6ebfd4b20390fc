"""One batch of frames in, one batch of packed stereo frames out.

Depth (estimator + temporal normalisation) -> per-eye disparity -> both eyes
warped in one call (the left eye as a mirrored right eye) -> packed layout.
Every layout is warped on YUV 4:2:0 planes directly (luma at full size,
chroma at its own half size), and anaglyphs are mixed on those planes too
(``stereo_inference.anaglyph``), so no colour conversion happens anywhere.
On a CPU everything is numpy and OpenCV (torch is not imported unless the
depth model needs it); on a GPU the same steps run on tensors.
"""

from __future__ import annotations

import numpy as np
from shared_types.models import ConversionParams, OutputMode

from stereo_inference.anaglyph import mix_tensor, warp_mix_cpu
from stereo_inference.arrays import (
    concat,
    device_type,
    flip_x,
    is_tensor,
    rgb_frames,
    to_numpy,
)
from stereo_inference.cuda_streams import StageStreams
from stereo_inference.decode import FrameBatch
from stereo_inference.depth import DepthEstimator, estimate_in_batches
from stereo_inference.device_frames import depth_input, eye_planes, join_planes, upload
from stereo_inference.floating_window import FULL_RANGE, has_window, mask_windows
from stereo_inference.formats import SIDE_BY_SIDE, pack
from stereo_inference.held_frames import estimate_held, held, repeated_pictures
from stereo_inference.remap import shrink, warp_packed
from stereo_inference.shaping import Shaping, eye_shifts, shaping_for
from stereo_inference.shot_plan import FramePlan, ShotPlanner
from stereo_inference.temporal import Normalizer
from stereo_inference.warp import plan_warp, sample_rows

PLAN_ROWS_PER_DEPTH_ROW = 1


class StereoRenderer:
    def __init__(
        self,
        mode: OutputMode,
        params: ConversionParams,
        estimator: DepthEstimator,
        normalizer: Normalizer,
        device,
        eye_size: tuple[int, int] | None = None,
        bit_depth: int = 8,
        color: tuple[int, int, int, int] | None = None,
        frame_s: float = 1 / 24,
        shot_state: dict | None = None,
    ) -> None:
        self.mode, self.params = mode, params
        # 10-bit (HDR) sources keep 10-bit planes; anaglyph mixes colours in 8 bits
        self.bit_depth = 10 if bit_depth > 8 and mode is not OutputMode.ANAGLYPH else 8
        self.eye_size = eye_size  # (w, h) of one eye; None: the decoded size
        self.estimator, self.normalizer, self.device = estimator, normalizer, device
        self.color = color  # the frames' (primaries, transfer, matrix, range), FFmpeg numbers
        # OpenCV resamples faster on a CPU; tensors on a GPU (and in tests, on both).
        self.use_opencv = device_type(device) == "cpu"
        self.streams = StageStreams(device)
        # the last frame's depth input and depth, for a repeat of it (``held_frames``)
        self._last_small: np.ndarray | None = None
        self._last_depth = None
        # the comfort controls: how depth becomes disparity (``shaping``), and what
        # is decided frame by frame in order (``shot_plan``), for eyes this wide
        self.frame_s, self.shot_state = frame_s, shot_state  # (``shot_plan.ShotPlanner``)
        # made for the first batch's eye width
        self.shaping: Shaping | None = None
        self.planner: ShotPlanner | None = None
        self._frames_seen = 0

    @property
    def eye_format(self) -> str:
        return "yuv420p10le" if self.bit_depth > 8 else "yuv420p"

    def estimate(self, batch: FrameBatch):
        """The normalised depth of ``batch`` (B,1,h,w), also kept as ``batch.depth``.

        Its own stage: a conversion runs it in a thread ahead of ``render``
        (``stages.run_stages``), strictly in frame order (the depth is stateful).
        On a GPU, a batch decoded without ``depth_rgb`` is uploaded here and the
        model's input made from its planes (``device_frames``).
        """
        if self.use_opencv:
            self._depth_held(batch, None)
            return self._planned(batch)
        import torch

        # (both thread-local: entered in the depth stage's thread)
        with torch.inference_mode(), self.streams.for_depth():
            if batch.depth_rgb is not None:
                self._depth_held(batch, self.device)
            else:
                batch.on_device = upload(batch.eyes, self.device)
                rows, w = batch.eyes.shape[1:3]
                size = self.estimator.input_size(w, rows * 2 // 3)
                batch.depth = self._depth(depth_input(batch.on_device, size, self.color,
                                                      self.bit_depth))
            self.streams.handed_over(batch)
        return self._planned(batch)

    @property
    def _shaping(self) -> Shaping:
        """The shaping ``_planned`` made for the first batch (before any render)."""
        if self.shaping is None:
            raise RuntimeError("a batch was rendered before it was planned")
        return self.shaping

    def _planned(self, batch: FrameBatch):
        """``batch.depth``, with its ``FramePlan`` (``shot_plan``) left on the batch."""
        if self.planner is None:
            width = self.eye_size[0] if self.eye_size else batch.eyes.shape[2]
            self.shaping = shaping = shaping_for(self.params, width)
            self.planner = ShotPlanner(self.params, shaping, self.frame_s,
                                       self.shot_state)
        n = batch.depth.shape[0]
        start, self._frames_seen = self._frames_seen, self._frames_seen + n
        pts = list(batch.pts[:n]) + [None] * (n - len(batch.pts[:n]))
        times = [float(p * batch.time_base) if p is not None and batch.time_base
                 else (start + i) * self.frame_s for i, p in enumerate(pts)]
        batch.plan = self.planner.plan(batch.depth, times)  # (made above if it was not)
        return batch.depth

    def _depth_held(self, batch: FrameBatch, device):
        """``batch.depth`` from its depth input, estimated only for the frames that
        do not repeat the one before them (``held_frames``); ``batch.held`` says
        which did."""
        small = batch.depth_rgb
        if small is None:
            raise ValueError("held-frame depth needs the batch's depth input (depth_rgb)")
        batch.held = held(small, self._last_small)
        if batch.ahead is not None and hasattr(self.estimator, "look_ahead"):
            self.estimator.look_ahead(batch.ahead)
        batch.depth = estimate_held(lambda frames: self._depth(rgb_frames(frames, device)),
                                    small, batch.held, self._last_depth)
        self._last_small, self._last_depth = small[-1], batch.depth[-1]
        return batch.depth

    def render(self, batch: FrameBatch) -> np.ndarray:
        """Packed output frames (B,H*3/2,W), yuv420p (uint8) or yuv420p10le (uint16),
        from ``batch.depth`` (estimated first when the depth stage has not run)."""
        depth = batch.depth if batch.depth is not None else self.estimate(batch)
        plan = batch.plan or FramePlan()
        out = self._render(batch, depth, plan)
        if plan.window is not None and has_window(self.mode):
            eye = self._eye_of(out)
            mask_windows(out, self.mode, eye, plan.window * (eye[0] / self._shaping.width),
                         bit_depth=self.bit_depth,
                         full_range=bool(self.color and self.color[3] == FULL_RANGE))
        return out

    def _eye_of(self, out: np.ndarray) -> tuple[int, int]:
        """(w, h) of one eye in packed frames ``out``."""
        oh, ow = out.shape[1] * 2 // 3, out.shape[2]
        if self.mode.value.endswith("sbs"):
            return ow // 2, oh
        return ow, oh // 2

    def _render(self, batch: FrameBatch, depth, plan: FramePlan) -> np.ndarray:
        if self.use_opencv:
            return self._render_cpu(batch.eyes, depth, batch.held, plan)
        import torch

        with torch.inference_mode(), self.streams.for_render(batch):
            eyes = batch.on_device if batch.on_device is not None else upload(
                batch.eyes, self.device)
            batch.on_device = None  # not kept while the batch waits for the encoder
            # the half layouts' squeeze, from full-size frames
            luma, chroma = eye_planes(eyes, self.eye_size)
            if self.mode is OutputMode.ANAGLYPH:
                return self._anaglyph(luma, chroma, depth, plan)
            return self._packed_yuv(luma, chroma, depth, plan)

    def _depth(self, small):
        """Normalised depth (B,1,h,w) of frames ``small``, in their kind (numpy or tensor)."""
        raw = estimate_in_batches(self.estimator, small)
        if not is_tensor(small):
            raw = to_numpy(raw)  # a learned model answers in tensors
        return self.normalizer.normalize(raw, small)

    def _render_cpu(self, eyes: np.ndarray, depth: np.ndarray,
                    held_mask: np.ndarray | None = None,
                    frame_plan: FramePlan | None = None) -> np.ndarray:
        """The same as the tensor path, resampled along rows by ``remap`` (the
        engine's C loops, or OpenCV: faster than torch on a CPU).

        ``eyes`` may be larger than the eye images (half layouts decode at full
        size): ``warp_packed`` squeezes them as it reads them, cheaper than the
        decoder's scaler. Each packed plane is one warp over both eyes, written
        in place. A frame that repeats the one before it (``held_mask``, the
        depth stage's ``batch.held``) is a copy of its packed picture, neither
        planned nor warped again.
        """
        b, sh, sw = eyes.shape[0], eyes.shape[1] * 2 // 3, eyes.shape[2]
        w, h = self.eye_size or (sw, sh)
        repeated = repeated_pictures(eyes, held_mask)
        rendered = [i for i in range(b) if not repeated[i]]
        frame_plan = frame_plan or FramePlan()
        if len(rendered) < b:
            depth = depth[rendered]
            frame_plan = FramePlan(*(None if v is None else v[rendered] for v in (
                frame_plan.convergence, frame_plan.strength, frame_plan.window)))
        anaglyph = self.mode is OutputMode.ANAGLYPH  # planned at chroma width: half the work
        plan = to_numpy(self._plan(depth, h, w // 2 if anaglyph else w, frame_plan)[:, 0])
        sbs = self.mode in SIDE_BY_SIDE
        ow, oh = (w, h) if anaglyph else (2 * w, h) if sbs else (w, 2 * h)
        out = np.empty((b, oh * 3 // 2, ow), np.uint8 if anaglyph else eyes.dtype)
        n = len(rendered)
        for j, i in enumerate(rendered):
            if anaglyph:
                self._anaglyph_frame(eyes[i], plan[n + j], plan[j], out[i], w, h)
                continue
            left, right = plan[n + j], plan[j]
            warp_packed([eyes[i, :sh]], left, right, [out[i, :oh]], sbs)
            warp_packed(list(eyes[i, sh:].reshape(2, sh // 2, sw // 2)), left, right,
                        list(out[i, oh:].reshape(2, oh // 2, ow // 2)), sbs, subsample=2)
        for i in range(1, b):
            if repeated[i]:
                out[i] = out[i - 1]
        return out

    def _anaglyph_frame(self, eye: np.ndarray, left: np.ndarray, right: np.ndarray,
                        out: np.ndarray, w: int, h: int) -> None:
        """Both eyes of ``eye`` warped and mixed into ``out`` (``anaglyph.warp_mix_cpu``).

        The plans are at chroma width (w/2): the chroma planes use them as they
        are, the luma stretched to full width (depth is far coarser than either).
        """
        sh = eye.shape[0] * 2 // 3
        u, v = (shrink(c, w // 2, h // 2) for c in eye[sh:].reshape(2, sh // 2, -1))
        warp_mix_cpu(shrink(eye[:sh], w, h), u, v, left, right, out,
                     self.params.anaglyph_method)

    def _anaglyph(self, luma, chroma, depth, frame_plan: FramePlan) -> np.ndarray:
        import torch
        from torch.nn import functional as F  # noqa: N812

        plan = self._plan(depth, luma.shape[2], luma.shape[3], frame_plan)
        luma = _sample_eyes(luma, plan, 1)
        uv = _sample_eyes(chroma, plan, 2)
        # the eyes' luma at chroma size: the warped luma averaged 2x2 (as on a CPU)
        small = (torch.cat([F.avg_pool2d(y, 2), c], dim=1) for y, c in zip(luma, uv, strict=True))
        (left_y, right_y), (left_c, right_c) = luma, tuple(small)
        return _to_uint8(mix_tensor(left_y, right_y, left_c, right_c,
                                    self.params.anaglyph_method))

    def _packed_yuv(self, luma, chroma, depth, frame_plan: FramePlan) -> np.ndarray:
        import torch

        plan = self._plan(depth, luma.shape[2], luma.shape[3], frame_plan)
        out = join_planes(pack(self.mode, *_sample_eyes(luma, plan, 1)),
                          pack(self.mode, *_sample_eyes(chroma, plan, 2)))
        if self.bit_depth > 8:
            return to_numpy(out.add_(0.5).clamp_(0, 1023).to(torch.int16)).view(np.uint16)
        return _to_uint8(out)

    def _plan(self, depth, h: int, w: int, frame_plan: FramePlan):
        """Source x positions (2B,1,rows,w) in frame coordinates: right eyes, then left eyes.

        Depth maps are far smaller than frames, so neighbouring frame rows carry
        almost the same disparity: the plan is computed on PLAN_ROWS_PER_DEPTH_ROW
        rows per depth row and interpolated to the frame, which keeps the warp
        exact along x (where depth edges matter) at a fraction of the cost. The
        left eye is planned on the mirrored disparity and mirrored back. The
        disparity is shaped by the comfort controls (``shaping``) and the batch's
        per-frame screen plane and strength (``frame_plan``).
        """
        rows = min(h, PLAN_ROWS_PER_DEPTH_ROW * depth.shape[2])
        right, left = eye_shifts(depth, (rows, w), self._shaping.at_width(w),
                                 frame_plan.convergence, frame_plan.strength)
        b = right.shape[0]
        plan = plan_warp(concat([right, flip_x(left)]))  # chunked inside, by rows
        plan[b:] = (w - 1) - flip_x(plan[b:])
        return plan


def _sample_eyes(image, plan, subsample: int):
    """(left, right) eye images of ``image`` (B,C,H,W) from a two-eye plan.

    ``subsample`` 2 reads the plan for a half-resolution (chroma) plane.
    """
    from torch.nn import functional as F  # noqa: N812

    b, _, h, w = image.shape
    if subsample > 1:
        plan = plan[..., ::subsample] / subsample
    if plan.shape[2] != h:
        plan = F.interpolate(plan, size=(h, w), mode="bilinear", align_corners=False)
    image = image.float()
    return sample_rows(image, plan[b:]), sample_rows(image, plan[:b])


def _to_uint8(x) -> np.ndarray:
    import torch

    return to_numpy(x.add_(0.5).clamp_(0, 255).to(torch.uint8))
