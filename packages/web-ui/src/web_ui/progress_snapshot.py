"""A job's progress as one SSE snapshot: the shared read model
(``shared_types.job_progress``, the CLI's too) plus the page's strip detail
and an event id.

Reads the stores (blocking): SSE calls :func:`snapshot` off the event loop.
"""

from __future__ import annotations

import hashlib

from shared_types.dtos import JobProgress
from shared_types.job_progress import read_progress
from shared_types.models import Job, JobStatus, now
from shared_types.ports import Backend

from web_ui.eta import EtaEstimator


class ProgressSnapshot(JobProgress):
    """JobProgress plus what the page draws; its ``event_id`` names the state."""

    job_id: str
    status: JobStatus
    strip: list[str] = []
    segment_percent: dict[int, int] = {}  # segments converting now (when the strip is unmerged)
    error: str | None = None

    @property
    def is_final(self) -> bool:
        return self.status.is_final

    def event_id(self) -> str:
        """A short digest of the state: equal ids mean nothing changed."""
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:16]

    def as_progress(self) -> JobProgress:
        return JobProgress.model_validate(self.model_dump(include=set(JobProgress.model_fields)))


def snapshot(backend: Backend, job: Job, eta: EtaEstimator) -> ProgressSnapshot:
    """The job's progress now (blocking store reads): ``shared_types.job_progress``,
    with this machine's size-based estimate before anything was measured."""
    def by_size(size, fraction, completions, total):
        return eta.remaining(size_bytes=size, fraction_done=fraction,
                             completions=completions, total_segments=total)

    read = read_progress(backend, job, now=now(), rates=eta.machine_rates(),
                         fallback_eta=by_size)
    frames, strip = read.frames, list(read.strip)
    return ProgressSnapshot(
        job_id=job.job_id,
        status=job.status,
        stage=read.stage,
        segments_done=read.segments_done,
        segments_total=read.segments_total,
        percent=read.percent,
        eta_seconds=round(read.eta_seconds) if read.eta_seconds is not None else None,
        strip=strip,
        segment_percent=(frames.segment_percent
                         if frames and len(strip) == read.segments_total else {}),
        frames_done=frames.frames_done if frames else None,
        frames_total=frames.frames_total if frames else None,
        fps=frames.fps if frames else None,
        error=job.error.message if job.error else None,
    )
