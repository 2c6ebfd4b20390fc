"""Install and remove depth models in the models folder (Hugging Face hub downloads).

A download goes file by file through ``huggingface_hub`` (its HTTP client:
resumes an interrupted transfer with a Range request, checks sizes) into a
staging folder beside the target, at the revision the catalogue pins
(``ModelCard.revision``); every file is then checked against the SHA-256 the
catalogue pins for it (``ModelCard.sha256``), never against a checksum the
endpoint itself sends, so a mirror or a hub that serves other bytes cannot
install them. A mismatch deletes the download and fails; the folder is renamed
into place only when every file matched, so a model is either fully installed
or absent. A model the catalogue does not pin is not downloaded at all.
``endpoint`` (or ``HF_ENDPOINT``, read by huggingface_hub) names a mirror.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path

from shared_types.errors import ModelDownloadError, ModelUnavailableError
from shared_types.models import DepthModel

from stereo_models.depth_models import CATALOG, model_folder

REQUIRED = ("config.json", "model.safetensors")
OPTIONAL = ("preprocessor_config.json",)
Progress = Callable[[str, int, int], None]  # (file, bytes done, bytes total)


def download_model(name: str, models_dir: Path, *, endpoint: str | None = None,
                   progress: Progress | None = None) -> Path:
    """Download ``name`` into ``<models_dir>/<name>`` and return that folder.

    Raises ModelUnavailableError for a name that is not in the catalogue and
    ModelDownloadError when the hub cannot be reached, a file is missing, or
    the weights do not match their published checksum (nothing is installed).
    """
    from httpx2 import HTTPError  # huggingface_hub's HTTP client; HfHubHTTPError is one
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError, LocalEntryNotFoundError

    card = CATALOG.get(name)
    if card is None:
        raise ModelUnavailableError(
            f"unknown model {name!r}; downloadable: {', '.join(sorted(CATALOG))}")
    target = model_folder(name, models_dir)
    if target is None:
        raise ModelUnavailableError(f"no models folder to install {name} into")
    if not card.pinned:
        raise ModelDownloadError(
            f"{name} is not downloaded: the catalogue pins no revision and SHA-256 for its "
            f"files yet (stereo_models.depth_models), so its bytes could not be checked; "
            f"put its config.json and model.safetensors in {target} yourself")
    staging = target.with_name(f".{name}.partial")  # kept across attempts: resumes
    staging.mkdir(parents=True, exist_ok=True)
    try:
        for filename in REQUIRED + OPTIONAL:
            if filename not in card.sha256:  # an optional file nobody pinned: not fetched
                continue
            try:
                path = hf_hub_download(card.repo, filename, revision=card.revision,
                                       local_dir=staging, endpoint=endpoint,
                                       tqdm_class=_progress_class(filename, progress))
            except EntryNotFoundError:
                if filename in OPTIONAL:
                    continue
                raise
            _verify(Path(path), card.sha256[filename], name)
    except (HTTPError, LocalEntryNotFoundError, OSError) as exc:
        reason = " ".join(str(exc).split())  # one line: hub errors span several
        raise ModelDownloadError(f"downloading {name} from {card.repo} failed: {reason}") from exc
    shutil.rmtree(staging / ".cache", ignore_errors=True)
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    return target


def remove_model(name: str, models_dir: Path) -> bool:
    """Delete an installed model (and any partial download); True when there was one."""
    target = model_folder(name, models_dir)
    if target is None:
        return False
    existed = target.is_dir()
    shutil.rmtree(target, ignore_errors=True)
    shutil.rmtree(target.with_name(f".{name}.partial"), ignore_errors=True)
    return existed


def _verify(path: Path, expected: str, name: str) -> None:
    """``path`` must have the pinned SHA-256 ``expected``; a mismatch deletes it
    (and the caller installs nothing)."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != expected:
        path.unlink(missing_ok=True)
        raise ModelDownloadError(
            f"{name}: {path.name} does not match its pinned checksum "
            f"(got SHA-256 {digest.hexdigest()[:12]}…, the catalogue pins {expected[:12]}…); "
            "the download was deleted and nothing was installed")


def _progress_class(filename: str, progress: Progress | None):
    """A tqdm class that reports bytes to ``progress`` (huggingface_hub drives it)."""
    from tqdm.auto import tqdm

    if progress is None:
        return None

    class Reporting(tqdm):
        def __init__(self, *args, **kwargs):
            kwargs["disable"] = True  # the caller shows progress its own way
            super().__init__(*args, **kwargs)
            self.done = int(kwargs.get("initial") or 0)

        def update(self, n=1):
            self.done += int(n or 0)
            progress(filename, self.done, int(self.total or 0))

    return Reporting


def check_model_available(name: str, models_dir: Path | None, *, auto_download: bool,
                          endpoint: str | None = None, timeout_s: float = 3.0,
                          engine_here: bool = True) -> None:
    """Refuse a job at creation when its depth model cannot run here.

    Fine when ``name`` needs no weights, is installed, or may be downloaded on
    first use (``auto_download``, a model the catalogue pins) from a hub that
    answers now; ``iw3`` when its
    package is importable, or when the engine runs elsewhere (``engine_here``
    false: the GPU image, which has it). Raises ModelUnavailableError with the
    exact command that installs it otherwise.
    """
    from stereo_models.depth_models import (
        IW3_MISSING,
        is_installed,
        iw3_installed,
        missing_model_message,
        needs_weights,
    )

    if str(name) == DepthModel.IW3 and engine_here and not iw3_installed():
        raise ModelUnavailableError(IW3_MISSING)
    if not needs_weights(name) or is_installed(name, models_dir):
        return
    if (auto_download and models_dir is not None and CATALOG[name].pinned
            and hub_reachable(name, endpoint, timeout_s)):
        return
    raise ModelUnavailableError(missing_model_message(name, models_dir))


def hub_reachable(name: str, endpoint: str | None, timeout_s: float) -> bool:
    """Whether the hub answers for ``name``'s config (a HEAD request, no download)."""
    from httpx2 import HTTPError
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    url = hf_hub_url(CATALOG[name].repo, "config.json", endpoint=endpoint)
    try:
        get_hf_file_metadata(url, timeout=timeout_s, endpoint=endpoint)
    except (HTTPError, OSError, ValueError):
        return False
    return True
