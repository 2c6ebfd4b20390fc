"""Multipart uploads on the filesystem, following S3's protocol.

An upload is a folder ``{data_dir}/multipart/{bucket}/{upload_id}/`` holding
``upload.json`` (key, size cap, content type) and one file per received part
(``00001.part`` ...), each written to a temp file and renamed into place, so a
part is either wholly there or absent. Completing joins the parts into a temp
file and adopts it as the object (one atomic rename, one object-created
event), then removes the folder. The browser PUTs parts to signed
``/storage/...?op=part`` URLs served by :mod:`local_adapters.storage_app`.
An upload nobody completed or aborted (a closed tab, a cancelled job) is
removed a day after it started, as the S3 buckets' lifecycle rule
(``abort_incomplete_multipart_upload``, 1 day) does: when a backend is built
and whenever an upload starts.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import time
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from shared_types.errors import UploadNotFoundError, UploadTooLargeError
from shared_types.models import MAX_PARTS, ObjectInfo, UploadedPart
from shared_types.multipart import checked_total

if TYPE_CHECKING:
    from local_adapters.signing import UrlSigner

COPY_CHUNK = 4 * 1024 * 1024
_UPLOAD_ID_RE = re.compile(r"^[0-9a-f]{32}$")
_PART_RE = re.compile(r"^(\d{5})\.part$")
ABANDONED_AFTER_S = 86400.0  # the S3 rule's days_after_initiation = 1


class MultipartUploads:
    """The multipart half of :class:`~local_adapters.storage.FilesystemStorage`
    (a mixin: it uses the storage's bucket, signer, temp files and adopt_file)."""

    uploads_dir: Path
    bucket: str
    signer: UrlSigner

    if TYPE_CHECKING:  # what the storage provides (declared here for the type checker only)
        def path_of(self, key: str) -> Path: ...
        def temp_file(self) -> Path: ...
        def disk_full_as(self, key: str | None) -> AbstractContextManager[None]: ...
        def adopt_file(self, key: str, tmp: Path, *,
                       if_absent: bool = False) -> ObjectInfo: ...

    def _upload_dir(self, key: str, upload_id: str) -> tuple[Path, dict]:
        if not isinstance(upload_id, str) or not _UPLOAD_ID_RE.match(upload_id):
            raise UploadNotFoundError(f"no upload {upload_id!r}")
        folder = self.uploads_dir / upload_id
        try:
            meta = json.loads((folder / "upload.json").read_text())
        except (FileNotFoundError, NotADirectoryError):
            raise UploadNotFoundError(f"no upload {upload_id} in {self.bucket}") from None
        if meta["key"] != key:
            raise UploadNotFoundError(f"upload {upload_id} is not for {self.bucket}/{key}")
        return folder, meta

    def start_multipart(self, key: str, *, max_bytes: int | None = None,
                        content_type: str | None = None) -> str:
        """Open an upload to ``key``; returns its id. Raises InvalidKeyError."""
        self.path_of(key)
        self.abort_abandoned()
        upload_id = secrets.token_hex(16)
        folder = self.uploads_dir / upload_id
        folder.mkdir(parents=True)
        meta = {"key": key, "max_bytes": max_bytes, "content_type": content_type}
        (folder / "upload.json").write_text(json.dumps(meta))
        return upload_id

    def upload_cap(self, key: str, upload_id: str) -> int | None:
        """The size cap the upload was opened with (None: uncapped).
        Raises UploadNotFoundError."""
        return self._upload_dir(key, upload_id)[1]["max_bytes"]

    def presign_part(self, key: str, upload_id: str, part_number: int, *,
                     expires_s: int = 3600, content_length: int | None = None) -> str:
        """A signed PUT URL for one part (of at most ``content_length`` bytes,
        signed into the URL). Raises UploadNotFoundError, ValueError."""
        if not 1 <= part_number <= MAX_PARTS:
            raise ValueError(f"part number {part_number} is outside 1..{MAX_PARTS}")
        self._upload_dir(key, upload_id)
        url, _ = self.signer.sign("part", self.bucket, key, expires_s=expires_s,
                                  max_bytes=content_length,
                                  upload_id=upload_id, part_number=part_number)
        return url

    def open_uploads(self, key: str) -> list[str]:
        """Ids of the uploads to ``key`` still open, oldest first."""
        if not self.uploads_dir.is_dir():
            return []
        found = []
        for folder in self.uploads_dir.iterdir():
            try:
                meta = folder / "upload.json"
                if json.loads(meta.read_text())["key"] == key:
                    found.append((meta.stat().st_mtime, folder.name))
            except (FileNotFoundError, NotADirectoryError, ValueError, KeyError):
                continue  # completed or aborted meanwhile, or not an upload
        return [upload_id for _, upload_id in sorted(found)]

    def room_for_part(self, key: str, upload_id: str, part_number: int) -> int | None:
        """How many bytes part ``part_number`` may have without the upload going
        over its cap (None: no cap). Raises UploadNotFoundError."""
        cap = self.upload_cap(key, upload_id)
        if cap is None:
            return None
        others = sum(p.size for p in self.list_parts(key, upload_id)
                     if p.part_number != part_number)
        return max(0, cap - others)

    def adopt_part(self, key: str, upload_id: str, part_number: int, tmp: Path) -> UploadedPart:
        """Move a received part (a temp file from ``temp_file``) into the upload,
        replacing an earlier copy. Raises UploadNotFoundError."""
        folder, _ = self._upload_dir(key, upload_id)
        size = tmp.stat().st_size
        os.replace(tmp, folder / f"{part_number:05d}.part")
        return UploadedPart(part_number=part_number, size=size, etag=f"{size:x}")

    def list_parts(self, key: str, upload_id: str) -> list[UploadedPart]:
        """Received parts by number. Raises UploadNotFoundError."""
        folder, _ = self._upload_dir(key, upload_id)
        parts = []
        for entry in os.scandir(folder):
            m = _PART_RE.match(entry.name)
            if m:
                size = entry.stat().st_size
                parts.append(UploadedPart(part_number=int(m[1]), size=size, etag=f"{size:x}"))
        return sorted(parts, key=lambda p: p.part_number)

    def complete_multipart(self, key: str, upload_id: str, *,
                           max_bytes: int | None = None) -> ObjectInfo:
        """Join the parts into ``key`` (streaming, atomic). Raises
        UploadNotFoundError, InvalidUploadError, UploadTooLargeError (the
        upload is then aborted), DiskFullError (the parts are kept: completing
        again once space is freed works)."""
        folder, meta = self._upload_dir(key, upload_id)
        caps = [c for c in (max_bytes, meta["max_bytes"]) if c is not None]
        parts = self.list_parts(key, upload_id)
        try:
            checked_total(parts, min(caps) if caps else None)
        except UploadTooLargeError:
            self.abort_multipart(key, upload_id)
            raise
        tmp = self.temp_file()
        try:  # the parts stay until the join is stored: a full disk can be freed and retried
            with self.disk_full_as(key), open(tmp, "wb") as out:
                for part in parts:
                    with open(folder / f"{part.part_number:05d}.part", "rb") as src:
                        shutil.copyfileobj(src, out, COPY_CHUNK)
            info = self.adopt_file(key, tmp)
        finally:
            tmp.unlink(missing_ok=True)
        shutil.rmtree(folder, ignore_errors=True)
        return info

    def abort_multipart(self, key: str, upload_id: str) -> None:
        """Remove the upload and its parts; no error if it is gone."""
        try:
            folder, _ = self._upload_dir(key, upload_id)
        except UploadNotFoundError:
            return
        shutil.rmtree(folder, ignore_errors=True)

    def abort_abandoned(self, *, older_than_s: float = ABANDONED_AFTER_S,
                        at: float | None = None) -> int:
        """Remove every upload started more than ``older_than_s`` ago (its
        ``upload.json`` is written once, at the start); returns how many went."""
        if not self.uploads_dir.is_dir():
            return 0
        limit = (time.time() if at is None else at) - older_than_s
        removed = 0
        for folder in self.uploads_dir.iterdir():
            try:
                started = (folder / "upload.json").stat().st_mtime
            except (FileNotFoundError, NotADirectoryError):
                continue  # completed or aborted meanwhile, or not an upload
            if started <= limit:
                shutil.rmtree(folder, ignore_errors=True)
                removed += 1
        return removed
