"""``stereo-spot jobs | retry | dlq``: operate jobs and queues from a terminal."""

from __future__ import annotations

import datetime as dt

from rich.console import Console
from rich.table import Table
from shared_types.errors import StereoSpotError
from shared_types.models import Job, JobStatus
from shared_types.ports import QUEUE_NAMES, Backend
from shared_types.retry import retry_job

from local_stack.errors import LocalStackError


def list_jobs(backend: Backend, *, limit: int = 50) -> list[Job]:
    """In-progress jobs first, then completed, failed and cancelled (each newest first)."""
    jobs = list(backend.jobs.list_in_progress(limit=limit))
    for status in (JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.CANCELLED):
        jobs += backend.jobs.list_by_status(status, limit=limit).items
    return jobs


def render_jobs(console: Console, jobs: list[Job]) -> None:
    """Print jobs as a table."""
    table = Table("job id", "status", "mode", "segments", "created", "title / reason")
    for job in jobs:
        created = dt.datetime.fromtimestamp(job.created_at).strftime("%Y-%m-%d %H:%M:%S")
        note = job.error.message if job.error else (job.title or "")
        table.add_row(job.job_id, job.status.value, job.mode.value,
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


def dead_letters(backend: Backend) -> dict[str, list[str]]:
    """Dead-lettered message bodies, by queue name."""
    return {name: [m.body for m in backend.queue(name).dead_letters()] for name in QUEUE_NAMES}


def redrive_all(backend: Backend) -> dict[str, int]:
    """Move every dead-lettered message back to its queue; counts by queue name."""
    return {name: backend.queue(name).redrive() for name in QUEUE_NAMES}


def render_dead_letters(console: Console, letters: dict[str, list[str]]) -> None:
    """Print dead letters per queue, bodies shortened."""
    table = Table("queue", "body")
    for name, bodies in letters.items():
        for body in bodies:
            table.add_row(name, body if len(body) <= 160 else body[:157] + "...")
    console.print(table)
    console.print(f"{sum(map(len, letters.values()))} dead-lettered message(s)")
