"""SegmentCompletionStore contract: idempotent put, ordered list, count, delete (one, a job)."""

from __future__ import annotations

from shared_types.models import SegmentCompletion
from shared_types.testing.contracts import run_concurrently


def completion(job_id: str, index: int, *, key: str | None = None,
               run: int = 0) -> SegmentCompletion:
    """A completion of one segment (of chunking run ``run``) with a canonical-looking
    output key."""
    return SegmentCompletion(job_id=job_id, segment_index=index, completed_at=100.0 + index,
                             output_key=key or f"jobs/{job_id}/segments/{index}.mp4",
                             total_segments=4, run=run)


def test_first_put_is_new_and_a_repeat_is_not(completion_store):
    assert completion_store.put(completion("job-a", 0)) is True
    assert completion_store.put(completion("job-a", 0, key="other")) is False
    rows = completion_store.list("job-a")
    assert [r.output_key for r in rows] == ["jobs/job-a/segments/0.mp4"]


def test_a_newer_run_replaces_and_an_older_run_is_refused(completion_store):
    assert completion_store.put(completion("job-a", 0, key="run-1", run=1)) is True
    assert completion_store.put(completion("job-a", 0, key="run-2", run=2)) is True
    assert completion_store.put(completion("job-a", 0, key="late-run-1", run=1)) is False
    assert completion_store.put(completion("job-a", 0, key="again-run-2", run=2)) is False
    [row] = completion_store.list("job-a")
    assert (row.output_key, row.run) == ("run-2", 2)
    assert completion_store.count("job-a") == 1


def test_list_is_ordered_by_segment_index_and_per_job(completion_store):
    for i in (2, 0, 3, 1):
        completion_store.put(completion("job-a", i))
    completion_store.put(completion("job-b", 9))
    rows = completion_store.list("job-a")
    assert [r.segment_index for r in rows] == [0, 1, 2, 3]
    assert rows[2].model_dump() == completion("job-a", 2).model_dump()
    assert completion_store.list("job-unknown") == []


def test_count_counts_distinct_segments(completion_store):
    for i in (0, 1, 1, 2, 2, 2):
        completion_store.put(completion("job-a", i))
    assert completion_store.count("job-a") == 3
    assert completion_store.count("job-b") == 0


def test_concurrent_puts_of_one_segment_report_exactly_one_new(completion_store):
    results = run_concurrently(lambda: completion_store.put(completion("job-a", 5)), 6)
    assert sorted(results) == [False] * 5 + [True]


def test_delete_job_forgets_only_that_job(completion_store):
    completion_store.put(completion("job-a", 0))
    completion_store.put(completion("job-b", 0))
    completion_store.delete_job("job-a")
    assert completion_store.list("job-a") == []
    assert completion_store.count("job-b") == 1
    assert completion_store.put(completion("job-a", 0)) is True


def test_delete_forgets_one_segment_which_can_then_complete_again(completion_store):
    for i in range(3):
        completion_store.put(completion("job-a", i))
    completion_store.put(completion("job-b", 1))
    completion_store.delete("job-a", 1)
    completion_store.delete("job-a", 7)  # absent: no error
    assert [r.segment_index for r in completion_store.list("job-a")] == [0, 2]
    assert completion_store.count("job-b") == 1
    assert completion_store.put(completion("job-a", 1)) is True


__all__ = [name for name in dir() if name.startswith("test_")] + ["completion"]
