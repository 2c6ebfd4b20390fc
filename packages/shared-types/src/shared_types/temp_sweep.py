"""Remove temporary files a killed process left behind (startup sweeps).

A worker SIGKILLed mid-chunking leaves ``chunk-<job>-*`` (a multi-GB source and
its segments); one killed mid-upload leaves ``upload-*``. Nothing else would
ever delete them. Every service sweeps its own temp folders when it starts;
an entry is removed only when nothing in it changed for ``older_than_s``, so a
sibling process that is still writing (several workers share a folder) keeps
its files.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)

DEFAULT_OLDER_THAN_S = 6 * 3600.0


def _newest_mtime(path: Path) -> float:
    newest = path.lstat().st_mtime
    if path.is_dir() and not path.is_symlink():
        for root, dirs, files in os.walk(path):
            for name in [*dirs, *files]:
                try:
                    newest = max(newest, (Path(root) / name).lstat().st_mtime)
                except FileNotFoundError:
                    continue
    return newest


def sweep_stale_temp(folder: Path | None, prefixes: Iterable[str], *,
                     older_than_s: float = DEFAULT_OLDER_THAN_S,
                     now: float | None = None) -> list[Path]:
    """Delete entries of ``folder`` whose name starts with one of ``prefixes``
    and whose newest content is older than ``older_than_s``. Returns what was
    removed; a missing folder, or an entry that vanishes meanwhile, is no error."""
    if folder is None or not Path(folder).is_dir():
        return []
    t = time.time() if now is None else now
    prefixes = tuple(prefixes)
    removed = []
    for entry in Path(folder).iterdir():
        if not entry.name.startswith(prefixes):
            continue
        try:
            if t - _newest_mtime(entry) < older_than_s:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        except FileNotFoundError:
            continue
        removed.append(entry)
    if removed:
        log.warning("removed %d stale temporary entr%s from %s", len(removed),
                    "y" if len(removed) == 1 else "ies", folder)
    return removed
