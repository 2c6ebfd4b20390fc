"""The local backend's lifecycle rule: prefixes marked expirable are deleted
once their mark is older than the retention age.

S3 expires tagged objects by itself; here a mark is a file
``{data_dir}/expirable/{bucket}/{quoted prefix}`` whose mtime is the mark's
time, and the sweep runs whenever a prefix is marked and when the backend is
built (no scheduler needed: a stack that ends jobs sweeps as it goes).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from urllib.parse import quote, unquote

from shared_types.models import now

log = logging.getLogger(__name__)


class ExpiryMarks:
    """Expirable prefixes of one bucket."""

    def __init__(self, folder: Path, *, expire_after_s: float) -> None:
        self.folder = Path(folder)
        self.expire_after_s = expire_after_s

    def _path(self, prefix: str) -> Path:
        return self.folder / quote(prefix, safe="")

    def mark(self, prefix: str) -> None:
        """Mark ``prefix`` now (a second mark restarts its age)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self._path(prefix)
        path.touch()
        os.utime(path)

    def unmark(self, prefix: str) -> None:
        """Forget the mark of ``prefix`` (no error if none)."""
        self._path(prefix).unlink(missing_ok=True)

    def due(self, *, at: float | None = None) -> list[str]:
        """Prefixes whose mark is older than the retention age."""
        if not self.folder.is_dir():
            return []
        limit = (now() if at is None else at) - self.expire_after_s
        out = []
        for path in self.folder.iterdir():
            try:
                if path.stat().st_mtime <= limit:
                    out.append(unquote(path.name))
            except FileNotFoundError:
                continue  # unmarked or swept by another process meanwhile
        return sorted(out)

    def sweep(self, storage, *, at: float | None = None) -> int:
        """Delete every object under each due prefix of ``storage`` (a
        FilesystemStorage), then its mark; returns how many objects went."""
        deleted = 0
        for prefix in self.due(at=at):
            for info in list(storage.list(prefix)):
                storage.delete(info.key)
                deleted += 1
            self.unmark(prefix)
            log.info("bucket=%s prefix=%s expired", storage.bucket, prefix)
        return deleted
