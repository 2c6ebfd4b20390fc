"""One batch of frames in, one batch of packed stereo frames out.

Depth (estimator + temporal normalisation) -> per-eye disparity -> both eyes
warped in one call (the left eye as a mirrored right eye) -> packed layout.
Stereo layouts are warped on YUV 4:2:0 planes directly (luma at full size,
chroma at its own half size), so no colour conversion happens anywhere.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from shared_types.models import ConversionParams, OutputMode

from stereo_inference.decode import FrameBatch
from stereo_inference.depth import DepthEstimator, estimate_in_batches
from stereo_inference.disparity import eye_disparity
from stereo_inference.formats import anaglyph, pack
from stereo_inference.remap import packed_map, remap_rows, shrink, stretch_plan
from stereo_inference.temporal import TemporalNormalizer
from stereo_inference.warp import plan_warp, sample_rows

# Pixels planned per call: bounds the warp's temporaries (~100 bytes a pixel).
WARP_CHUNK_PIXELS = 2_500_000
# On a CPU, smaller calls keep those temporaries in the L2 cache: planning 2x72
# rows of 640 px at a time is ~3x faster than all eight eyes of a batch at once.
WARP_CHUNK_PIXELS_CPU = 100_000
PLAN_ROWS_PER_DEPTH_ROW = 1


class StereoRenderer:
    def __init__(
        self,
        mode: OutputMode,
        params: ConversionParams,
        estimator: DepthEstimator,
        normalizer: TemporalNormalizer,
        device: torch.device,
        eye_size: tuple[int, int] | None = None,
    ) -> None:
        self.mode, self.params = mode, params
        self.eye_size = eye_size  # (w, h) of one eye; None: the decoded size
        self.estimator, self.normalizer, self.device = estimator, normalizer, device
        # OpenCV resamples faster on a CPU; tensors on a GPU (and in tests, on both).
        self.use_opencv = device.type == "cpu"

    @property
    def eye_format(self) -> str:
        return "rgb24" if self.mode is OutputMode.ANAGLYPH else "yuv420p"

    @torch.inference_mode()
    def render(self, batch: FrameBatch) -> np.ndarray:
        """Packed output frames: (B,H*3/2,W) yuv420p, or (B,H,W,3) rgb24 for anaglyph."""
        small = torch.from_numpy(batch.depth_rgb).to(self.device).permute(0, 3, 1, 2)
        small = small.float().div_(255)
        raw = estimate_in_batches(self.estimator, small)
        depth = self.normalizer.normalize(raw, small)
        if self.use_opencv:
            return self._render_cpu(batch.eyes, depth)
        eyes = torch.from_numpy(batch.eyes).to(self.device)
        if self.mode is OutputMode.ANAGLYPH:
            return self._anaglyph(eyes, depth)
        return self._packed_yuv(eyes, depth)

    def _render_cpu(self, eyes: np.ndarray, depth: torch.Tensor) -> np.ndarray:
        """The same as the tensor path, resampled with OpenCV (faster on a CPU).

        ``eyes`` may be larger than the eye images (half layouts decode at full
        size): they are area-averaged first, cheaper than the decoder's scaler.
        Each packed plane is one ``remap`` over both eyes, written in place.
        """
        b = eyes.shape[0]
        sh = eyes.shape[1] if self.mode is OutputMode.ANAGLYPH else eyes.shape[1] * 2 // 3
        sw = eyes.shape[2]
        w, h = self.eye_size or (sw, sh)
        plan = self._plan(depth, h, w)[:, 0].numpy()
        if self.mode is OutputMode.ANAGLYPH:
            return np.stack([self._anaglyph_cpu(shrink(eyes[i], w, h), plan[b + i], plan[i])
                             for i in range(b)])
        sbs = self.mode in (OutputMode.SBS, OutputMode.HALF_SBS)
        ow, oh = (2 * w, h) if sbs else (w, 2 * h)
        repeats = 1 if sbs else 2
        out = np.empty((b, oh * 3 // 2, ow), np.uint8)
        for i in range(b):
            left, right = plan[b + i], plan[i]
            luma_map = packed_map(left, right, h, w, sbs)
            chroma_map = packed_map(left, right, h // 2, w // 2, sbs, subsample=2)
            remap_rows(shrink(eyes[i, :sh], w, h), luma_map, out[i, :oh], repeats)
            chroma_in = eyes[i, sh:].reshape(2, sh // 2, sw // 2)
            chroma_out = out[i, oh:].reshape(2, oh // 2, ow // 2)
            for c in range(2):
                remap_rows(shrink(chroma_in[c], w // 2, h // 2), chroma_map, chroma_out[c],
                           repeats)
        return out

    def _anaglyph_cpu(self, rgb: np.ndarray, left_plan: np.ndarray, right_plan: np.ndarray):
        h, w = rgb.shape[:2]
        left, right = (
            torch.from_numpy(remap_rows(rgb, stretch_plan(p, h, w))).permute(2, 0, 1)[None].float()
            for p in (left_plan, right_plan)
        )
        mixed = anaglyph(left / 255, right / 255, self.params.anaglyph_method) * 255
        return _to_uint8(mixed[0].permute(1, 2, 0))

    def _anaglyph(self, rgb: torch.Tensor, depth: torch.Tensor) -> np.ndarray:
        image = rgb.permute(0, 3, 1, 2).float()
        plan = self._plan(depth, image.shape[2], image.shape[3])
        left, right = _sample_eyes(image, plan, 1)
        out = anaglyph(left / 255, right / 255, self.params.anaglyph_method) * 255
        return _to_uint8(out.permute(0, 2, 3, 1))

    def _packed_yuv(self, yuv: torch.Tensor, depth: torch.Tensor) -> np.ndarray:
        b, rows, w = yuv.shape
        h = rows * 2 // 3
        luma = yuv[:, :h].unsqueeze(1)
        chroma = yuv[:, h:].reshape(b, 2, h // 2, w // 2)
        plan = self._plan(depth, h, w)
        y = pack(self.mode, *_sample_eyes(luma, plan, 1))
        uv = pack(self.mode, *_sample_eyes(chroma, plan, 2))
        ob, _, oh, ow = y.shape
        out = torch.cat([y.reshape(ob, oh, ow), uv.reshape(ob, oh // 2, ow)], dim=1)
        return _to_uint8(out)

    def _plan(self, depth: torch.Tensor, h: int, w: int) -> torch.Tensor:
        """Source x positions (2B,1,rows,w) in frame coordinates: right eyes, then left eyes.

        Depth maps are far smaller than frames, so neighbouring frame rows carry
        almost the same disparity: the plan is computed on PLAN_ROWS_PER_DEPTH_ROW
        rows per depth row and interpolated to the frame, which keeps the warp
        exact along x (where depth edges matter) at a fraction of the cost. The
        left eye is planned on the mirrored disparity and mirrored back.
        """
        rows = min(h, PLAN_ROWS_PER_DEPTH_ROW * depth.shape[2])
        disp = eye_disparity(
            depth, size=(rows, w),
            divergence=self.params.divergence, convergence=self.params.convergence,
        )
        b = disp.shape[0]
        both = torch.cat([disp, disp.flip(3)])
        chunk = WARP_CHUNK_PIXELS_CPU if disp.device.type == "cpu" else WARP_CHUNK_PIXELS
        step = max(1, chunk // (rows * w))
        plan = torch.cat([plan_warp(both[i : i + step]) for i in range(0, 2 * b, step)])
        plan[b:] = (w - 1) - plan[b:].flip(3)
        return plan


def _sample_eyes(image: torch.Tensor, plan: torch.Tensor, subsample: int):
    """(left, right) eye images of ``image`` (B,C,H,W) from a two-eye plan.

    ``subsample`` 2 reads the plan for a half-resolution (chroma) plane.
    """
    b, _, h, w = image.shape
    if subsample > 1:
        plan = plan[..., ::subsample] / subsample
    if plan.shape[2] != h:
        plan = F.interpolate(plan, size=(h, w), mode="bilinear", align_corners=False)
    image = image.float()
    return sample_rows(image, plan[b:]), sample_rows(image, plan[:b])


def _to_uint8(x: torch.Tensor) -> np.ndarray:
    return x.add_(0.5).clamp_(0, 255).to(torch.uint8).cpu().numpy()
