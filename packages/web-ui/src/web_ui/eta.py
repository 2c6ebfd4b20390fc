"""Estimated time left, with this machine's history cached for the SSE streams.

Once the chunker's probe gave a job's frame count, the staged model of
``shared_types.job_eta`` (fed by ``shared_types.eta_history``) estimates it.
Before that (and for the page's estimate of a file about to be uploaded) a
cost model of this machine: fixed seconds + seconds per MB (configured, or
fitted to recently completed jobs, so short jobs' start-up cost does not
inflate long jobs' estimates)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from shared_types.eta_history import MachineRates, learn_machine_rates
from shared_types.models import JobStatus, SegmentCompletion
from shared_types.ports import Backend, JobStore

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


def learn_cost_model(jobs: JobStore, *, sample: int = 20) -> tuple[float, float] | None:
    """(fixed seconds, seconds per MB) fitted by least squares to the newest
    completed jobs that know their source size; with fewer than two distinct
    sizes (or a fit that makes no sense) the fixed part is 0 and the rate is
    the mean. None when there is nothing to learn from."""
    rate = learn_seconds_per_mb(jobs, sample=sample)
    if rate is None:
        return None
    points = [(job.source_size_bytes / MB, job.completed_at - job.created_at)
              for job in jobs.list_by_status(JobStatus.COMPLETED, limit=sample).items
              if job.completed_at is not None and job.source_size_bytes
              and job.completed_at > job.created_at]
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    if n < 2 or spread <= 0:
        return 0.0, rate
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / spread
    fixed = mean_y - slope * mean_x
    if slope <= 0 or fixed < 0:
        return 0.0, rate
    return fixed, slope


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
        backend: Backend,
        seconds_per_mb: float | None = None,
        *,
        cache_s: float = 60.0,
        clock=time.monotonic,
    ) -> None:
        self._backend = backend
        self._jobs = backend.jobs
        self._configured = seconds_per_mb
        self._cache_s = cache_s
        self._clock = clock
        self._lock = threading.Lock()
        self._learned: tuple[float, tuple[float, float] | None] | None = None  # (at, model)
        self._rates: tuple[float, MachineRates | None] | None = None  # (at, rates)

    def machine_rates(self) -> MachineRates | None:
        """This machine's stage rates from its history (re-learned every cache_s)."""
        with self._lock:
            t = self._clock()
            if self._rates is None or t - self._rates[0] > self._cache_s:
                self._rates = (t, learn_machine_rates(self._backend))
            return self._rates[1]

    def cost_model(self) -> tuple[float, float] | None:
        """(fixed seconds, seconds per MB): the configured rate with no fixed
        part, else the learned model (re-learned every cache_s)."""
        if self._configured is not None:
            return 0.0, self._configured
        with self._lock:
            t = self._clock()
            if self._learned is None or t - self._learned[0] > self._cache_s:
                self._learned = (t, learn_cost_model(self._jobs))
            return self._learned[1]

    def seconds_per_mb(self) -> float | None:
        """The configured rate, else the learned one."""
        model = self.cost_model()
        return model[1] if model else None

    def fixed_seconds(self) -> float:
        """The learned fixed cost of any job (0 with a configured rate)."""
        model = self.cost_model()
        return model[0] if model else 0.0

    def estimate_total(self, size_bytes: int | None) -> float | None:
        """Whole-conversion estimate for a source of ``size_bytes``."""
        model = self.cost_model()
        if model is None or not size_bytes:
            return None
        return model[0] + model[1] * size_bytes / MB

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
