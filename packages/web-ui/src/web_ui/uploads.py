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

The size the browser declares binds: a job has one multipart upload at a time
(a second is refused while the first is open), opened with the declared size
as its cap; part URLs are issued only for the part numbers that size needs,
each signed with its exact length (S3 refuses any other Content-Length; the
local storage refuses more); complete checks the total again and aborts any
other upload to the job's source. A client may have at most
``max_bytes_in_flight`` declared and not yet stored (:func:`bytes_in_flight`).
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

from web_ui.errors import BadRequestError, JobStateError, NotAllowedError, TooLargeError
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


# Jobs of every user read to add up one client's uploads in flight.
IN_FLIGHT_SCAN = 500


def bytes_in_flight(backend: Backend, owner: str | None, *, besides: str) -> int:
    """Declared bytes of ``owner``'s jobs (but ``besides``) whose upload started
    and whose video is not stored yet."""
    return sum(job.source_size_bytes or 0
               for job in backend.jobs.list_in_progress(limit=IN_FLIGHT_SCAN)
               if job.owner == owner and job.job_id != besides
               and job.status in WAITING_FOR_UPLOAD and job.source_etag is None
               and job.source_size_bytes
               and not backend.input_storage.exists(source_key(job.job_id)))


def _admit_upload(backend: Backend, job: Job, request: StartUpload, max_bytes: int,
                  max_in_flight: int) -> None:
    """Refuse a file over ``max_bytes``, one the local disk clearly has no room
    for beside the conversions in progress (DiskFullError:
    ``shared_types.disk_room``), or one that takes the owner's uploads in flight
    over ``max_in_flight`` (NotAllowedError), before any byte is sent; record its size and
    name the job after the file when it has no title."""
    if request.size > max_bytes:
        raise TooLargeError(f"The file is {request.size} bytes; the limit is {max_bytes}.")
    require_room_for_source(backend, request.size, job_id=job.job_id)
    sending = bytes_in_flight(backend, job.owner, besides=job.job_id)
    if sending + request.size > max_in_flight:
        raise NotAllowedError(f"Your uploads in progress already declare {sending} bytes; "
                              f"with this file that is over the {max_in_flight}-byte limit. "
                              "Let them finish, or cancel some, then try again.")
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
                      max_in_flight: int, expires_s: int) -> PresignedRequest:
    """:func:`upload_form` for a file the browser describes (named after it),
    the storage refusing more than the declared size. Raises JobStateError,
    TooLargeError, NotAllowedError, DiskFullError."""
    _waiting_for_source(backend, job)
    _admit_upload(backend, job, request, single_request_cap(max_bytes), max_in_flight)
    return upload_form(backend, job, max_bytes=request.size, expires_s=expires_s)


BUSY = ("This job already has an upload in progress: resume it from the page that "
        "started it, or wait a day for it to expire (or delete the job).")


def start_upload(backend: Backend, job: Job, request: StartUpload, *, max_bytes: int,
                 preferred_part_bytes: int, max_in_flight: int) -> UploadPlan:
    """Open the job's one multipart upload, capped at the declared size; name the
    job after the file when it has no title. Raises JobStateError (one is open
    already), TooLargeError, NotAllowedError, DiskFullError."""
    key = _waiting_for_source(backend, job)
    storage = backend.input_storage
    if storage.open_uploads(key):
        raise JobStateError(BUSY)
    _admit_upload(backend, job, request, max_bytes, max_in_flight)
    part_size = part_size_for(request.size, preferred_part_bytes)
    upload_id = storage.start_multipart(key, max_bytes=request.size, content_type="video/mp4")
    if storage.open_uploads(key) != [upload_id]:  # two starts raced: neither keeps one
        storage.abort_multipart(key, upload_id)
        raise JobStateError(BUSY)
    return UploadPlan(upload_id=upload_id, part_size=part_size,
                      part_count=part_count(request.size, part_size), max_upload_bytes=max_bytes)


def _declared_size(job: Job) -> int:
    if not job.source_size_bytes:
        raise JobStateError("Start the upload first: its size is not known.")
    return job.source_size_bytes


def part_urls(backend: Backend, job: Job, upload_id: str, numbers: list[int], *,
              preferred_part_bytes: int, expires_s: int) -> PartUrls:
    """Presigned PUT URLs for the given part numbers, each signed with its exact
    length under the declared size. Raises JobStateError, BadRequestError
    (a part the declared size does not need), UploadNotFoundError."""
    key = _waiting_for_source(backend, job)
    size = _declared_size(job)
    part_size = part_size_for(size, preferred_part_bytes)
    count = part_count(size, part_size)
    if any(not 1 <= n <= min(count, MAX_PARTS) for n in numbers):
        raise BadRequestError(f"This {size}-byte file has parts 1..{count}.")
    storage = backend.input_storage
    return PartUrls(urls={
        n: storage.presign_part(key, upload_id, n, expires_s=expires_s,
                                content_length=min(part_size, size - (n - 1) * part_size))
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
    has one; no more than the declared size; any other upload to the job's
    source is aborted. Raises JobStateError, BadRequestError, TooLargeError,
    UploadNotFoundError."""
    key = _waiting_for_source(backend, job)
    cap = min(max_bytes, _declared_size(job))
    storage = backend.input_storage
    try:
        info = storage.complete_multipart(key, upload_id, max_bytes=cap)
    except UploadTooLargeError as exc:
        raise TooLargeError(f"The upload is over its declared {cap} bytes.") from exc
    except InvalidUploadError as exc:
        raise BadRequestError(f"The upload is incomplete: {exc}") from exc
    for leftover in storage.open_uploads(key):
        storage.abort_multipart(key, leftover)
    return info.size


def abort_upload(backend: Backend, job: Job, upload_id: str) -> None:
    """Drop the upload and free its parts (no error if it is gone)."""
    backend.input_storage.abort_multipart(source_key(job.job_id), upload_id)
