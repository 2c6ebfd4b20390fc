"""How far a job is and how long it has left, from a model of its stages.

A job is a lead (probe, split, first segment reaching a worker), the
conversion of its frames on ``workers`` parallel workers, and a tail
(reassembly). The frame count comes from the chunker's probe, so it is known
from the first seconds. The speed of one worker is a blend: the machine's
history (``eta_history.MachineRates``) until the job has measured its own from
its heartbeats, then more and more the job's own (weighted by the worker
seconds measured against ``CONFIDENCE_S``). The time left schedules what
remains: each live segment ends when its frames are done, pending segments go
to the first worker that is free, each with the per-segment overhead.

The percent is weighted by work: the conversion's share moves with frames
done, the lead's and tail's shares are their expected durations, so 10 % means
a tenth of the work, not a tenth of the segments.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from statistics import median

from shared_types.eta_history import MachineRates, worker_gaps
from shared_types.frame_progress import (
    STALE_S,
    counted_silence_s,
    frames_done_by,
    frames_since_beat,
)
from shared_types.models import Job, JobStatus, SegmentCompletion, SegmentHeartbeat

CONFIDENCE_S = 10.0  # worker seconds measured on this job that weigh as much as the history
CONFIDENCE_GAPS = 3  # gaps between segments measured on this job that weigh as much
FALLBACK_WEIGHTS = (5.0, 85.0, 10.0)  # lead, conversion, tail without a history
MAX_PERCENT = 99.0


@dataclass(frozen=True)
class JobEstimate:
    percent: float
    eta_seconds: float | None  # None while neither history nor the job gives a speed
    worker_fps: float | None


def blended_fps(beats: Sequence[SegmentHeartbeat], prior: float | None) -> float | None:
    """One worker's frames per second: the job's measured speed (frames over
    worker seconds) blended with the prior by how much was measured."""
    busy = sum(max(0.0, b.last_heartbeat - b.started_at) for b in beats)
    made = sum(b.frames_done for b in beats)
    measured = made / busy if busy >= 1.0 and made else None
    if measured is None:
        return prior
    if prior is None:
        return measured
    weight = busy / (busy + CONFIDENCE_S)
    return weight * measured + (1.0 - weight) * prior


def blended_overhead(beats: Sequence[SegmentHeartbeat], prior: float | None) -> float:
    """Seconds a worker spends between segments: the job's own gaps blended
    with the prior by how many were measured (0 with neither)."""
    gaps = worker_gaps(list(beats))
    if not gaps:
        return prior or 0.0
    if prior is None:
        return median(gaps)
    weight = len(gaps) / (len(gaps) + CONFIDENCE_GAPS)
    return weight * median(gaps) + (1.0 - weight) * prior


def conversion_end(*, now: float, free_at: list[float], pending: int, pending_frames: float,
                   fps: float, overhead_s: float) -> float:
    """When the last worker finishes: ``pending`` equal segments of
    ``pending_frames`` in all go, one by one, to the first free worker."""
    slots = list(free_at)
    heapq.heapify(slots)
    each = (pending_frames / pending / fps + overhead_s) if pending else 0.0
    for _ in range(pending):
        heapq.heappush(slots, heapq.heappop(slots) + each)
    return max([now, *slots])


@dataclass(frozen=True)
class _Stages:
    """One job's model at one moment (see the module docstring)."""

    total: int  # frames
    segments: int
    per_segment: float
    workers: int
    fps: float | None  # one worker, blended
    prior_fps: float | None
    overhead: float
    lead: float
    tail: float
    started: float
    live: list[SegmentHeartbeat]
    last_done: float | None  # the newest segment completion


