"""A job's progress as one snapshot: stage, segment strip, percent and ETA.

Reads the stores (blocking): SSE calls :func:`snapshot` off the event loop.
"""

from __future__ import annotations

import hashlib
import math

from shared_types.dtos import JobProgress
from shared_types.keys import source_key
from shared_types.models import Job, JobStatus, SegmentState
from shared_types.ports import Backend

from web_ui.eta import EtaEstimator

MAX_STRIP_CELLS = 400

# Cells of the per-segment strip, in the order a merged cell shows the worst one.
CELL_ORDER = ("failed", "running", "pending", "done")

_STAGES = {
    JobStatus.CREATED: "Waiting for upload",
    JobStatus.CHUNKING_IN_PROGRESS: "Splitting into segments",
    JobStatus.CHUNKING_COMPLETE: "Converting segments to 3D",
    JobStatus.REASSEMBLING: "Joining segments",
    JobStatus.COMPLETED: "Done",
    JobStatus.FAILED: "Failed",
}


class ProgressSnapshot(JobProgress):
    """JobProgress plus what the page draws; its ``event_id`` names the state."""

    job_id: str
    status: JobStatus
    strip: list[str] = []
    error: str | None = None

    @property
    def is_final(self) -> bool:
        return self.status.is_final

    def event_id(self) -> str:
        """A short digest of the state: equal ids mean nothing changed."""
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:16]

    def as_progress(self) -> JobProgress:
        return JobProgress.model_validate(self.model_dump(include=set(JobProgress.model_fields)))


def merge_cells(cells: list[str], max_cells: int = MAX_STRIP_CELLS) -> list[str]:
    """At most ``max_cells`` cells; a merged cell shows its worst member."""
    if len(cells) <= max_cells:
        return cells
    width = math.ceil(len(cells) / max_cells)
    rank = {c: i for i, c in enumerate(CELL_ORDER)}
    return [min(cells[i:i + width], key=rank.__getitem__) for i in range(0, len(cells), width)]


def segment_cells(total: int, states: dict[int, SegmentState], done: set[int]) -> list[str]:
    """One cell per segment: done / running (an attempt started) / failed / pending."""
    cells = []
    for i in range(total):
        state = states.get(i)
        if i in done or state == SegmentState.COMPLETE:
            cells.append("done")
        elif state == SegmentState.FAILED:
            cells.append("failed")
        elif state == SegmentState.PENDING:
            cells.append("running")
        else:
            cells.append("pending")
    return cells


def percent_for(status: JobStatus, done: int, total: int | None) -> float:
    """Overall percent: splitting is the first 5 %, segments to 90 %, joining the rest."""
    if status == JobStatus.COMPLETED:
        return 100.0
    if status == JobStatus.REASSEMBLING:
        return 92.0
    if total:
        return round(5.0 + 85.0 * min(done, total) / total, 1)
    return 2.0 if status == JobStatus.CHUNKING_IN_PROGRESS else 0.0


def snapshot(backend: Backend, job: Job, eta: EtaEstimator) -> ProgressSnapshot:
    """The job's progress now (blocking store reads)."""
    total = job.total_segments
    stage = _STAGES[job.status]
    size = job.source_size_bytes
    completions = backend.completions.list(job.job_id) if total else []
    done = {c.segment_index for c in completions}
    cells: list[str] = []
    if total:
        states = {s.segment_index: s.state for s in backend.segment_status.list(job.job_id)}
        cells = segment_cells(total, states, done)
    if not job.status.is_final and size is None:
        head = backend.input_storage.head(source_key(job.job_id))
        size = head.size if head else None
        if job.status == JobStatus.CREATED and head is not None:
            stage = "Uploaded, waiting to be split"
    percent = percent_for(job.status, len(done), total)
    remaining = None
    if not job.status.is_final and (size or completions):
        remaining = eta.remaining(
            size_bytes=size, fraction_done=percent / 100.0,
            completions=completions, total_segments=total,
        )
    return ProgressSnapshot(
        job_id=job.job_id,
        status=job.status,
        stage=stage,
        segments_done=len(done),
        segments_total=total,
        percent=percent,
        eta_seconds=round(remaining) if remaining is not None else None,
        strip=merge_cells(cells),
        error=job.error.message if job.error else None,
    )
