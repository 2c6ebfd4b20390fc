"""The staged ETA on synthetic progress timelines: a "true" job (lead, segments
on parallel workers at a known speed with a per-segment overhead, tail) is
replayed as the heartbeats and completions the stores would hold at each
moment, and the estimate is compared with the time that truly remained."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from shared_types.eta_history import MachineRates
from shared_types.job_eta import blended_fps, conversion_end, estimate_job
from shared_types.models import (
    Job,
    JobStatus,
    OutputMode,
    SegmentCompletion,
    SegmentHeartbeat,
)

W, H = 320, 180
BEAT_S = 2.0


@dataclass(frozen=True)
class TrueJob:
    segment_frames: tuple[int, ...]
    workers: int = 2
    fps: float = 24.0  # one worker
    overhead: float = 1.0
    lead: float = 3.0
    tail: float = 2.0

    def schedule(self) -> list[tuple[int, str, float, float]]:
        """(segment, worker, start, end): each segment goes to the first free worker."""
        free = {f"w{k}": self.lead for k in range(self.workers)}
        first = set(free)
        rows = []
        for i, frames in enumerate(self.segment_frames):
            worker = min(free, key=lambda w: (free[w], w))
            start = free[worker] + (0.0 if worker in first else self.overhead)
            first.discard(worker)
            end = start + frames / self.fps
            free[worker] = end
            rows.append((i, worker, start, end))
        return rows

    @property
    def duration(self) -> float:
        return max(end for *_, end in self.schedule()) + self.tail

    def state_at(self, t: float):
        """(job, beats, done, completions) as the stores hold them at ``t``."""
        rows = self.schedule()
        beats, done, completions = [], set(), []
        for i, worker, start, end in rows:
            if start > t:
                continue
            frames = self.segment_frames[i]
            last = end if t >= end else start + BEAT_S * math.floor((t - start) / BEAT_S)
            beats.append(SegmentHeartbeat(
                job_id="j", segment_index=i, worker=worker,
                frames_done=frames if t >= end else int(self.fps * (last - start)),
                frames_total=frames, started_at=start, last_heartbeat=last))
            if t >= end:
                done.add(i)
                completions.append(SegmentCompletion(job_id="j", segment_index=i,
                                                     output_key="k", completed_at=end))
        all_done = len(done) == len(rows)
        status = (JobStatus.REASSEMBLING if all_done else JobStatus.CHUNKING_COMPLETE
                  if t >= self.lead / 2 else JobStatus.CHUNKING_IN_PROGRESS)
        job = Job(job_id="j", mode=OutputMode.HALF_SBS, status=status, created_at=-5.0,
                  started_at=0.0, source_frames=sum(self.segment_frames),
                  source_width=W, source_height=H,
                  total_segments=len(rows) if status != JobStatus.CHUNKING_IN_PROGRESS else None)
        return job, beats, done, completions

    def history(self, speed: float = 1.0) -> MachineRates:
        """What this machine's history says, ``speed`` times the true worker speed."""
        return MachineRates(pixels_per_s=self.fps * speed * W * H,
                            segment_overhead_s=self.overhead, lead_s=self.lead,
                            tail_s=self.tail, workers=self.workers, jobs=5)


def estimate_at(truth: TrueJob, t: float, rates: MachineRates | None):
    job, beats, done, completions = truth.state_at(t)
    return estimate_job(job, beats, done, completions, rates, now=t)


def error_at(truth: TrueJob, fraction: float, rates: MachineRates | None) -> float:
    t = fraction * truth.duration
    est = estimate_at(truth, t, rates)
    remaining = truth.duration - t
    return abs(est.eta_seconds - remaining) / remaining


JOBS = {
    "2 segments": TrueJob((96, 96)),
    "5 segments, odd": TrueJob((96,) * 4 + (40,)),
    "12 segments": TrueJob((96,) * 12),
    "40 segments, 4 workers": TrueJob((240,) * 40, workers=4, lead=8.0, tail=6.0),
    "300 segments (2 h at 24 fps)": TrueJob((576,) * 300, workers=2, fps=30.0, lead=20.0,
                                            tail=40.0, overhead=3.0),
}


@pytest.mark.parametrize("name", JOBS)
def test_with_a_history_that_matches_the_eta_is_within_20_percent_from_10_percent_on(name):
    truth = JOBS[name]
    for step in range(10, 96, 5):
        assert error_at(truth, step / 100, truth.history()) <= 0.20, (name, step)


