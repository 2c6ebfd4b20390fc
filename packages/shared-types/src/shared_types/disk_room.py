"""Room on a disk for a job: refuse it up front when the free space is clearly
too small, instead of filling the disk part-way through.

On the local backend a conversion keeps about four copies of its source on the
data folder's disk at its peak (the source, its segments, the converted
segments, the final video; a side-by-side output is larger than its source).
A source whose storage has less than :data:`ROOM_FACTOR` times its size free is
refused before its bytes are sent (web-ui's upload start, ``stereo-spot
convert`` before it copies the source in), with a sentence that says where,
how much is needed and how much is free. The jobs already in progress on
that disk count too (:func:`room_reserved`: what each may still write, its
share less what its files take already), so two films started together are
not both let in on room only one has. S3 has no disk to fill: a storage
whose objects are not local files is not checked. The media-worker checks its
own work folder before it copies a source in (:data:`WORK_FACTOR`: the copy and
its segments). A disk that fills anyway is classified where it happens
(``shared_types.failure.is_disk_full``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

from shared_types import keys
from shared_types.byte_size import size_words
from shared_types.errors import DiskFullError
from shared_types.ports import Backend, ObjectStorage

ROOM_FACTOR = 3  # free space a job's source needs on the data folder's disk, in sources
WORK_FACTOR = 2  # free space chunking needs in the media-worker's work folder
RESERVING_JOBS = 200  # jobs in progress counted by room_reserved (a laptop runs a few)
_PROBE_KEY = "room-check"  # any valid key: only the folder its storage would use matters


def free_bytes(where: Path | str) -> int | None:
    """Free bytes for this user on the filesystem holding ``where`` (or its
    nearest existing parent); None when it cannot be read."""
    path = Path(where)
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def storage_folder(storage: ObjectStorage) -> Path | None:
    """The local folder a storage keeps its objects in; None when its objects
    are not local files (S3, the in-memory fake)."""
    uri = urlparse(storage.uri(_PROBE_KEY))
    if uri.scheme != "file" or uri.netloc:
        return None
    return Path(unquote(uri.path)).parent


def require_room(folder: Path, needed: int, *, what: str) -> None:
    """Raise DiskFullError when the filesystem holding ``folder`` has less than
    ``needed`` bytes free (free space that cannot be read passes)."""
    free = free_bytes(folder)
    if free is None or free >= needed:
        return
    raise DiskFullError(
        f"Not enough free disk space for {what}: it needs about {size_words(needed)} free "
        f"in {folder}, and {size_words(free)} is free. Free some space there (or convert "
        "a smaller video), then try again.")


def room_reserved(backend: Backend, *, besides: str | None = None) -> int:
    """Bytes the jobs in progress (but ``besides``) may still write to the
    backend's storages: :data:`ROOM_FACTOR` times each one's source, less what
    its files there take already, never below 0. A job whose source size is
    not known yet counts for nothing."""
    total = 0
    for job in backend.jobs.list_in_progress(limit=RESERVING_JOBS):
        if job.job_id == besides or not job.source_size_bytes:
            continue
        written = sum(info.size for storage, prefix in (
            (backend.input_storage, keys.input_prefix(job.job_id)),
            (backend.input_storage, keys.segment_prefix(job.job_id)),
            (backend.output_storage, keys.output_prefix(job.job_id)))
            for info in storage.list(prefix))
        total += max(0, ROOM_FACTOR * job.source_size_bytes - written)
    return total


def require_room_for_source(backend: Backend, size: int, *, job_id: str | None = None) -> None:
    """Raise DiskFullError when a ``size``-byte source (of job ``job_id``, when
    it exists already) clearly does not fit: each local filesystem holding the
    backend's storages needs :data:`ROOM_FACTOR` times ``size`` free, beside
    what the jobs in progress may still write (:func:`room_reserved`).
    Storages that are not local pass."""
    if all(storage_folder(s) is None for s in (backend.input_storage, backend.output_storage)):
        return
    reserved = room_reserved(backend, besides=job_id)
    checked: set[int] = set()
    for storage in (backend.input_storage, backend.output_storage):
        folder = storage_folder(storage)
        if folder is None:
            continue
        try:
            device = os.stat(_existing(folder)).st_dev
        except OSError:
            continue
        if device in checked:
            continue
        checked.add(device)
        what = f"converting this {size_words(size)} video"
        if reserved:
            what += (f" beside the conversions in progress (they may still write "
                     f"{size_words(reserved)})")
        require_room(folder, ROOM_FACTOR * size + reserved, what=what)


def _existing(folder: Path) -> Path:
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder
