"""The depth models people can install: names, hub repositories, licences, sizes,
and where every command and service looks for them (one folder for all).

No torch here: the web UI and the CLI list, check and refuse models without
loading the engine. Weights of ``name`` live in ``<models_dir>/<name>``
(``config.json`` + ``model.safetensors``, what ``save_pretrained`` writes).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from shared_types.models import DepthModel

PINNED_FILES = ("config.json", "model.safetensors")  # a download needs a pin for each


@dataclass(frozen=True)
class ModelCard:
    name: str
    repo: str  # Hugging Face hub repository (transformers format)
    licence: str
    size_mb: int  # download size, roughly
    quality: int  # higher is better; picks the default among installed models
    # The hub commit a download asks for, and the SHA-256 every downloaded file
    # must have (file name -> hex), checked whatever endpoint served it
    # (stereo_models.model_install). Without both, the model is not downloaded.
    revision: str | None = None
    sha256: Mapping[str, str] = field(default_factory=dict, hash=False)

    @property
    def pinned(self) -> bool:
        """Whether this model can be downloaded: a revision and each needed file's hash."""
        return self.revision is not None and all(f in self.sha256 for f in PINNED_FILES)


# Distill-Any-Depth shares Depth-Anything-V2's architecture (transformers
# DepthAnythingForDepthEstimation); its base size is not published in that format.
CATALOG: dict[str, ModelCard] = {card.name: card for card in (
    ModelCard("depth-anything-v2-small", "depth-anything/Depth-Anything-V2-Small-hf",
              "Apache-2.0", 99, 10, revision="5426e4f0f36572d16453bbda7a8389317b1bef99",
              sha256={
                  "config.json":
                      "c56698d3643dde1f83ea2212759e6b31a22b8f827246a36dd007ee8a22b3ff75",
                  "preprocessor_config.json":
                      "d41175c0d889477ca8fc67191e540faef14baf6275157b3fdecf78469e6bbf84",
                  "model.safetensors":
                      "3152477ce0d8d6978d76b995120de97cb5b928701fd0f817769f59e249a16b70"}),
    ModelCard("depth-anything-v2-base", "depth-anything/Depth-Anything-V2-Base-hf",
              "CC-BY-NC-4.0 (non-commercial)", 390, 20),
    # Its weights are pinned; its config.json not yet, so it is not downloaded.
    ModelCard("depth-anything-v2-large", "depth-anything/Depth-Anything-V2-Large-hf",
              "CC-BY-NC-4.0 (non-commercial)", 1340, 30,
              revision="7581137eff8d4e94f6e796d3baea0e9fa79b22d2",
              sha256={"model.safetensors":
                      "4e01e34ed5549b529b70b92d53226bc370f03041977b390d3dde45d47f516cf9"}),
    ModelCard("distill-any-depth-small", "xingyang1/Distill-Any-Depth-Small-hf",
              "see the model card (hub: Apache-2.0)", 99, 15),
    ModelCard("distill-any-depth-large", "xingyang1/Distill-Any-Depth-Large-hf",
              "see the model card (hub: Apache-2.0)", 1340, 35),
    # Depth-Anything-V2-Small with temporal layers (stereo_inference.depth.video_depth_anything)
    ModelCard("video-depth-anything-small", "depth-anything/Video-Depth-Anything-Small",
              "Apache-2.0", 113, 12),  # not pinned: its hub files are the original .pth
)}


def model_folder(name: str, models_dir: Path | None) -> Path | None:
    """Where the weights of ``name`` are expected (None without a models folder)."""
    return Path(models_dir) / name if models_dir else None


def is_installed(name: str, models_dir: Path | None) -> bool:
    """True when ``<models_dir>/<name>`` holds a config.json and safetensors weights."""
    folder = model_folder(name, models_dir)
    return bool(folder and (folder / "config.json").is_file()
                and any(folder.glob("*.safetensors")))


def installed_bytes(name: str, models_dir: Path | None) -> int:
    """Bytes on disk of an installed model (0 when absent)."""
    folder = model_folder(name, models_dir)
    if not folder or not folder.is_dir():
        return 0
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def needs_weights(model: DepthModel | str) -> bool:
    """Whether ``model`` loads weights from the models folder (heuristic and iw3 do not)."""
    return str(model) in CATALOG


IW3_MISSING = ("depth model 'iw3' needs nagadomi/nunif's iw3 package, which is installed "
               "only in the GPU image (packages/stereo-inference/Dockerfile); choose another "
               "depth model")


def iw3_installed() -> bool:
    """True when nagadomi/nunif's ``iw3`` package can be imported by this interpreter."""
    return importlib.util.find_spec("iw3") is not None


def best_installed(models_dir: Path | None) -> DepthModel:
    """The installed model of highest quality, else the weight-free ``heuristic``."""
    ranked = sorted(CATALOG.values(), key=lambda c: -c.quality)
    for card in ranked:
        if is_installed(card.name, models_dir):
            return DepthModel(card.name)
    return DepthModel.HEURISTIC


def install_command(name: str) -> str:
    """The exact command that installs ``name``."""
    return f"stereo-spot models download {name}"


def missing_model_message(name: str, models_dir: Path | None) -> str:
    """Why a job asking for ``name`` cannot run here, and what to do about it."""
    where = model_folder(name, models_dir) or "the models folder (STEREO_SPOT_MODELS_DIR)"
    return (f"depth model {name!r} is not installed (expected in {where}); install it with "
            f"`{install_command(name)}` on a machine with internet, or choose heuristic")