def estimate_job(job: Job, beats: Sequence[SegmentHeartbeat], done: Collection[int],
                 completions: Sequence[SegmentCompletion], rates: MachineRates | None, *,
                 now: float, stale_s: float = STALE_S) -> JobEstimate | None:
    """The job's percent and seconds left, or None before its probe gave a
    frame count (or once it is final)."""
    total = job.source_frames
    if (not total or job.status.is_final or job.status == JobStatus.CREATED
            or not job.source_width or not job.source_height):
        return None
    prior = rates.worker_fps(job.source_width, job.source_height) if rates else None
    workers = max(rates.workers if rates else 1, len({b.worker for b in beats}), 1)
    known = [b.frames_total for b in beats if b.frames_total]
    per_segment = sum(known) / len(known) if known else None
    segments = job.total_segments or (
        max(len(beats), round(total / per_segment)) if per_segment else workers)
    m = _Stages(
        total=total, segments=segments, per_segment=per_segment or total / segments,
        workers=workers, fps=blended_fps(beats, prior), prior_fps=prior,
        overhead=blended_overhead(beats, rates.segment_overhead_s if rates else None),
        lead=rates.lead_s if rates else 0.0, tail=rates.tail_s if rates else 0.0,
        started=job.started_at if job.started_at is not None else now,
        live=[b for b in beats if b.segment_index not in done
              and now - b.last_heartbeat <= stale_s],
        last_done=max((c.completed_at for c in completions), default=None))
    percent = _work_percent(m, job.status, beats, done, now)
    if job.status == JobStatus.REASSEMBLING:
        since = now - m.last_done if m.last_done is not None else 0.0
        return JobEstimate(percent, max(0.0, m.tail - since) if rates else None, m.fps)
    if m.fps is None:
        return JobEstimate(percent, None, None)
    return JobEstimate(percent, _time_left(m, m.fps, beats, done, now), m.fps)


def _work_percent(m: _Stages, status: JobStatus, beats: Sequence[SegmentHeartbeat],
                  done: Collection[int], now: float) -> float:
    """Each stage's expected share times how far it is; conversion by frames."""
    weights = FALLBACK_WEIGHTS
    if m.prior_fps:
        convert = (m.total / (m.prior_fps * min(m.workers, m.segments))
                   + m.overhead * m.segments / m.workers)
        weights = (m.lead, convert, m.tail)
    # Beats are seconds apart: count what live segments made since their last one.
    since_beats = sum(
        frames_since_beat(b, m.fps, now=now,
                          frames_left=(b.frames_total or m.per_segment) - b.frames_done)
        for b in m.live) if m.fps else 0.0
    frames = min(m.total, frames_done_by(beats, done, m.per_segment) + since_beats)
    lead_part = 1.0 if beats else min(0.95, (now - m.started) / m.lead) if m.lead > 0 else 0.5
    parts = (lead_part, frames / m.total, 0.0)
    if status == JobStatus.REASSEMBLING:
        since = now - m.last_done if m.last_done is not None else 0.0
        parts = (1.0, 1.0, min(0.95, since / m.tail) if m.tail > 0 else 0.5)
    percent = 100.0 * sum(w * p for w, p in zip(weights, parts, strict=True)) / sum(weights)
    return round(min(MAX_PERCENT, max(0.0, percent)), 1)


def _time_left(m: _Stages, fps: float, beats: Sequence[SegmentHeartbeat],
               done: Collection[int], now: float) -> float:
    """Seconds until the last segment is converted at ``fps`` per worker, plus the tail."""
    free_at = [now + max(0.0, ((b.frames_total or m.per_segment) - b.frames_done) / fps
                         - counted_silence_s(b, now=now)) for b in m.live]
    first_free = now if beats else max(now, m.started + m.lead)
    free_at += [first_free] * max(0, m.workers - len(free_at))
    in_live = sum(b.frames_total or m.per_segment for b in m.live)
    done_frames = frames_done_by([b for b in beats if b.segment_index in done], done,
                                 m.per_segment)
    pending = max(0, m.segments - len(set(done)) - len(m.live))
    pending_frames = max(0.0, m.total - done_frames - in_live)
    if pending == 0 and pending_frames > 0 and not m.live:
        pending = 1
    end = conversion_end(now=now, free_at=free_at, pending=pending,
                         pending_frames=pending_frames, fps=fps, overhead_s=m.overhead)
    return max(0.0, end - now) + m.tail
