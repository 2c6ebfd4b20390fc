"""This machine's rates learned from completed jobs' heartbeats and completions."""

from __future__ import annotations

import pytest

from shared_types.eta_history import learn_machine_rates, worker_gaps
from shared_types.models import (
    Job,
    JobStatus,
    OutputMode,
    SegmentCompletion,
    SegmentHeartbeat,
    new_job_id,
)
from shared_types.testing.memory import memory_backend


def beat(job_id, index, worker, start, end, frames=100):
    return SegmentHeartbeat(job_id=job_id, segment_index=index, worker=worker,
                            frames_done=frames, frames_total=frames, started_at=start,
                            last_heartbeat=end)


def finished_job(backend, *, t0, segments, size=(100, 100), lead=2.0, tail=3.0,
                 seconds_per_segment=4.0, gap=1.0, workers=2, epoch=0, probed=True):
    """A completed job whose segments ran on ``workers`` workers in waves."""
    job_id = new_job_id()
    w, h = size if probed else (None, None)
    start = t0 + lead
    free = {f"w{k}": start for k in range(workers)}
    ends = []
    for index in range(segments):
        worker = min(free, key=lambda k: (free[k], k))
        begin = free[worker] + (gap if free[worker] > start else 0.0)
        end = begin + seconds_per_segment
        backend.segment_status.mark_pending(job_id, index)
        backend.heartbeats.beat(beat(job_id, index, worker, begin, end))
        backend.completions.put(SegmentCompletion(job_id=job_id, segment_index=index,
                                                  output_key="k", completed_at=end))
        free[worker] = end
        ends.append(end)
    backend.jobs.create(Job(
        job_id=job_id, mode=OutputMode.HALF_SBS, status=JobStatus.COMPLETED, created_at=t0,
        started_at=t0, completed_at=max(ends) + tail, total_segments=segments, epoch=epoch,
        source_frames=100 * segments, source_width=w, source_height=h))
    return job_id


def test_nothing_to_learn_from_an_empty_history():
    assert learn_machine_rates(memory_backend()) is None


def test_learns_speed_overhead_lead_tail_and_workers():
    backend = memory_backend()
    finished_job(backend, t0=0, segments=4)
    finished_job(backend, t0=100, segments=6, size=(200, 100), seconds_per_segment=8.0)
    rates = learn_machine_rates(backend)
    assert rates.jobs == 2
    # 100x100 x 100 frames in 4 s, and 200x100 x 100 frames in 8 s: 250 000 px/s
    assert rates.pixels_per_s == pytest.approx(250_000)
    assert rates.worker_fps(100, 100) == pytest.approx(25.0)
    assert rates.segment_overhead_s == pytest.approx(1.0)
    assert (rates.lead_s, rates.tail_s, rates.workers) == (2.0, 3.0, 2)


def test_a_slow_first_segment_does_not_set_the_speed():
    backend = memory_backend()
    finished_job(backend, t0=0, segments=1, seconds_per_segment=12.0)  # warming up
    finished_job(backend, t0=100, segments=4)
    assert learn_machine_rates(backend).worker_fps(100, 100) == pytest.approx(25.0)


def test_the_first_job_after_a_worker_start_does_not_set_the_lead():
    backend = memory_backend()
    finished_job(backend, t0=0, segments=2, lead=15.0)  # engine import
    finished_job(backend, t0=100, segments=2, lead=1.0)
    assert learn_machine_rates(backend).lead_s == 1.0


def test_jobs_without_probe_facts_or_retried_teach_nothing():
    backend = memory_backend()
    finished_job(backend, t0=0, segments=2, probed=False)
    finished_job(backend, t0=100, segments=2, epoch=1)
    assert learn_machine_rates(backend) is None


def test_a_long_pause_between_segments_is_idling_not_overhead():
    beats = [beat("j", 0, "w", 0, 4), beat("j", 1, "w", 5, 9), beat("j", 2, "w", 300, 304)]
    assert worker_gaps(beats) == [1.0]
