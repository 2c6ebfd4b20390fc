"""Depth-Anything-V2's own inference (``DepthAnythingV2.infer_image`` of
DepthAnything/Depth-Anything-V2), written here from its description, as the
yardstick the engine's learned path is measured against:

1. the picture, RGB, as floats in 0..1;
2. resized keeping its aspect so that both sides are at least the input size
   (518; a "lower bound" resize), each side a multiple of 14 -- rounded to the
   nearest multiple, or the next one up when that falls under the bound --
   with OpenCV's cubic interpolation;
3. normalised with ImageNet's mean and standard deviation, channels first;
4. the model's forward pass;
5. the depth interpolated back to the picture's size (bilinear, corners aligned).

``swap_channels`` and ``normalise`` exist for the negative controls: the same
steps with BGR fed as RGB, or without the normalisation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812

INPUT_SIZE = 518
MULTIPLE = 14
MEAN = np.array([0.485, 0.456, 0.406])
STD = np.array([0.229, 0.224, 0.225])


@dataclass(frozen=True)
class ReferenceDepth:
    at_input: np.ndarray  # (h', w'): the model's output at its input size
    at_source: np.ndarray  # (h, w): interpolated back, what infer_image returns


def lower_bound_size(width: int, height: int, bound: int = INPUT_SIZE) -> tuple[int, int]:
    """(width, height) of the reference's resize for a ``width`` x ``height`` picture."""
    scale = max(bound / width, bound / height)

    def side(x: float) -> int:
        y = int(np.round(x / MULTIPLE) * MULTIPLE)
        return y if y >= bound else int(math.ceil(x / MULTIPLE) * MULTIPLE)

    return side(width * scale), side(height * scale)


def infer_image(model, rgb: np.ndarray, *, swap_channels: bool = False,
                normalise: bool = True) -> ReferenceDepth:
    """Depth of ``rgb`` (h, w, 3) uint8 through ``model`` (a transformers
    DepthAnythingForDepthEstimation) the way the original project runs it."""
    height, width = rgb.shape[:2]
    picture = (rgb[..., ::-1] if swap_channels else rgb) / 255.0
    size = lower_bound_size(width, height)
    picture = cv2.resize(picture, size, interpolation=cv2.INTER_CUBIC)
    if normalise:
        picture = (picture - MEAN) / STD
    x = torch.from_numpy(np.ascontiguousarray(picture.transpose(2, 0, 1))).float()[None]
    with torch.inference_mode():
        depth = model(pixel_values=x).predicted_depth[:, None].float()
    back = F.interpolate(depth, (height, width), mode="bilinear", align_corners=True)
    return ReferenceDepth(depth[0, 0].numpy(), back[0, 0].numpy())
