"""Estimated time left: from the job's own pace once segments finish, else from
seconds-per-MB (configured, or learned from recently completed jobs)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from shared_types.models import JobStatus, SegmentCompletion
from shared_types.ports import JobStore

MB = 1024 * 1024


def learn_seconds_per_mb(jobs: JobStore, *, sample: int = 20) -> float | None:
    """Mean wall seconds per source MB over the newest completed jobs that know
    their source size; None when there is nothing to learn from."""
    page = jobs.list_by_status(JobStatus.COMPLETED, limit=sample)
    seconds = megabytes = 0.0
    for job in page.items:
        if job.completed_at is None or not job.source_size_bytes:
            continue
        took = job.completed_at - job.created_at
        if took <= 0:
            continue
        seconds += took
        megabytes += job.source_size_bytes / MB
    return seconds / megabytes if megabytes > 0 else None


def pace_from_completions(completions: Sequence[SegmentCompletion]) -> float | None:
    """Seconds per segment measured between the first and last completion."""
    if len(completions) < 2:
        return None
    times = sorted(c.completed_at for c in completions)
    span = times[-1] - times[0]
    return span / (len(times) - 1) if span > 0 else None


class EtaEstimator:
    """Thread-safe: SSE streams call it from worker threads."""

    def __init__(
        self,
        jobs: JobStore,
        seconds_per_mb: float | None = None,
        *,
        cache_s: float = 60.0,
        clock=time.monotonic,
    ) -> None:
        self._jobs = jobs
        self._configured = seconds_per_mb
        self._cache_s = cache_s
        self._clock = clock
        self._lock = threading.Lock()
        self._learned: tuple[float, float | None] | None = None  # (at, value)

    def seconds_per_mb(self) -> float | None:
        """The configured rate, else the learned one (re-learned every cache_s)."""
        if self._configured is not None:
            return self._configured
        with self._lock:
            t = self._clock()
            if self._learned is None or t - self._learned[0] > self._cache_s:
                self._learned = (t, learn_seconds_per_mb(self._jobs))
            return self._learned[1]

    def estimate_total(self, size_bytes: int | None) -> float | None:
        """Whole-conversion estimate for a source of ``size_bytes``."""
        spm = self.seconds_per_mb()
        if spm is None or not size_bytes:
            return None
        return spm * size_bytes / MB

    def remaining(
        self,
        *,
        size_bytes: int | None,
        fraction_done: float,
        completions: Sequence[SegmentCompletion],
        total_segments: int | None,
    ) -> float | None:
        """Seconds left, or None when no estimate is possible."""
        pace = pace_from_completions(completions)
        if pace is not None and total_segments:
            return max(0.0, (total_segments - len(completions)) * pace)
        total = self.estimate_total(size_bytes)
        if total is None:
            return None
        return max(0.0, total * (1.0 - min(max(fraction_done, 0.0), 1.0)))
