"""Retry on the AWS backend (moto): a segment whose converted output is gone is converted again."""

from __future__ import annotations

from shared_types import models as m
from shared_types.events import parse_s3_event_body
from shared_types.keys import output_segment_key, segment_key
from shared_types.retry import retry_job


def resent_keys(queue) -> list[str]:
    """Keys of the segment events on ``queue`` (consumed), S3's test event left out."""
    keys = []
    while batch := queue.receive(max_messages=10):
        for message in batch:
            keys += [r.key for r in parse_s3_event_body(message.body)]
            queue.delete(message)
    return keys


def test_retry_drops_the_completion_and_status_of_a_lost_output_and_resends_it(backend):
    backend.jobs.create(m.Job(job_id="j1", mode=m.OutputMode.SBS))
    job = backend.jobs.update("j1", m.JobUpdate(
        status=m.JobStatus.FAILED, total_segments=2,
        error=m.JobError(code="boom", message="reassembly broke", stage="reassembly")))
    for i in range(2):
        backend.input_storage.put_bytes(segment_key("j1", i, 2, job.mode), b"seg")
        backend.output_storage.put_bytes(output_segment_key("j1", i), b"converted")
        backend.completions.put(m.SegmentCompletion(job_id="j1", segment_index=i,
                                                  output_key=output_segment_key("j1", i)))
        backend.segment_status.mark_complete("j1", i)
    backend.output_storage.delete(output_segment_key("j1", 0))  # expired
    resent_keys(backend.video_queue)  # the bucket's own upload events of the setup

    assert retry_job(backend, job).status == m.JobStatus.CHUNKING_COMPLETE

    assert [c.segment_index for c in backend.completions.list("j1")] == [1]
    assert backend.segment_status.get("j1", 0) is None
    assert backend.segment_status.get("j1", 1) is not None
    assert resent_keys(backend.video_queue) == [segment_key("j1", 0, 2, job.mode)]
