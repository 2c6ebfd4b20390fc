"""What this machine's recent conversions say about the next one: the rates
the ETA uses before a job has measured its own.

Learned from the newest completed jobs in the job store (the local backend's
SQLite is this machine's history; on AWS, DynamoDB), their segments'
heartbeats and completions. Each job splits into stages:

- lead: from the chunker claiming the upload (``Job.started_at``) to the
  first segment's conversion starting (probe, split, queue, engine start);
- conversion: each segment's heartbeats give its frames and how long one
  worker spent on them, so the speed of one worker is learned in pixels per
  second (width x height x frames; a 4K job is not a 480p job), and the gap
  between one worker's consecutive segments is the per-segment overhead
  (fetch, upload, the next message);
- tail: from the last segment's completion to the job completing (reassembly);
- workers: the most distinct workers that converted one job.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median, median_low

from shared_types.models import Job, JobStatus, SegmentCompletion, SegmentHeartbeat
from shared_types.ports import Backend
from shared_types.runs import run_completions

SAMPLE_JOBS = 10
IDLE_GAP_S = 60.0  # a longer gap between a worker's segments is waiting, not overhead


@dataclass(frozen=True)
class MachineRates:
    """Per-machine priors for the ETA, learned from ``jobs`` completed jobs."""

    pixels_per_s: float  # one worker's conversion speed, width x height x frames per second
    segment_overhead_s: float
    lead_s: float
    tail_s: float
    workers: int
    jobs: int

    def worker_fps(self, width: int, height: int) -> float:
        """One worker's frames per second on frames of ``width`` x ``height``."""
        return self.pixels_per_s / max(1, width * height)


@dataclass(frozen=True)
class JobStages:
    """One completed job's measured stages."""

    speeds: list[float]  # pixels per second of each segment with a finished beat
    gaps: list[float]
    lead_s: float
    tail_s: float
    workers: int


def job_stages(job: Job, beats: list[SegmentHeartbeat],
               completions: list[SegmentCompletion]) -> JobStages | None:
    """The stages of one completed job, or None when it lacks what is needed
    (no probe facts, no start time, no finished heartbeats, a retried job)."""
    if (job.status != JobStatus.COMPLETED or job.completed_at is None or job.epoch
            or job.started_at is None or not job.source_width or not job.source_height
            or not beats or not completions):
        return None
    finished = [b for b in beats if b.frames_total and b.last_heartbeat > b.started_at]
    if not finished:
        return None
    pixels = job.source_width * job.source_height
    speeds = [pixels * (b.frames_total or 0) / (b.last_heartbeat - b.started_at)
              for b in finished]
    first = min(b.started_at for b in beats)
    last = max(c.completed_at for c in completions)
    return JobStages(speeds=speeds, gaps=worker_gaps(beats),
                     lead_s=max(0.0, first - job.started_at),
                     tail_s=max(0.0, job.completed_at - last),
                     workers=len({b.worker for b in beats}))


def worker_gaps(beats: list[SegmentHeartbeat]) -> list[float]:
    """Seconds between one worker's segments (its last beat on one to its
    start on the next): the per-segment overhead. Longer gaps are idling."""
    by_worker: dict[str, list[SegmentHeartbeat]] = {}
    for b in beats:
        by_worker.setdefault(b.worker, []).append(b)
    gaps = []
    for mine in by_worker.values():
        mine.sort(key=lambda b: b.started_at)
        gaps += [max(0.0, nxt.started_at - prev.last_heartbeat)
                 for prev, nxt in zip(mine, mine[1:], strict=False)
                 if nxt.started_at - prev.last_heartbeat < IDLE_GAP_S]
    return gaps


def learn_machine_rates(backend: Backend, *, sample: int = SAMPLE_JOBS) -> MachineRates | None:
    """Rates learned from the newest ``sample`` completed jobs; None when none
    of them can teach anything. Store errors propagate."""
    stages = []
    for job in backend.jobs.list_by_status(JobStatus.COMPLETED, limit=sample).items:
        beats = backend.heartbeats.list(job.job_id) if job.started_at is not None else []
        learned = job_stages(job, beats, run_completions(backend, job) if beats else [])
        if learned is not None:
            stages.append(learned)
    if not stages:
        return None
    gaps = [g for s in stages for g in s.gaps]
    # Segments are the observations of speed and overhead: the median over all
    # jobs' segments (a worker's first segment may pay a warm-up). Lead and tail
    # are one per job; the low median, because the first job after the workers
    # start pays their one-off start-up (engine import, model load).
    return MachineRates(
        pixels_per_s=median(v for s in stages for v in s.speeds),
        segment_overhead_s=median(gaps) if gaps else 0.0,
        lead_s=median_low([s.lead_s for s in stages]),
        tail_s=median_low([s.tail_s for s in stages]),
        workers=max(s.workers for s in stages),
        jobs=len(stages),
    )
