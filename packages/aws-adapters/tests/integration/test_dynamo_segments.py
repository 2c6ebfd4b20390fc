"""DynamoDB segment tables beyond their contracts: paging and batch deletes (moto)."""

from __future__ import annotations

from shared_types.models import SegmentCompletion, SegmentState

from aws_adapters.dynamo_segment_status import MAX_ERROR_CHARS


def test_delete_job_removes_more_than_one_batch_write(backend):
    for i in range(60):
        backend.completions.put(SegmentCompletion(job_id="j1", segment_index=i,
                                                  output_key=f"jobs/j1/segments/{i}.mp4"))
    assert backend.completions.count("j1") == 60
    assert [c.segment_index for c in backend.completions.list("j1")] == list(range(60))
    backend.completions.delete_job("j1")
    assert backend.completions.count("j1") == 0


def test_a_huge_failure_reason_is_kept_to_a_bounded_size(backend):
    row = backend.segment_status.mark_failed("j1", 0, "x" * 100_000)
    assert row.state == SegmentState.FAILED
    assert len(row.last_error) == MAX_ERROR_CHARS
