"""The HTTP server's per-request temp folders, and the sweep of those left behind.

Each ``/invocations`` downloads its input and writes its output in a fresh
``stereo-inference-*`` folder under ``work_dir`` (default: the system temp
folder) and removes it when done. A process killed mid-request (OOM, a
redeploy, SIGKILL) leaves its folder behind, and a segment's worth of video
each time fills the disk of a long-lived instance. So the server sweeps: at
start and before each request, any such folder older than a request can live
(the conversion deadline's cap plus a margin) is removed.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import time
from pathlib import Path

log = logging.getLogger(__name__)
PREFIX = "stereo-inference-"
MARGIN_S = 600.0  # download and upload time beyond the conversion's own deadline


def work_root(work_dir: Path | None) -> Path:
    """Where request folders go (made on first use, and again if it was removed)."""
    root = Path(work_dir) if work_dir is not None else Path(tempfile.gettempdir())
    root.mkdir(parents=True, exist_ok=True)
    return root


def new_work_dir(work_dir: Path | None) -> Path:
    """A fresh request folder."""
    return Path(tempfile.mkdtemp(prefix=PREFIX, dir=work_root(work_dir)))


def sweep(work_dir: Path | None, *, older_than_s: float, now: float | None = None) -> int:
    """Remove request folders last changed more than ``older_than_s`` ago;
    returns how many were removed. Never raises for a folder that vanished."""
    root = work_root(work_dir)
    cutoff = (time.time() if now is None else now) - older_than_s
    removed = 0
    for folder in root.glob(PREFIX + "*"):
        try:
            if folder.is_dir() and folder.stat().st_mtime < cutoff:
                shutil.rmtree(folder, ignore_errors=True)
                removed += 1
        except OSError:
            continue
    if removed:
        log.info("swept %d request folder(s) left behind in %s", removed, root)
    return removed
