"""Video-Depth-Anything: Depth-Anything-V2 with temporal layers in its DPT head,
for depth that holds steady from frame to frame (what iw3 users ask for
against flicker). Built here from its description (no package ships it):

- the encoder, the reassembly and the fusion are Depth-Anything-V2's
  (transformers' ``DepthAnythingForDepthEstimation`` modules, the same weights'
  layout);
- a ``temporal_module.TemporalModule`` after the two coarsest reassembled
  maps and after each of the two coarsest fusion stages;
- the input prepared as Depth-Anything-V2's reference does it (``depth_anything``).

Streamed: the estimator keeps each temporal layer's memory of the frames it
has seen, so frames must come in order (the engine's depth stage guarantees it);
each conversion gets its own estimator, the loaded model is shared.

Weights live in ``<models_dir>/<name>``: ``config.json`` (``model_type``
``video_depth_anything``, the Depth-Anything config under ``depth_anything``,
the temporal layers' sizes under ``temporal``) and ``model.safetensors`` in this
module's layout (``save_video_depth_anything`` writes both).
"""

from __future__ import annotations

import json
import logging
from functools import lru_cache
from pathlib import Path

import torch
from safetensors import SafetensorError
from torch import nn

from stereo_inference.depth.depth_anything import (
    _MEAN,
    _STD,
    preprocessor_resolution,
    reference_size,
)
from stereo_inference.depth.temporal_module import TemporalModule
from stereo_inference.errors import EngineTransientError, ModelNotInstalledError

log = logging.getLogger(__name__)
MODEL_TYPE = "video_depth_anything"
TEMPORAL = {"heads": 8, "blocks": 2, "max_len": 32}


class VideoDepthAnything(nn.Module):
    def __init__(self, config, temporal: dict | None = None) -> None:
        from transformers import DepthAnythingForDepthEstimation

        super().__init__()
        temporal = {**TEMPORAL, **(temporal or {})}
        self.temporal = temporal
        self.base = DepthAnythingForDepthEstimation(config)
        coarse, fused = config.neck_hidden_sizes[2:], config.fusion_hidden_size
        self.motion = nn.ModuleList(TemporalModule(c, **temporal)
                                    for c in (*coarse, fused, fused))

    def forward(self, pixel_values: torch.Tensor, caches: list | None):
        """Depth (frames, h, w) of ``pixel_values`` (frames, 3, h, w), normalised,
        in order after the frames ``caches`` remember; returns it and the caches."""
        caches = caches or [None] * len(self.motion)
        kept = []

        def temporal(i: int, x: torch.Tensor) -> torch.Tensor:
            out, cache = self.motion[i](x, caches[i])
            kept.append(cache)
            return out

        base = self.base
        # transformers types patch_size as an int or a pair; these models' is an int
        patch = base.config.patch_size
        patch = patch if isinstance(patch, int) else int(patch[0])
        ph, pw = pixel_values.shape[-2] // patch, pixel_values.shape[-1] // patch
        maps = base.backbone.forward_with_filtered_kwargs(pixel_values).feature_maps
        maps = list(base.neck.reassemble_stage(maps, ph, pw))
        maps[2], maps[3] = temporal(0, maps[2]), temporal(1, maps[3])
        maps = [conv(m) for conv, m in zip(base.neck.convs, maps, strict=True)][::-1]
        fusion = base.neck.fusion_stage.layers
        path = temporal(2, fusion[0](maps[0], size=maps[1].shape[2:]))
        path = temporal(3, fusion[1](path, maps[1], size=maps[2].shape[2:]))
        path = fusion[2](path, maps[2], size=maps[3].shape[2:])
        path = fusion[3](path, maps[3])
        return base.head([path], ph, pw), kept


class VideoDepthAnythingDepth:
    """A VideoDepthAnything model as a (stateful) DepthEstimator."""

    def __init__(self, model: VideoDepthAnything, name: str, device: torch.device, *,
                 resolution: int = 518) -> None:
        self.name, self.device, self.resolution = name, device, resolution
        self.max_batch = 8 if device.type == "cuda" else 1
        self.model = model
        self._mean = torch.tensor(_MEAN, device=device).view(1, 3, 1, 1)
        self._std = torch.tensor(_STD, device=device).view(1, 3, 1, 1)
        self._caches = None  # the temporal layers' memory of the frames seen

    @classmethod
    def load(cls, name: str, *, models_dir: Path | None, device: torch.device,
             resolution: int | None = None) -> VideoDepthAnythingDepth:
        """A new estimator (no memory of frames) on the model in ``<models_dir>/<name>``,
        loaded once per folder state and device. Raises ModelNotInstalledError."""
        from stereo_models.depth_models import is_installed, missing_model_message, model_folder

        folder = model_folder(name, models_dir)
        if folder is None or not is_installed(name, models_dir):
            raise ModelNotInstalledError(missing_model_message(name, models_dir))
        stamp = (folder / "config.json").stat().st_mtime_ns
        model = _load_model(name, str(folder.resolve()), str(device), stamp)
        return cls(model, name, torch.device(device),
                   resolution=resolution or preprocessor_resolution(folder))

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        return reference_size(width, height, self.resolution)

    @torch.inference_mode()
    def estimate(self, rgb) -> torch.Tensor:
        rgb = torch.as_tensor(rgb).to(self.device, torch.float32)
        depth, self._caches = self.model((rgb - self._mean) / self._std, self._caches)
        return depth.unsqueeze(1).float()


def save_video_depth_anything(model: VideoDepthAnything, folder: Path) -> None:
    """Write ``model`` as an installed model folder (config.json, model.safetensors)."""
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    config = {"model_type": MODEL_TYPE, "temporal": model.temporal,
              "depth_anything": model.base.config.to_dict()}
    (folder / "config.json").write_text(json.dumps(config))
    save_file({k: v.contiguous() for k, v in model.state_dict().items()},
              str(folder / "model.safetensors"))


@lru_cache(maxsize=2)
def _load_model(name: str, folder: str, device: str, stamp: int) -> VideoDepthAnything:
    """``stamp`` (the config's mtime) is part of the key so a reinstall reloads."""
    from safetensors.torch import load_file
    from transformers import DepthAnythingConfig

    try:
        config = json.loads((Path(folder) / "config.json").read_text())
        if config.get("model_type") != MODEL_TYPE:
            raise ValueError(f"config.json names {config.get('model_type')!r}")
        model = VideoDepthAnything(DepthAnythingConfig.from_dict(config["depth_anything"]),
                                   config.get("temporal"))
        model.load_state_dict(load_file(str(Path(folder) / "model.safetensors")))
    except torch.OutOfMemoryError as exc:
        raise EngineTransientError(f"no memory to load depth model {name}: {exc}") from exc
    except (OSError, ValueError, KeyError, TypeError, RuntimeError, SafetensorError) as exc:
        from stereo_models.depth_models import install_command

        raise ModelNotInstalledError(
            f"depth model {name!r} in {folder} cannot be loaded (its files are broken or of "
            f"another version; install it again with `{install_command(name)}`): {exc}"
        ) from exc
    log.info("loaded depth model %s from %s on %s", name, folder, device)
    return model.to(device).eval()
