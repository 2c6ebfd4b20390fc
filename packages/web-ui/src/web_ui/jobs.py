"""Job reads and creation, upload and playback URLs, download names."""

from __future__ import annotations

import re
import unicodedata
import uuid

from pydantic import BaseModel
from shared_types import transitions
from shared_types.dtos import CreateJobRequest, PresignedPlaybackResponse
from shared_types.errors import PermanentError
from shared_types.job_updates import job_sort_time
from shared_types.keys import final_key, poster_key
from shared_types.models import LAYOUT_TAGS, Job, JobStatus, new_job_id
from shared_types.ports import Backend

from web_ui.errors import BadRequestError, JobStateError, PageNotFoundError
from web_ui.identity import User

# Letters and digits of any script stay (the storage sends the name as UTF-8
# ``filename*``); path, quote, control and symbol characters do not.
_UNSAFE_NAME = re.compile(r"[^\w.-]+")
MAX_NAME_STEM = 80
MAX_CURSOR_LENGTH = 512


def parse_job_id(raw: str) -> str:
    """The canonical form of a job id. Raises PageNotFoundError unless it is a UUID
    (so a hostile id never reaches a store or a key)."""
    if len(raw) > 64:
        raise PageNotFoundError("No such job.")
    try:
        return str(uuid.UUID(raw))
    except ValueError:
        raise PageNotFoundError("No such job.") from None


def load_job(backend: Backend, raw_job_id: str, user: User) -> Job:
    """The job for an id from a URL, when ``user`` may see it. Raises
    PageNotFoundError (the same for another user's job as for none)."""
    job = backend.jobs.get(parse_job_id(raw_job_id))
    if job is None or not user.may_see(job):
        raise PageNotFoundError("No such job. It may have been deleted.")
    return job


# A job takes its upload in these statuses (held: for a preview before converting all).
WAITING_FOR_UPLOAD = (JobStatus.CREATED, JobStatus.AWAITING_CONFIRMATION)


def create_job(backend: Backend, request: CreateJobRequest, owner: User, *,
               depth_notice: str | None = None) -> Job:
    """Record a new job of ``owner`` in ``created`` (``awaiting_confirmation``
    when it is held for a preview) and return it; ``depth_notice``: the line its
    page shows about its depth model (``depth_defaults``)."""
    title = request.title.strip() if request.title else None
    status = JobStatus.AWAITING_CONFIRMATION if request.preview else JobStatus.CREATED
    job = Job(job_id=new_job_id(), owner=owner.id, mode=request.mode, title=title or None,
              params=request.params, container=request.container,
              webhook_url=request.webhook_url, status=status, depth_notice=depth_notice)
    return transitions.create_job(backend.jobs, job)


def download_name(job: Job) -> str:
    """A safe file name that carries the layout tag VR players detect,
    e.g. ``holiday_LRF_Full_SBS.mp4``."""
    title = unicodedata.normalize("NFC", job.title or "")  # é, not e + U+0301
    stem = _UNSAFE_NAME.sub("_", title).strip("._-")[:MAX_NAME_STEM]
    stem = stem or f"stereo-spot-{job.job_id[:8]}"
    return f"{stem}_{LAYOUT_TAGS[job.mode]}.{job.container.value}"


def playback(backend: Backend, job: Job, *, expires_s: int) -> PresignedPlaybackResponse:
    """Presigned URLs to stream (Range requests work) and to download the result.
    Raises JobStateError unless the job is completed."""
    if job.status != JobStatus.COMPLETED:
        raise JobStateError("The 3D video is not ready yet.")
    key = job.final_key or final_key(job.job_id)
    name = download_name(job)
    return PresignedPlaybackResponse(
        url=backend.output_storage.presign_get(key, expires_s=expires_s),
        download_url=backend.output_storage.presign_get(
            key, expires_s=expires_s, download_name=name
        ),
        download_name=name,
    )


