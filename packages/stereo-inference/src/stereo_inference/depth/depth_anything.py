"""Depth-Anything-V2 through ``transformers``, loaded from a local weights folder.

Depth-Anything-V2 and Distill-Any-Depth (the same architecture). Weights live
in ``<models_dir>/<name>`` (what ``save_pretrained`` or ``stereo-spot models
download NAME`` writes); ``depth.ensure_installed`` downloads them first when allowed.
"""

from __future__ import annotations

import json
import logging
import math
from functools import lru_cache
from pathlib import Path

import torch
import torch.nn.functional as F
from safetensors import SafetensorError
from stereo_models.depth_models import (
    install_command,
    is_installed,
    missing_model_message,
    model_folder,
)

from stereo_inference.cuda_graphs import Graphed
from stereo_inference.errors import EngineTransientError, ModelNotInstalledError
from stereo_inference.runtime import native_bfloat16

log = logging.getLogger(__name__)

_MEAN = (0.485, 0.456, 0.406)
_STD = (0.229, 0.224, 0.225)
PATCH = 14
DEFAULT_RESOLUTION = 518
# What transformers raises for a folder whose config or weights it cannot use:
# unreadable JSON, an unknown architecture, a truncated or foreign safetensors
# file, weights of other shapes than the config says.
_BROKEN_FILES = (OSError, ValueError, KeyError, TypeError, AttributeError, RuntimeError,
                 SafetensorError)


class DepthAnythingDepth:
    """A DepthAnythingForDepthEstimation model wrapped as a DepthEstimator."""

    def __init__(self, model, name: str, device: torch.device, *,
                 resolution: int = DEFAULT_RESOLUTION) -> None:
        self.name = name
        # bounds activation memory; a CPU is no faster on two frames a call than
        # on one (DA-V2-small, 2 cores: 1.27-1.39 s a frame either way), and one
        # holds half the activations
        self.max_batch = 8 if device.type == "cuda" else 1
        self.device = device
        self.resolution = resolution
        self.half = device.type == "cuda"
        # a CPU that multiplies bfloat16 natively runs the model under autocast
        # (matrix products and convolutions in bfloat16, norms and softmax in fp32)
        self.bfloat16 = device.type == "cpu" and native_bfloat16()
        self.model = model.to(device, torch.float16 if self.half else torch.float32).eval()
        if self.half:  # its convolutions (the DPT head) run faster channels-last on a GPU
            self.model = self.model.to(memory_format=torch.channels_last)
        self._mean = torch.tensor(_MEAN, device=device).view(1, 3, 1, 1)
        self._std = torch.tensor(_STD, device=device).view(1, 3, 1, 1)
        # ~400 kernels a batch: replayed from a CUDA graph on a GPU (``cuda_graphs``)
        self._forward = Graphed(self._run, f"depth model {name}")

    @classmethod
    def load(
        cls, name: str, *, models_dir: Path | None, device: torch.device,
        resolution: int | None = None,
    ) -> DepthAnythingDepth:
        """Load ``<models_dir>/<name>``. Raises ModelNotInstalledError when absent or broken.

        ``resolution`` (the short side of the model's input) defaults to what the
        model's own ``preprocessor_config.json`` says, else 518 (Depth-Anything-V2's).

        A worker converts segment after segment (and warms each seam with the
        same model), so loaded models are kept: the same folder, unchanged on
        disk, on the same device gives the same (stateless) estimator.
        """
        folder = model_folder(name, models_dir)
        if folder is None or not is_installed(name, models_dir):
            raise ModelNotInstalledError(missing_model_message(name, models_dir))
        stamp = (folder / "config.json").stat().st_mtime_ns
        resolution = resolution or preprocessor_resolution(folder)
        # a class is hashable; mypy's Hashable check of a class object is a known
        # false positive (its metaclass __hash__ is read as an instance method)
        return _load_cached(cls, name, str(folder.resolve()), str(device),  # type: ignore[arg-type]
                            resolution, stamp)

    @classmethod
    def _load_uncached(
        cls, name: str, folder: Path, device: torch.device, resolution: int
    ) -> DepthAnythingDepth:
        from transformers import DepthAnythingForDepthEstimation

        try:
            model = DepthAnythingForDepthEstimation.from_pretrained(str(folder))
        except torch.OutOfMemoryError as exc:  # a RuntimeError that may pass
            raise EngineTransientError(f"no memory to load depth model {name}: {exc}") from exc
        except _BROKEN_FILES as exc:
            # the same files fail the same way every time: the job fails at once
            raise ModelNotInstalledError(
                f"depth model {name!r} in {folder} cannot be loaded (its files are broken "
                f"or of another version; install it again with "
                f"`{install_command(name)}`): {exc}"
            ) from exc
        log.info("loaded depth model %s from %s on %s", name, folder, device)
        return cls(model, name, device, resolution=resolution)

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        return reference_size(width, height, self.resolution)

    @torch.inference_mode()
    def estimate(self, rgb) -> torch.Tensor:
        rgb = torch.as_tensor(rgb)  # the CPU engine hands numpy frames
        return self._forward(rgb.to(self.device, torch.float32))

    def _run(self, rgb: torch.Tensor) -> torch.Tensor:
        x = (rgb - self._mean) / self._std
        if self.half:
            x = x.half().contiguous(memory_format=torch.channels_last)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.bfloat16):
            depth = self.model(pixel_values=x).predicted_depth  # (B,h',w'), larger = nearer
        depth = depth.unsqueeze(1).float()
        if depth.shape[-2:] != rgb.shape[-2:]:
            depth = F.interpolate(depth, size=rgb.shape[-2:], mode="bilinear", align_corners=False)
        return depth


@lru_cache(maxsize=2)
def _load_cached(cls, name: str, folder: str, device: str, resolution: int,
                 stamp: int) -> DepthAnythingDepth:
    """``stamp`` (the config's mtime) is part of the key so a reinstall reloads."""
    return cls._load_uncached(name, Path(folder), torch.device(device), resolution)


def preprocessor_resolution(folder: Path) -> int:
    """The input size a model folder's ``preprocessor_config.json`` names (a
    transformers DPTImageProcessor's ``size``: the lower bound of its resize),
    else 518. A file that cannot be read is no reason to refuse the model."""
    try:
        size = json.loads((folder / "preprocessor_config.json").read_text())["size"]
        value = int(min(size["height"], size["width"]))
    except (OSError, ValueError, KeyError, TypeError):
        return DEFAULT_RESOLUTION
    return value if value >= PATCH else DEFAULT_RESOLUTION


def reference_size(width: int, height: int,
                   resolution: int = DEFAULT_RESOLUTION) -> tuple[int, int]:
    """The (width, height) Depth-Anything-V2's own preprocessing feeds its model for
    a ``width`` x ``height`` picture: the aspect kept, the short side scaled to
    ``resolution`` -- up as well as down -- and each side rounded to a multiple
    of the patch size, never below ``resolution`` (its "lower bound" resize).
    """
    scale = resolution / min(width, height)
    return _multiple(width * scale, resolution), _multiple(height * scale, resolution)


def _multiple(value: float, floor: int) -> int:
    rounded = int(round(value / PATCH)) * PATCH
    return rounded if rounded >= floor else math.ceil(value / PATCH) * PATCH
