"""SegmentStatusStore contract: segment-first status, attempts, never downgrade complete."""

from __future__ import annotations

from shared_types.models import SegmentState


def test_mark_pending_creates_the_row_and_counts_attempts(segment_status_store):
    first = segment_status_store.mark_pending("job-a", 3)
    assert (first.state, first.attempts) == (SegmentState.PENDING, 1)
    second = segment_status_store.mark_pending("job-a", 3)
    assert second.attempts == 2
    assert segment_status_store.get("job-a", 3).attempts == 2


def test_get_of_unknown_segment_is_none(segment_status_store):
    assert segment_status_store.get("job-a", 0) is None


def test_failed_records_the_reason_and_a_retry_counts_another_attempt(segment_status_store):
    segment_status_store.mark_pending("job-a", 0)
    failed = segment_status_store.mark_failed("job-a", 0, "inference timed out")
    assert (failed.state, failed.last_error, failed.attempts) == (
        SegmentState.FAILED, "inference timed out", 1)
    retry = segment_status_store.mark_pending("job-a", 0)
    assert (retry.state, retry.attempts) == (SegmentState.PENDING, 2)


def test_complete_clears_the_error_and_keeps_attempts(segment_status_store):
    segment_status_store.mark_pending("job-a", 0)
    segment_status_store.mark_failed("job-a", 0, "boom")
    segment_status_store.mark_pending("job-a", 0)
    done = segment_status_store.mark_complete("job-a", 0)
    assert (done.state, done.last_error, done.attempts) == (SegmentState.COMPLETE, None, 2)


def test_mark_complete_creates_a_missing_row(segment_status_store):
    done = segment_status_store.mark_complete("job-a", 7)
    assert done.state == SegmentState.COMPLETE
    assert segment_status_store.get("job-a", 7).state == SegmentState.COMPLETE


def test_a_complete_segment_is_never_downgraded(segment_status_store):
    segment_status_store.mark_pending("job-a", 1)
    segment_status_store.mark_complete("job-a", 1)
    pending = segment_status_store.mark_pending("job-a", 1)
    failed = segment_status_store.mark_failed("job-a", 1, "late duplicate failed")
    assert pending.state == failed.state == SegmentState.COMPLETE
    row = segment_status_store.get("job-a", 1)
    assert (row.state, row.attempts, row.last_error) == (SegmentState.COMPLETE, 1, None)


def test_a_newer_run_starts_the_row_afresh(segment_status_store):
    segment_status_store.mark_pending("job-a", 0, run=1)
    segment_status_store.mark_complete("job-a", 0, run=1)
    fresh = segment_status_store.mark_pending("job-a", 0, run=2)
    assert (fresh.state, fresh.attempts, fresh.run) == (SegmentState.PENDING, 1, 2)
    segment_status_store.mark_failed("job-b", 0, "old run's engine error", run=1)
    done = segment_status_store.mark_complete("job-b", 0, run=2)
    assert (done.state, done.last_error, done.attempts, done.run) == (
        SegmentState.COMPLETE, None, 0, 2)
    failed = segment_status_store.mark_failed("job-c", 0, "boom", run=3)
    assert (failed.state, failed.run) == (SegmentState.FAILED, 3)


def test_a_mark_of_an_older_run_changes_nothing(segment_status_store):
    segment_status_store.mark_pending("job-a", 0, run=2)
    for stale in (segment_status_store.mark_complete("job-a", 0, run=1),
                  segment_status_store.mark_failed("job-a", 0, "zombie", run=1),
                  segment_status_store.mark_pending("job-a", 0, run=1)):
        assert (stale.state, stale.run, stale.attempts) == (SegmentState.PENDING, 2, 1)
    row = segment_status_store.get("job-a", 0)
    assert (row.state, row.run, row.attempts, row.last_error) == (
        SegmentState.PENDING, 2, 1, None)


def test_list_is_ordered_by_index_and_delete_job_is_per_job(segment_status_store):
    for i in (2, 0, 1):
        segment_status_store.mark_pending("job-a", i)
    segment_status_store.mark_pending("job-b", 0)
    assert [r.segment_index for r in segment_status_store.list("job-a")] == [0, 1, 2]
    segment_status_store.delete_job("job-a")
    assert segment_status_store.list("job-a") == []
    assert len(segment_status_store.list("job-b")) == 1


def test_delete_forgets_one_row_so_a_complete_segment_can_run_again(segment_status_store):
    segment_status_store.mark_complete("job-a", 0)
    segment_status_store.mark_complete("job-a", 1)
    segment_status_store.delete("job-a", 1)
    segment_status_store.delete("job-a", 9)  # absent: no error
    assert segment_status_store.get("job-a", 1) is None
    assert segment_status_store.get("job-a", 0).state == SegmentState.COMPLETE
    assert segment_status_store.mark_pending("job-a", 1).state == SegmentState.PENDING


__all__ = [name for name in dir() if name.startswith("test_")]