def poster_urls(jobs: list[Job]) -> dict[str, str]:
    """The poster image of each job of ``jobs`` that may have one (by job id): the
    page's own ``/jobs/{id}/poster``, which :func:`poster_location` answers, so
    a job whose poster was never made (it failed before the probe, or making it
    failed) shows a placeholder, never a broken image. A job still waiting for
    its upload shows none."""
    return {job.job_id: f"/jobs/{job.job_id}/poster"
            for job in jobs if job.status not in WAITING_FOR_UPLOAD}


NO_POSTER = "/static/no-poster.svg"


def poster_location(backend: Backend, job: Job, *, expires_s: int) -> str:
    """Where the job's poster is: a presigned URL when it was made, else the
    placeholder. Raises TransientStoreError when the storage is unreachable."""
    key = poster_key(job.job_id)
    if not backend.output_storage.exists(key):
        return NO_POSTER
    return backend.output_storage.presign_get(key, expires_s=expires_s)


class JobListing(BaseModel):
    """One page of the unified job list (in-progress and failed on the first page)."""

    in_progress: list[Job]
    completed: list[Job]
    failed: list[Job]
    next_cursor: str | None = None

    @property
    def jobs(self) -> list[Job]:
        return self.in_progress + self.failed + self.completed

    def recent(self, limit: int) -> list[Job]:
        """At most ``limit`` jobs: those in progress, then those that ended, newest
        first whether they failed or not (old failures never hide a new result)."""
        ended = sorted(self.failed + self.completed, key=job_sort_time, reverse=True)
        return (self.in_progress + ended)[:limit]


# A user who is not an admin sees only their jobs: the stores list every user's,
# so a list reads this many times its page (and completed pages are read on
# until one is full) to find theirs among others'.
SCAN_FACTOR = 8
MAX_PAGES_READ = 8


def _stopped(backend: Backend, limit: int) -> list[Job]:
    """Failed and cancelled jobs, newest first."""
    jobs = [job for status in (JobStatus.FAILED, JobStatus.CANCELLED)
            for job in backend.jobs.list_by_status(status, limit=limit).items]
    return sorted(jobs, key=lambda j: j.created_at, reverse=True)


def _shown(jobs: list[Job], user: User, limit: int) -> list[Job]:
    """Of ``jobs``, the first ``limit`` the user may see, without preview clips
    (they show on their parent's page)."""
    return [job for job in jobs if not job.is_clip and user.may_see(job)][:limit]


def _completed(backend: Backend, user: User, limit: int,
               cursor: str | None) -> tuple[list[Job], str | None]:
    """Completed jobs the user may see from ``cursor``: store pages read until
    ``limit`` are found (or :data:`MAX_PAGES_READ`), and where to go on from."""
    found: list[Job] = []
    for _ in range(1 if user.is_admin else MAX_PAGES_READ):
        page = backend.jobs.list_by_status(JobStatus.COMPLETED, limit=limit, cursor=cursor)
        found += [job for job in page.items if user.may_see(job)]
        cursor = page.next_cursor
        if cursor is None or len(found) >= limit:
            break
    return found, cursor


def list_jobs(backend: Backend, user: User, *, limit: int,
              cursor: str | None = None) -> JobListing:
    """The user's jobs (every job for an admin) newest first (preview clips only
    on their parent's page); ``cursor`` pages through completed jobs. Raises
    BadRequestError for a cursor this backend did not issue."""
    if cursor is not None and len(cursor) > MAX_CURSOR_LENGTH:
        raise BadRequestError("Invalid page cursor.")
    try:
        completed, next_cursor = _completed(backend, user, limit, cursor)
    except (ValueError, PermanentError) as exc:
        raise BadRequestError("Invalid page cursor.") from exc
    first_page = cursor is None
    scan = limit if user.is_admin else limit * SCAN_FACTOR
    return JobListing(
        in_progress=(_shown(backend.jobs.list_in_progress(limit=scan), user, limit)
                     if first_page else []),
        completed=_shown(completed, user, len(completed)),
        failed=_shown(_stopped(backend, scan), user, limit) if first_page else [],
        next_cursor=next_cursor,
    )
