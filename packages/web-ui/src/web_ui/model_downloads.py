"""Model downloads started from the web UI: one background thread per model, with
progress the models page polls (``GET /api/models``).

The download itself is ``stereo_models.model_install.download_model`` (resume,
checksum, atomic install) into the one models folder every service reads.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from shared_types.errors import ModelDownloadError, ModelUnavailableError
from stereo_models.depth_models import CATALOG, is_installed
from stereo_models.model_install import download_model

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DownloadState:
    status: str  # "downloading", "failed" or "done"
    done_bytes: int = 0
    total_bytes: int = 0
    error: str | None = None


class ModelDownloads:
    """Background downloads into ``models_dir``, at most one per model."""

    def __init__(self, models_dir: Path, endpoint: str | None) -> None:
        self.models_dir, self.endpoint = models_dir, endpoint
        self._states: dict[str, DownloadState] = {}
        self._lock = threading.Lock()

    def start(self, name: str) -> threading.Thread | None:
        """Start downloading ``name`` unless it is installed or already on its way.

        Raises ModelUnavailableError for a name that is not in the catalogue.
        """
        if name not in CATALOG:
            raise ModelUnavailableError(f"unknown model {name!r}")
        with self._lock:
            if is_installed(name, self.models_dir) or (
                    self._states.get(name, DownloadState("none")).status == "downloading"):
                return None
            self._states[name] = DownloadState("downloading")
        thread = threading.Thread(target=self._run, args=(name,), name=f"download-{name}",
                                  daemon=True)
        thread.start()
        return thread

    def states(self) -> dict[str, DownloadState]:
        with self._lock:
            return dict(self._states)

    def _run(self, name: str) -> None:
        totals: dict[str, tuple[int, int]] = {}

        def progress(filename: str, done: int, total: int) -> None:
            totals[filename] = (done, total)
            with self._lock:
                self._states[name] = replace(
                    self._states[name], done_bytes=sum(d for d, _ in totals.values()),
                    total_bytes=sum(t for _, t in totals.values()))

        try:
            download_model(name, self.models_dir, endpoint=self.endpoint, progress=progress)
        except (ModelDownloadError, ModelUnavailableError) as exc:
            log.warning("download of %s failed: %s", name, exc)
            with self._lock:
                self._states[name] = replace(self._states[name], status="failed", error=str(exc))
            return
        with self._lock:
            self._states[name] = replace(self._states[name], status="done")
        log.info("model %s installed in %s", name, self.models_dir)
