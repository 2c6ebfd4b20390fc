"""A job's progress at one moment: the one read model the web UI (SSE, JSON
API, pages) and the CLI (terminal bars) both show.

Its stage, segment strip, percent and seconds left are computed here once
(``shared_types.progress`` gives the labels and cells, ``job_eta`` the staged
estimate, ``frame_progress`` the live frame tally), so a job reads the same
wherever it is watched. The web UI adds only an input: its size-based
estimate from past jobs (``fallback_eta``) for the moments before anything
was measured.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from shared_types.eta_history import MachineRates
from shared_types.frame_progress import FrameTally, tally_frames
from shared_types.job_eta import estimate_job
from shared_types.keys import source_key
from shared_types.models import Job, JobError, JobStatus, SegmentCompletion
from shared_types.ports import Backend
from shared_types.progress import (
    STAGE_LABELS,
    UPLOADED_LABEL,
    merge_cells,
    percent_for,
    read_segments,
)

# Statuses whose heartbeats say something (segments convert while chunking goes on).
CONVERTING = (JobStatus.CHUNKING_IN_PROGRESS, JobStatus.CHUNKING_COMPLETE, JobStatus.REASSEMBLING)

# (size in bytes, fraction done, completions, total segments) -> seconds left, or None
FallbackEta = Callable[[int | None, float, Sequence[SegmentCompletion], int | None],
                       float | None]


@dataclass(frozen=True)
class JobSnapshot:
    """What a progress display needs to know about a job at one moment."""

    job_id: str
    status: JobStatus
    segments_total: int | None
    segments_done: int
    segments_failed: int
    error: JobError | None
    frames: FrameTally | None = None  # from the workers' heartbeats, while converting
    eta_seconds: float | None = None  # staged estimate, else the fallback, else frames
    percent: float = 0.0  # weighted by work once the probe gave a frame count
    frames_total: int | None = None  # the source's frames, once the media-worker probed it
    left_out: tuple[str, ...] = ()  # what the output could not hold (``Job.left_out``)
    stage: str = ""  # the stage label a person reads
    strip: tuple[str, ...] = ()  # per-segment cells, merged to at most MAX_STRIP_CELLS

    @property
    def is_final(self) -> bool:
        return self.status.is_final


def read_progress(backend: Backend, job: Job, *, now: float,
                  rates: MachineRates | None = None,
                  fallback_eta: FallbackEta | None = None) -> JobSnapshot:
    """``job``'s progress now (blocking store reads; ``rates``: this machine's
    history). Store errors propagate."""
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
    if fallback_eta is not None and not job.status.is_final and (size or completions):
        remaining = fallback_eta(size, percent / 100.0, completions, total)
    beats = backend.heartbeats.list(job.job_id) if job.status in CONVERTING else []
    staged = estimate_job(job, beats, done, completions, rates, now=now)
    if staged is not None:
        percent = staged.percent
        remaining = staged.eta_seconds if staged.eta_seconds is not None else remaining
    frames = None
    if job.status == JobStatus.CHUNKING_COMPLETE:
        frames = tally_frames(beats, done, total, now=now, frames_total=job.source_frames)
        if staged is None and frames is not None and frames.eta_seconds is not None:
            remaining = frames.eta_seconds
        if staged is None and frames is not None and frames.frames_total:
            by_frames = round(5.0 + 85.0 * frames.frames_done / frames.frames_total, 1)
            percent = max(percent, min(by_frames, 90.0))
    return JobSnapshot(
        job.job_id, job.status, total, len(done), tally.failed, job.error, frames, remaining,
        percent, job.source_frames, tuple(job.left_out), stage,
        tuple(merge_cells(tally.cells())))
