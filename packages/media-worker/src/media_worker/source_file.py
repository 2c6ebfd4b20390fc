"""Where a worker reads an uploaded source from: its own copy, or, for reads
that only look at a few seconds of it (a preview's strip and clips), the
stored file itself when the storage is a local folder.

A two-hour film is gigabytes; copying it for every 10 s preview would make the
preview wait on the copy and double the disk it takes. The local backend's
objects are plain files (``file://`` URIs) that are never rewritten in place
(a source is written once, by rename), so reading one where it lies is safe.
Elsewhere (S3) :func:`locate_source` hands ffmpeg a presigned GET URL, signed
with the worker's own credentials (its role already reads the input bucket):
ffmpeg seeks over HTTP with Range requests and reads only the bytes it needs.
The URL carries ``If-Match`` with the object's ETag, so a replaced upload
fails the read instead of mixing two sources. Full conversions download, except
from a local folder on the work folder's filesystem: a hard link, no copy.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse
from urllib.request import Request, urlopen

from shared_types.models import ObjectInfo
from shared_types.ports import ObjectStorage
from stereo_media.ffmpeg_runner import file_input, url_input

from media_worker.errors import SourceReplacedError
from media_worker.stereo_twice import decode_options

# Long enough for the slowest strip or clip cut (ffmpeg's own timeout is shorter).
URL_EXPIRES_S = 3600
HEAD_TIMEOUT_S = 30


def stored_path(storage: ObjectStorage, key: str) -> Path | None:
    """The local file holding ``key`` when the storage is a folder, else None."""
    uri = urlparse(storage.uri(key))
    if uri.scheme != "file" or uri.netloc:
        return None
    path = Path(unquote(uri.path))
    return path if path.is_file() else None


def link_stored(storage: ObjectStorage, key: str, dest: Path) -> Path | None:
    """Hard-link ``key``'s stored file at ``dest`` and return the stored file's
    path, where the storage is a local folder on ``dest``'s filesystem; None,
    with nothing made at ``dest``, anywhere else (another filesystem, links
    refused, no such object)."""
    path = stored_path(storage, key)
    if path is None:
        return None
    try:
        os.link(path, dest)
    except OSError:
        return None
    return path


def stored_copy(storage: ObjectStorage, key: str, dest: Path) -> Path:
    """``key``'s content at ``dest``, for a step that only reads it (reassembly's
    segments and side files): a hard link where the storage is a local folder
    on ``dest``'s filesystem, else a download. A stored object is only ever
    replaced by rename, so a link holds one whole version of it. Raises
    ObjectNotFoundError/TransientError from the storage."""
    if link_stored(storage, key, dest) is None:
        storage.get_file(key, dest)
    return dest


def source_file(storage: ObjectStorage, info: ObjectInfo, dest: Path) -> Path:
    """``info``'s content at ``dest``, for a whole conversion, which reads all of
    it: a hard link to the stored file when the storage is a local folder on
    ``dest``'s filesystem (a film is not copied; the link holds this upload's
    bytes even if the key is replaced meanwhile), else a download. Raises
    SourceReplacedError when the object changed since ``info`` was read,
    ObjectNotFoundError/TransientError from the storage."""
    if _linked(storage, info, dest):
        return dest
    got = storage.get_file(info.key, dest)
    if info.etag is not None and got.etag != info.etag:
        raise SourceReplacedError
    return dest


def _linked(storage: ObjectStorage, info: ObjectInfo, dest: Path) -> bool:
    """Hard-link the stored file of ``info`` to ``dest``; True when ``dest`` now
    holds the upload ``info`` names (the key still names the linked file, with
    ``info``'s ETag). False, with nothing left at ``dest``, where the storage
    is not a local folder, the link fails (another filesystem, no permission)
    or the key was replaced: the caller downloads, and checks, instead."""
    path = link_stored(storage, info.key, dest)
    if path is None:
        return False
    now = storage.head(info.key)
    try:  # the key still names the linked file, and that file is this upload
        same = (now is not None and (info.etag is None or now.etag == info.etag)
                and os.path.samefile(path, dest))
    except OSError:  # the key deleted meanwhile
        same = False
    if not same:
        dest.unlink(missing_ok=True)
    return same


@dataclass(frozen=True)
class SourceLocation:
    """Where ffmpeg and PyAV read a source: a local file, or an HTTP(S) URL
    sent with ``headers``."""

    target: str
    headers: dict[str, str] | None = None

    @property
    def is_url(self) -> bool:
        return self.target.startswith(("http://", "https://"))

    def head(self, size: int) -> bytes:
        """The first ``size`` bytes (fewer for a shorter file): one ranged GET
        for a URL. Raises OSError (urllib's errors are OSErrors)."""
        if not self.is_url:
            with open(self.target, "rb") as f:
                return f.read(size)
        request = Request(self.target, headers={**(self.headers or {}),
                                                "Range": f"bytes=0-{size - 1}"})
        with urlopen(request, timeout=HEAD_TIMEOUT_S) as response:  # noqa: S310 (http(s) only)
            return response.read(size)

    def ffmpeg_input(self) -> list[str]:
        """ffmpeg input arguments reading this location and nothing else."""
        if self.is_url:
            return url_input(self.target, headers=self.headers)
        return file_input(Path(self.target))

    def ffmpeg_decode_input(self, timeout_s: float = 60.0) -> list[str]:
        """``ffmpeg_input`` for a run that decodes pictures (a poster, thumbnails,
        a re-encoded clip), with the options a source the command line cannot
        decode as it is needs (``stereo_twice``: its first picture is read)."""
        return [*decode_options(self.target, headers=self.headers, timeout_s=timeout_s),
                *self.ffmpeg_input()]


def locate_source(storage: ObjectStorage, info: ObjectInfo, dest: Path, *,
                  urls: bool = True, expires_s: int = URL_EXPIRES_S) -> SourceLocation:
    """Where to read ``info`` without copying it: the stored file when the
    storage is a folder, else a presigned HTTP(S) GET URL pinned to the
    object's ETag (a replaced object makes the read fail with 412); a storage
    whose URLs ffmpeg cannot read (the in-memory fake), or any when not
    ``urls``, is downloaded to ``dest``. Raises like :func:`source_file`."""
    if (path := stored_path(storage, info.key)) is not None:
        return SourceLocation(str(path))
    url = storage.presign_get(info.key, expires_s=expires_s) if urls else ""
    if urlparse(url).scheme not in ("http", "https"):
        return SourceLocation(str(source_file(storage, info, dest)))
    return SourceLocation(url, {"If-Match": f'"{info.etag}"'} if info.etag else None)
