"""``stereo-inference models download NAME``: fetch Depth-Anything-V2 weights once.

A Hugging Face snapshot into ``<models_dir>/<name>`` (machines with internet);
the engine itself only ever loads from that folder.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from stereo_inference.depth.architectures import HUB_REPOS
from stereo_inference.errors import EngineTransientError, InvalidInputError

_FILES = ["config.json", "model.safetensors", "preprocessor_config.json"]


def download_model(
    name: str, models_dir: Path, *, snapshot: Callable[..., str] | None = None
) -> Path:
    """Download ``name`` into ``models_dir/name`` and return that folder.

    ``snapshot`` defaults to ``huggingface_hub.snapshot_download``. Raises
    InvalidInputError for an unknown name, EngineTransientError when the
    download fails.
    """
    if name not in HUB_REPOS:
        raise InvalidInputError(
            f"unknown model {name!r}; downloadable: {', '.join(sorted(HUB_REPOS))}"
        )
    if snapshot is None:
        from huggingface_hub import snapshot_download as snapshot
    target = Path(models_dir) / name
    target.mkdir(parents=True, exist_ok=True)
    try:
        snapshot(repo_id=HUB_REPOS[name], local_dir=str(target), allow_patterns=_FILES)
    except OSError as exc:
        raise EngineTransientError(f"downloading {name} failed: {exc}") from exc
    if not (target / "config.json").is_file():
        raise EngineTransientError(f"download of {name} finished without a config.json")
    return target
