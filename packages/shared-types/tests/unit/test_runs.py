"""Chunking runs: another run's side effect is refused and counted; readers take
only the current run."""

from shared_types.models import Job, OutputMode, SegmentCompletion, SegmentState
from shared_types.runs import (
    STALE_RUN_WRITES,
    refuse_other_run,
    run_completions,
    run_statuses,
)
from shared_types.testing.memory import memory_backend


def job(run: int, total: int | None = 2) -> Job:
    return Job(job_id="job-1", mode=OutputMode.SBS, run=run, total_segments=total)


def completion(index: int, run: int) -> SegmentCompletion:
    return SegmentCompletion(job_id="job-1", segment_index=index, run=run,
                             output_key=f"jobs/job-1/segments/r{run}/{index}.mp4")


def test_a_side_effect_of_another_run_is_refused_and_counted_by_stage():
    before = STALE_RUN_WRITES.count("probe-stage")
    assert refuse_other_run(job(3), 2, "probe-stage", "segment 0") is True
    assert refuse_other_run(job(3), 3, "probe-stage", "segment 0") is False
    assert STALE_RUN_WRITES.count("probe-stage") == before + 1
    assert STALE_RUN_WRITES.snapshot()["probe-stage"] == before + 1


def test_readers_take_only_the_current_runs_rows_below_the_total():
    backend = memory_backend()
    backend.completions.put(completion(0, 2))
    backend.completions.put(completion(1, 1))  # an old run's, never replaced yet
    backend.completions.put(completion(2, 2))  # beyond this run's total
    assert [c.segment_index for c in run_completions(backend, job(2))] == [0]
    assert [c.segment_index for c in run_completions(backend, job(2, None))] == [0, 2]
    backend.segment_status.mark_complete("job-1", 0, run=2)
    backend.segment_status.mark_failed("job-1", 1, "old run's error", run=1)
    assert [(s.segment_index, s.state) for s in run_statuses(backend, job(2))] == [
        (0, SegmentState.COMPLETE)]
