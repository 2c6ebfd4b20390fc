"""A job's source upload, straight from the browser to storage (S3 or the local
``/storage``), on either backend.

A file that fits one request goes up as one presigned POST form: its signed
policy's ``content-length-range`` makes the storage itself refuse a file over
the cap (the advertised cap is the enforced cap); the job page also renders
that form, so uploading works without JavaScript. A bigger file uses S3's
multipart protocol, resumable: the browser asks to start (file name and size),
fetches presigned part URLs a batch at a time, PUTs parts, and asks to
complete; after a reload it asks which parts the storage already holds and
sends only the others. Its cap is checked when starting, by the storage while
parts arrive (local) and again on the parts the storage holds before the
object exists (both backends).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from pydantic import BaseModel, Field
from shared_types.disk_room import require_room_for_source
from shared_types.errors import InvalidUploadError, UploadTooLargeError
from shared_types.keys import source_key
from shared_types.models import (
    MAX_PARTS,
    MAX_SINGLE_UPLOAD_BYTES,
    Job,
    JobUpdate,
    PresignedRequest,
    UploadedPart,
)
from shared_types.multipart import part_count, part_size_for
from shared_types.ports import Backend
from shared_types.transitions import record

from web_ui.errors import BadRequestError, JobStateError, TooLargeError
from web_ui.jobs import WAITING_FOR_UPLOAD

MAX_URLS_PER_REQUEST = 50
UPLOAD_ID_PATTERN = r"^[A-Za-z0-9._~=+-]{1,512}$"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class StartUpload(BaseModel):
    file_name: str = Field(min_length=1, max_length=255)
    size: int = Field(ge=1)


class UploadPlan(BaseModel):
    upload_id: str
    part_size: int
    part_count: int
    max_upload_bytes: int


class PartUrlsRequest(BaseModel):
    part_numbers: list[int] = Field(min_length=1, max_length=MAX_URLS_PER_REQUEST)


class PartUrls(BaseModel):
    urls: dict[int, str]


class UploadState(BaseModel):
    upload_id: str
    parts: list[UploadedPart]


def title_from_file_name(file_name: str) -> str | None:
    """The default job title for an uploaded file: its name without folder or
    extension (``holiday.mp4`` -> ``holiday``), or None if nothing is left."""
    stem = PurePosixPath(_CONTROL.sub("", file_name).replace("\\", "/")).stem.strip()
    return stem[:200] or None


def _waiting_for_source(backend: Backend, job: Job) -> str:
    if job.status not in WAITING_FOR_UPLOAD:
        raise JobStateError("This job already has its video.")
    key = source_key(job.job_id)
    if backend.input_storage.exists(key):
        raise JobStateError("This job already has its video.")
    return key


def _admit_upload(backend: Backend, job: Job, request: StartUpload, max_bytes: int) -> None:
    """Refuse a file over ``max_bytes``, or one the local disk clearly has no room
    for beside the conversions in progress (DiskFullError:
    ``shared_types.disk_room``), before any byte is sent; record its size and
    name the job after the file when it has no title."""
    if request.size > max_bytes:
        raise TooLargeError(f"The file is {request.size} bytes; the limit is {max_bytes}.")
    require_room_for_source(backend, request.size, job_id=job.job_id)
    # the size counts in the room of the uploads that start after this one
    title = title_from_file_name(request.file_name)
    update = JobUpdate(source_size_bytes=request.size)
    if job.title is None and title:
        update = JobUpdate(source_size_bytes=request.size, title=title)
    record(backend.jobs, job.job_id, update, while_in=WAITING_FOR_UPLOAD)


def upload_origins(backend: Backend) -> tuple[str, ...]:
    """The origin upload forms post to (for the page's CSP ``form-action``),
    read from a presigned POST of a placeholder key; none for a non-HTTP fake."""
    url = urlsplit(backend.input_storage.presign_post(source_key("csp-probe"), max_bytes=1).url)
    return (f"{url.scheme}://{url.netloc}",) if url.scheme in ("http", "https") else ()


def single_request_cap(max_bytes: int) -> int:
    """The most one form upload may carry: the cap, within S3's one-request limit."""
    return min(max_bytes, MAX_SINGLE_UPLOAD_BYTES)


def upload_form(backend: Backend, job: Job, *, max_bytes: int, expires_s: int,
                redirect: str | None = None) -> PresignedRequest:
    """A presigned POST of the job's source in one request, the storage refusing
    a file over :func:`single_request_cap`; with ``redirect`` the storage sends
    the browser there afterwards. Raises JobStateError."""
    key = _waiting_for_source(backend, job)
    return backend.input_storage.presign_post(
        key, max_bytes=single_request_cap(max_bytes), expires_s=expires_s,
        content_type="video/mp4", success_redirect=redirect)


def start_form_upload(backend: Backend, job: Job, request: StartUpload, *, max_bytes: int,
                      expires_s: int) -> PresignedRequest:
    """:func:`upload_form` for a file the browser describes (named after it).
    Raises JobStateError, TooLargeError, DiskFullError."""
    _waiting_for_source(backend, job)
    _admit_upload(backend, job, request, single_request_cap(max_bytes))
    return upload_form(backend, job, max_bytes=max_bytes, expires_s=expires_s)


def start_upload(backend: Backend, job: Job, request: StartUpload, *, max_bytes: int,
                 preferred_part_bytes: int) -> UploadPlan:
    """Open a multipart upload for the job's source; name the job after the file
    when it has no title. Raises JobStateError, TooLargeError, DiskFullError."""
    key = _waiting_for_source(backend, job)
    _admit_upload(backend, job, request, max_bytes)
    part_size = part_size_for(request.size, preferred_part_bytes)
    upload_id = backend.input_storage.start_multipart(key, max_bytes=max_bytes,
                                                      content_type="video/mp4")
    return UploadPlan(upload_id=upload_id, part_size=part_size,
                      part_count=part_count(request.size, part_size), max_upload_bytes=max_bytes)


def part_urls(backend: Backend, job: Job, upload_id: str, numbers: list[int], *,
              expires_s: int) -> PartUrls:
    """Presigned PUT URLs for the given part numbers. Raises JobStateError,
    BadRequestError, UploadNotFoundError."""
    key = _waiting_for_source(backend, job)
    if any(not 1 <= n <= MAX_PARTS for n in numbers):
        raise BadRequestError(f"Part numbers must be 1..{MAX_PARTS}.")
    storage = backend.input_storage
    return PartUrls(urls={n: storage.presign_part(key, upload_id, n, expires_s=expires_s)
                          for n in sorted(set(numbers))})


def upload_state(backend: Backend, job: Job, upload_id: str) -> UploadState:
    """The parts the storage holds (what a resumed upload skips).
    Raises JobStateError, UploadNotFoundError."""
    key = _waiting_for_source(backend, job)
    return UploadState(upload_id=upload_id,
                       parts=backend.input_storage.list_parts(key, upload_id))


def complete_upload(backend: Backend, job: Job, upload_id: str, *, max_bytes: int) -> int:
    """Make the source object from the received parts (which starts the
    conversion); returns its size. One source per job: refused once the job
    has one. Raises JobStateError, BadRequestError, TooLargeError,
    UploadNotFoundError."""
    key = _waiting_for_source(backend, job)
    try:
        info = backend.input_storage.complete_multipart(key, upload_id, max_bytes=max_bytes)
    except UploadTooLargeError as exc:
        raise TooLargeError(f"The upload is over the {max_bytes}-byte limit.") from exc
    except InvalidUploadError as exc:
        raise BadRequestError(f"The upload is incomplete: {exc}") from exc
    return info.size


def abort_upload(backend: Backend, job: Job, upload_id: str) -> None:
    """Drop the upload and free its parts (no error if it is gone)."""
    backend.input_storage.abort_multipart(source_key(job.job_id), upload_id)
