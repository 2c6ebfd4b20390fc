"""How far a job is: stage labels, per-segment cells, percent.

The one definition both the web UI (SSE snapshots) and the CLI (terminal bars)
show, so a job reads the same wherever it is watched.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from shared_types.models import Job, JobStatus, SegmentCompletion, SegmentState
from shared_types.ports import Backend
from shared_types.runs import run_completions, run_statuses

STAGE_LABELS = {
    JobStatus.CREATED: "Waiting for upload",
    JobStatus.AWAITING_CONFIRMATION: "Preview: waiting for you to convert the whole video",
    JobStatus.CHUNKING_IN_PROGRESS: "Splitting into segments",
    JobStatus.CHUNKING_COMPLETE: "Converting segments to 3D",
    JobStatus.REASSEMBLING: "Joining segments",
    JobStatus.COMPLETED: "Done",
    JobStatus.FAILED: "Failed",
    JobStatus.CANCELLED: "Cancelled",
}
UPLOADED_LABEL = "Uploaded, waiting to be split"  # CREATED once the source exists

MAX_STRIP_CELLS = 400
# Cells of the per-segment strip, in the order a merged cell shows the worst one.
CELL_ORDER = ("failed", "running", "pending", "done")


@dataclass(frozen=True)
class SegmentTally:
    """The segments of one job at one moment (empty until the job knows its total)."""

    total: int | None
    completions: tuple[SegmentCompletion, ...]
    states: dict[int, SegmentState]

    @property
    def done(self) -> frozenset[int]:
        return frozenset(c.segment_index for c in self.completions)

    @property
    def failed(self) -> int:
        """Segments whose last attempt failed and that are not done."""
        done = self.done
        return sum(1 for i, s in self.states.items() if s == SegmentState.FAILED and i not in done)

    def cells(self) -> list[str]:
        return segment_cells(self.total or 0, self.states, set(self.done))


def read_segments(backend: Backend, job: Job) -> SegmentTally:
    """The job's completions and segment states (blocking store reads; none
    before chunking has set ``total_segments``). Store errors propagate."""
    total = job.total_segments
    if not total:
        return SegmentTally(total, (), {})
    completions = tuple(run_completions(backend, job))
    states = {s.segment_index: s.state for s in run_statuses(backend, job)}
    return SegmentTally(total, completions, states)


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


def merge_cells(cells: list[str], max_cells: int = MAX_STRIP_CELLS) -> list[str]:
    """At most ``max_cells`` cells; a merged cell shows its worst member."""
    if len(cells) <= max_cells:
        return cells
    width = math.ceil(len(cells) / max_cells)
    rank = {c: i for i, c in enumerate(CELL_ORDER)}
    return [min(cells[i:i + width], key=rank.__getitem__) for i in range(0, len(cells), width)]


def percent_for(status: JobStatus, done: int, total: int | None) -> float:
    """Overall percent: splitting is the first 5 %, segments to 90 %, joining the rest."""
    if status == JobStatus.COMPLETED:
        return 100.0
    if status == JobStatus.REASSEMBLING:
        return 92.0
    if total:
        return round(5.0 + 85.0 * min(done, total) / total, 1)
    return 2.0 if status == JobStatus.CHUNKING_IN_PROGRESS else 0.0
