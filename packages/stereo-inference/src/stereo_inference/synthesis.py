"""One batch of frames in, one batch of packed stereo frames out.

Depth (estimator + temporal normalisation) -> per-eye disparity -> both eyes
warped in one call (the left eye as a mirrored right eye) -> packed layout.
Stereo layouts are warped on YUV 4:2:0 planes directly (luma at full size,
chroma at its own half size), so no colour conversion happens anywhere.
"""

from __future__ import annotations

import numpy as np
import torch
from shared_types.models import ConversionParams, OutputMode

from stereo_inference.decode import FrameBatch
from stereo_inference.depth import DepthEstimator
from stereo_inference.disparity import eye_disparity
from stereo_inference.formats import anaglyph, pack
from stereo_inference.temporal import TemporalNormalizer
from stereo_inference.warp import warp_view

# Pixels warped per call: bounds the warp's temporaries (~100 bytes a pixel).
WARP_CHUNK_PIXELS = 2_500_000


class StereoRenderer:
    def __init__(
        self,
        mode: OutputMode,
        params: ConversionParams,
        estimator: DepthEstimator,
        normalizer: TemporalNormalizer,
        device: torch.device,
    ) -> None:
        self.mode, self.params = mode, params
        self.estimator, self.normalizer, self.device = estimator, normalizer, device

    @property
    def eye_format(self) -> str:
        return "rgb24" if self.mode is OutputMode.ANAGLYPH else "yuv420p"

    @torch.inference_mode()
    def render(self, batch: FrameBatch) -> np.ndarray:
        """Packed output frames: (B,H*3/2,W) yuv420p, or (B,H,W,3) rgb24 for anaglyph."""
        small = torch.from_numpy(batch.depth_rgb).to(self.device).permute(0, 3, 1, 2)
        small = small.float().div_(255)
        depth = self.normalizer.normalize(self.estimator.estimate(small), small)
        eyes = torch.from_numpy(batch.eyes).to(self.device)
        if self.mode is OutputMode.ANAGLYPH:
            return self._anaglyph(eyes, depth)
        return self._packed_yuv(eyes, depth)

    def _anaglyph(self, rgb: torch.Tensor, depth: torch.Tensor) -> np.ndarray:
        image = rgb.permute(0, 3, 1, 2).float()
        left, right = self._both_eyes(image, depth)
        out = anaglyph(left / 255, right / 255, self.params.anaglyph_method) * 255
        return _to_uint8(out.permute(0, 2, 3, 1))

    def _packed_yuv(self, yuv: torch.Tensor, depth: torch.Tensor) -> np.ndarray:
        b, rows, w = yuv.shape
        h = rows * 2 // 3
        luma = yuv[:, :h].unsqueeze(1).float()
        chroma = yuv[:, h:].reshape(b, 2, h // 2, w // 2).float()
        luma_l, luma_r = self._both_eyes(luma, depth)
        chroma_l, chroma_r = self._both_eyes(chroma, depth)
        y = pack(self.mode, luma_l, luma_r)
        uv = pack(self.mode, chroma_l, chroma_r)
        ob, _, oh, ow = y.shape
        out = torch.cat([y.reshape(ob, oh, ow), uv.reshape(ob, oh // 2, ow)], dim=1)
        return _to_uint8(out)

    def _both_eyes(self, image: torch.Tensor, depth: torch.Tensor):
        """(left, right) eye images of ``image`` (B,C,H,W), warped in pixel-bounded chunks."""
        b, _, h, w = image.shape
        disp = eye_disparity(
            depth, size=(h, w),
            divergence=self.params.divergence, convergence=self.params.convergence,
        )
        step = max(1, WARP_CHUNK_PIXELS // (2 * h * w))
        lefts, rights = [], []
        for i in range(0, b, step):
            img, dsp = image[i : i + step], disp[i : i + step]
            n = img.shape[0]
            both = warp_view(torch.cat([img, img.flip(3)]), torch.cat([dsp, dsp.flip(3)]))
            rights.append(both[:n])
            lefts.append(both[n:].flip(3))
        return torch.cat(lefts), torch.cat(rights)


def _to_uint8(x: torch.Tensor) -> np.ndarray:
    return x.add_(0.5).clamp_(0, 255).to(torch.uint8).cpu().numpy()
