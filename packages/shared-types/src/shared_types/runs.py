"""Chunking runs: nothing of one run is ever joined with another's.

A job's chunking run (``Job.run``) is taken by the chunker's claim (a
conditional write on the previous run number), so two chunkers of one job --
a zombie that lost its claim and its successor, or the runs before and after a
Retry -- never share a number. Everything derived from a run carries it: the
segment keys, the converted-segment keys (``shared_types.keys``) and the
SegmentCompletions. A worker compares the run of what it is about to touch
with the job's current run before every side effect; a side effect of another
run is refused and counted here (:data:`STALE_RUN_WRITES`), and readers join
only the current run's completions (:func:`run_completions`).
"""

from __future__ import annotations

import logging
import threading
from collections import Counter

from shared_types.models import Job, SegmentCompletion, SegmentStatus
from shared_types.ports import Backend

log = logging.getLogger(__name__)


class StaleRunWrites:
    """Counts side effects refused because their run is not the job's current
    run, by stage (the number operators and tests read)."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def record(self, stage: str, job_id: str, run: int, current: int, what: str) -> None:
        """Count one refused side effect and say so in the log."""
        with self._lock:
            self._counts[stage] += 1
        log.warning("job_id=%s %s of run %d refused: the job's current run is %d (%s)",
                    job_id, what, run, current, stage)

    def count(self, stage: str | None = None) -> int:
        """Refused side effects of ``stage`` (all stages when None) so far."""
        with self._lock:
            return sum(self._counts.values()) if stage is None else self._counts[stage]

    def snapshot(self) -> dict[str, int]:
        """Counts by stage."""
        with self._lock:
            return dict(self._counts)


STALE_RUN_WRITES = StaleRunWrites()


def refuse_other_run(job: Job, run: int, stage: str, what: str) -> bool:
    """True (counted, logged) when ``run`` is not ``job``'s current run: the
    caller must then skip its side effect."""
    if run == job.run:
        return False
    STALE_RUN_WRITES.record(stage, job.job_id, run, job.run, what)
    return True


def run_completions(backend: Backend, job: Job) -> list[SegmentCompletion]:
    """The completions of ``job``'s current run, by segment index (indexes below
    ``total_segments`` when it is known); a completion of any other run is left out."""
    total = job.total_segments
    return [c for c in backend.completions.list(job.job_id)
            if c.run == job.run and (total is None or c.segment_index < total)]


def run_statuses(backend: Backend, job: Job) -> list[SegmentStatus]:
    """The segment status rows of ``job``'s current run, by segment index."""
    return [s for s in backend.segment_status.list(job.job_id) if s.run == job.run]
