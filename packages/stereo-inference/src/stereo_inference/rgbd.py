"""RGBD layouts: the picture on the left, its depth as grey on the right.

``rgbd`` keeps both at the source's size (twice as wide), ``half-rgbd`` squeezes
each to half width (the source's size), as iw3 writes them for players that
make the views themselves (Looking Glass displays, some VR players). The
depth is the conversion's normalised depth (the same temporal normalisation
as the stereo layouts), white = near, in the limited range of the output's bit
depth; its chroma is neutral. Nothing is warped, so no view is synthesised.
"""

from __future__ import annotations

import cv2
import numpy as np

from stereo_inference.arrays import to_numpy
from stereo_inference.decode import FrameBatch
from stereo_inference.remap import shrink
from stereo_inference.synthesis import StereoRenderer


class RgbdRenderer(StereoRenderer):
    """A ``StereoRenderer`` whose frames are (picture | depth) instead of two views."""

    @property
    def needs_host_frames(self) -> bool:
        return True  # reads ``batch.eyes`` in host memory (no NVDEC planes)

    def render(self, batch: FrameBatch) -> np.ndarray:
        depth = batch.depth if batch.depth is not None else self.estimate(batch)
        depth = to_numpy(depth)[:, 0].astype(np.float32, copy=False)
        eyes = to_numpy(batch.eyes)
        b, sh, sw = eyes.shape[0], eyes.shape[1] * 2 // 3, eyes.shape[2]
        w, h = self.eye_size or (sw, sh)
        scale = 4 if self.bit_depth > 8 else 1
        out = np.empty((b, h * 3 // 2, 2 * w), eyes.dtype)
        for i in range(b):
            out[i, :h, :w] = shrink(eyes[i, :sh], w, h)
            grey = cv2.resize(np.clip(depth[i], 0.0, 1.0), (w, h),
                              interpolation=cv2.INTER_LINEAR)
            out[i, :h, w:] = (16 + grey * 219) * scale + 0.5
            chroma = eyes[i, sh:].reshape(2, sh // 2, sw // 2)
            packed = out[i, h:].reshape(2, h // 2, w)
            for c in range(2):
                packed[c, :, :w // 2] = shrink(chroma[c], w // 2, h // 2)
                packed[c, :, w // 2:] = 128 * scale
        return out