@pytest.mark.parametrize("name", ["12 segments", "40 segments, 4 workers",
                                  "300 segments (2 h at 24 fps)"])
def test_a_history_30_percent_too_fast_is_corrected_by_the_jobs_own_speed(name):
    truth = JOBS[name]
    stale = truth.history(speed=1.3)
    early = error_at(truth, 0.9 * truth.lead / truth.duration, stale)
    assert early > 0.10  # before the first beat the history is all there is
    assert error_at(truth, 0.5, stale) <= 0.20
    assert error_at(truth, 0.5, stale) < early


def test_without_a_history_there_is_no_eta_until_the_job_measures_itself():
    truth = JOBS["12 segments"]
    before = estimate_at(truth, truth.lead - 0.5, None)
    assert before.eta_seconds is None
    assert before.percent < 5.0
    measured = estimate_at(truth, 0.5 * truth.duration, None)
    assert measured.eta_seconds is not None
    assert error_at(truth, 0.5, None) <= 0.20  # the tail is unknown, the rest measured


def test_the_percent_is_weighted_by_work_and_never_goes_back():
    truth = JOBS["40 segments, 4 workers"]
    rates = truth.history()
    shown = [estimate_at(truth, f * truth.duration, rates).percent for f in
             (0.02, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99)]
    assert shown == sorted(shown)
    for fraction, percent in zip((0.1, 0.25, 0.5, 0.75, 0.9), shown[1:6], strict=True):
        assert abs(percent - 100 * fraction) <= 10, (fraction, shown)


def test_parallel_workers_finish_waves_together():
    # 4 equal segments of 10 s on 2 workers: two waves; on 4 workers: one.
    two = conversion_end(now=0, free_at=[0, 0], pending=4, pending_frames=400, fps=10,
                         overhead_s=0)
    four = conversion_end(now=0, free_at=[0, 0, 0, 0], pending=4, pending_frames=400,
                          fps=10, overhead_s=0)
    assert (two, four) == (20, 10)
    # a worker busy for 15 s more takes the third segment only if it is free first
    assert conversion_end(now=0, free_at=[15, 0], pending=2, pending_frames=200, fps=10,
                          overhead_s=1) == 22


def test_the_measured_speed_outweighs_the_history_as_worker_seconds_add_up():
    def beats(seconds):
        return [SegmentHeartbeat(job_id="j", segment_index=0, worker="w", frames_done=
                                 int(20 * seconds), frames_total=1000, started_at=0,
                                 last_heartbeat=seconds)]
    assert blended_fps([], 10.0) == 10.0
    early, late = blended_fps(beats(2), 10.0), blended_fps(beats(90), 10.0)
    assert 10.0 < early < 15.0 < late < 20.0
    assert blended_fps(beats(5), None) == 20.0


def test_reassembly_counts_down_the_tail():
    truth = JOBS["2 segments"]
    last_end = max(end for *_, end in truth.schedule())
    est = estimate_at(truth, last_end + 0.5, truth.history())
    assert est.eta_seconds == pytest.approx(truth.tail - 0.5)
    # the work: lead 3 s, conversion 192 frames on 2 workers at 24 fps + 1 s overhead
    # (5 s), tail 2 s, a quarter of it gone: (3 + 5 + 0.5) / 10
    assert est.percent == pytest.approx(85.0)


def test_no_estimate_before_the_probe_or_after_the_end():
    truth = JOBS["2 segments"]
    job, beats, done, completions = truth.state_at(1.0)
    unprobed = job.model_copy(update={"source_frames": None})
    assert estimate_job(unprobed, beats, done, completions, truth.history(), now=1.0) is None
    final = job.model_copy(update={"status": JobStatus.COMPLETED})
    assert estimate_job(final, beats, done, completions, truth.history(), now=1.0) is None


def test_a_worker_that_went_silent_is_not_shown_finishing_its_segment():
    # Killed after 20 of 180 frames: its last beat stays live for STALE_S, but
    # the percent must not run on to ~95 % (then fall back once it is stale).
    truth = TrueJob((180,), workers=1, fps=10.0, lead=2.0, tail=1.0, overhead=0.0)
    killed_at = truth.lead + 2.0
    job, beats, done, completions = truth.state_at(killed_at)
    rates = truth.history()
    silent = estimate_job(job, beats, done, completions, rates, now=killed_at + 25.0)
    assert silent.percent < 50.0
    assert silent.eta_seconds > truth.duration - killed_at - 10.0
