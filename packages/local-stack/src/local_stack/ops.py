"""``stereo-spot jobs | retry | dlq``: operate jobs and queues from a terminal."""

from __future__ import annotations

import datetime as dt

from rich.console import Console
from rich.table import Table
from shared_types.errors import StereoSpotError
from shared_types.models import Job, JobStatus, Message
from shared_types.ports import QUEUE_NAMES, Backend
from shared_types.retry import retry_job

from local_stack.errors import LocalStackError


def list_jobs(backend: Backend, *, limit: int = 50) -> list[Job]:
    """In-progress jobs first, then completed, failed and cancelled (each newest
    first); a job's preview clips follow it (oldest first) instead of being
    listed on their own, as on the web list; clips whose parent is not listed
    are left out."""
    jobs = list(backend.jobs.list_in_progress(limit=limit))
    for status in (JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.CANCELLED):
        jobs += backend.jobs.list_by_status(status, limit=limit).items
    clips: dict[str, list[Job]] = {}
    for job in jobs:
        if job.is_clip and job.parent_job_id:
            clips.setdefault(job.parent_job_id, []).append(job)
    listed: list[Job] = []
    for job in jobs:
        if not job.is_clip:
            listed.append(job)
            listed += sorted(clips.get(job.job_id, []), key=lambda clip: clip.created_at)
    return listed


def render_jobs(console: Console, jobs: list[Job]) -> None:
    """Print jobs as a table; a preview clip's row is indented under its parent's."""
    table = Table("job id", "status", "mode", "segments", "created", "title / reason")
    for job in jobs:
        created = dt.datetime.fromtimestamp(job.created_at).strftime("%Y-%m-%d %H:%M:%S")
        note = job.error.message if job.error else (job.title or "")
        job_id = f"  └ preview {job.job_id}" if job.is_clip else job.job_id
        table.add_row(job_id, job.status.value, job.mode.value,
                      str(job.total_segments or "-"), created, note)
    console.print(table)


def retry(backend: Backend, job_id: str) -> Job:
    """Resume a failed job where it stopped (``shared_types.retry``).

    Raises LocalStackError when the job does not exist or is not failed.
    """
    job = backend.jobs.get(job_id)
    if job is None:
        raise LocalStackError(f"no job with id {job_id}")
    try:
        return retry_job(backend, job)
    except StereoSpotError as exc:
        raise LocalStackError(f"cannot retry job {job_id}: {exc}") from exc


def dead_letters(backend: Backend) -> dict[str, list[Message]]:
    """Dead-lettered messages (body, receives, reason), by queue name."""
    return {name: backend.queue(name).dead_letters() for name in QUEUE_NAMES}


def redrive_all(backend: Backend) -> dict[str, int]:
    """Move every dead-lettered message back to its queue; counts by queue name."""
    return {name: backend.queue(name).redrive() for name in QUEUE_NAMES}


def render_dead_letters(console: Console, letters: dict[str, list[Message]]) -> None:
    """Print dead letters per queue with why each was dead-lettered, bodies shortened."""
    table = Table("queue", "body", "receives", "reason")
    for name, messages in letters.items():
        for m in messages:
            body = m.body if len(m.body) <= 160 else m.body[:157] + "..."
            table.add_row(name, body, str(m.receive_count),
                          m.dead_reason or "past the queue's max receives")
    console.print(table)
    console.print(f"{sum(map(len, letters.values()))} dead-lettered message(s)")
