"""A job's progress as one SSE snapshot: stage, segment strip, percent and ETA
(computed by ``shared_types.progress``, plus the web's ETA and event id).

Reads the stores (blocking): SSE calls :func:`snapshot` off the event loop.
"""

from __future__ import annotations

import hashlib

from shared_types.dtos import JobProgress
from shared_types.frame_progress import tally_frames
from shared_types.job_eta import estimate_job
from shared_types.keys import source_key
from shared_types.models import Job, JobStatus, now
from shared_types.ports import Backend
from shared_types.progress import (
    STAGE_LABELS,
    UPLOADED_LABEL,
    merge_cells,
    percent_for,
    read_segments,
)

from web_ui.eta import EtaEstimator

# Statuses whose heartbeats say something (segments convert while chunking goes on).
CONVERTING = (JobStatus.CHUNKING_IN_PROGRESS, JobStatus.CHUNKING_COMPLETE, JobStatus.REASSEMBLING)


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
    """The job's progress now (blocking store reads)."""
    tally = read_segments(backend, job)
    total, completions, done = tally.total, list(tally.completions), tally.done
    stage = STAGE_LABELS[job.status]
    size = job.source_size_bytes
    if not job.status.is_final and size is None:
        head = backend.input_storage.head(source_key(job.job_id))
        size = head.size if head else None
        if job.status == JobStatus.CREATED and head is not None:
            stage = UPLOADED_LABEL
    percent = percent_for(job.status, len(done), total)
    remaining = None
    if not job.status.is_final and (size or completions):
        remaining = eta.remaining(
            size_bytes=size, fraction_done=percent / 100.0,
            completions=completions, total_segments=total,
        )
    beats = backend.heartbeats.list(job.job_id) if job.status in CONVERTING else []
    t = now()
    staged = estimate_job(job, beats, done, completions, eta.machine_rates(), now=t)
    if staged is not None:
        percent = staged.percent
        remaining = staged.eta_seconds if staged.eta_seconds is not None else remaining
    frames = None
    if job.status == JobStatus.CHUNKING_COMPLETE:
        frames = tally_frames(beats, done, total, now=t, frames_total=job.source_frames)
        if staged is None and frames is not None and frames.eta_seconds is not None:
            remaining = frames.eta_seconds
        if staged is None and frames is not None and frames.frames_total:
            by_frames = round(5.0 + 85.0 * frames.frames_done / frames.frames_total, 1)
            percent = max(percent, min(by_frames, 90.0))
    strip = merge_cells(tally.cells())
    return ProgressSnapshot(
        job_id=job.job_id,
        status=job.status,
        stage=stage,
        segments_done=len(done),
        segments_total=total,
        percent=percent,
        eta_seconds=round(remaining) if remaining is not None else None,
        strip=strip,
        segment_percent=frames.segment_percent if frames and len(strip) == total else {},
        frames_done=frames.frames_done if frames else None,
        frames_total=frames.frames_total if frames else None,
        fps=frames.fps if frames else None,
        error=job.error.message if job.error else None,
    )
