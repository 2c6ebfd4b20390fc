import json

import pytest
from shared_types.errors import ConditionFailedError
from shared_types.events import parse_s3_event_body
from shared_types.keys import final_key, output_segment_key, segment_key, source_key
from shared_types.models import (
    JobError,
    JobStatus,
    JobUpdate,
    OutputMode,
    SegmentCompletion,
    SegmentState,
)

from web_ui.errors import JobStateError
from web_ui.lifecycle import delete_job, retry_job

from .conftest import add_job

ERR = JobError(code="boom", message="it broke", stage="inference")


def drain(queue):
    return [m.body for m in queue.receive(max_messages=100)]


def failed_job(backend, **changes):
    return add_job(backend, status=JobStatus.FAILED, error=ERR, mode=OutputMode.SBS, **changes)


def test_only_a_failed_job_can_be_retried(backend):
    job = add_job(backend, status=JobStatus.CHUNKING_COMPLETE, total_segments=1)
    with pytest.raises(JobStateError):
        retry_job(backend, job)


def test_retry_before_chunking_finished_resends_the_source_event(backend):
    job = failed_job(backend)
    backend.input_storage.put_bytes(source_key(job.job_id), b"video")
    new = retry_job(backend, job)
    assert new.status == JobStatus.CREATED and new.error is None
    [body] = drain(backend.chunking_queue)
    [record] = parse_s3_event_body(body)
    assert (record.bucket, record.key, record.size) == ("input", source_key(job.job_id), 5)


def test_retry_without_a_source_waits_for_a_new_upload(backend):
    job = failed_job(backend)
    assert retry_job(backend, job).status == JobStatus.CREATED
    assert drain(backend.chunking_queue) == []


def test_retry_after_chunking_resends_only_incomplete_segments(backend):
    job = failed_job(backend, total_segments=3)
    for i in range(3):
        backend.input_storage.put_bytes(segment_key(job.job_id, i, 3, job.mode), b"seg")
    backend.completions.put(SegmentCompletion(job_id=job.job_id, segment_index=0,
                                              output_key=output_segment_key(job.job_id, 0)))
    backend.segment_status.mark_complete(job.job_id, 0)
    backend.segment_status.mark_failed(job.job_id, 2, "gpu fell over")
    backend.reassembly.trigger(job.job_id)

    new = retry_job(backend, job)

    assert new.status == JobStatus.CHUNKING_COMPLETE and new.error is None
    keys = [parse_s3_event_body(b)[0].key for b in drain(backend.video_queue)]
    assert keys == [segment_key(job.job_id, i, 3, job.mode) for i in (1, 2)]
    assert backend.segment_status.get(job.job_id, 2).state == SegmentState.PENDING
    assert backend.segment_status.get(job.job_id, 0).state == SegmentState.COMPLETE
    assert not backend.reassembly.is_triggered(job.job_id)
    assert drain(backend.chunking_queue) == []


def test_retry_with_a_missing_segment_object_rechunks(backend):
    job = failed_job(backend, total_segments=2)
    backend.input_storage.put_bytes(source_key(job.job_id), b"video")
    backend.input_storage.put_bytes(segment_key(job.job_id, 0, 2, job.mode), b"seg")
    assert retry_job(backend, job).status == JobStatus.CREATED
    assert len(drain(backend.chunking_queue)) == 1
    assert drain(backend.video_queue) == []


def test_retry_when_every_segment_is_done_triggers_reassembly_again(backend):
    job = failed_job(backend, total_segments=1)
    backend.completions.put(SegmentCompletion(job_id=job.job_id, segment_index=0,
                                              output_key=output_segment_key(job.job_id, 0)))
    retry_job(backend, job)
    [body] = drain(backend.reassembly_queue)
    assert json.loads(body) == {"job_id": job.job_id}
    assert backend.reassembly.is_triggered(job.job_id)


def test_retry_loses_to_a_concurrent_status_change(backend):
    job = failed_job(backend)
    backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.CREATED))
    with pytest.raises(ConditionFailedError):
        retry_job(backend, job)


def test_delete_removes_objects_and_records(backend):
    job = add_job(backend, status=JobStatus.COMPLETED, total_segments=1)
    other = add_job(backend)
    backend.input_storage.put_bytes(source_key(job.job_id), b"v")
    backend.input_storage.put_bytes(segment_key(job.job_id, 0, 1, job.mode), b"s")
    backend.input_storage.put_bytes(source_key(other.job_id), b"keep")
    backend.output_storage.put_bytes(output_segment_key(job.job_id, 0), b"o")
    backend.output_storage.put_bytes(final_key(job.job_id), b"f")
    backend.completions.put(SegmentCompletion(job_id=job.job_id, segment_index=0,
                                              output_key="x"))
    backend.segment_status.mark_complete(job.job_id, 0)
    backend.reassembly.trigger(job.job_id)

    delete_job(backend, job.job_id)

    assert backend.jobs.get(job.job_id) is None
    assert list(backend.input_storage.list(f"input/{job.job_id}/")) == []
    assert list(backend.input_storage.list(f"segments/{job.job_id}/")) == []
    assert list(backend.output_storage.list(f"jobs/{job.job_id}/")) == []
    assert backend.completions.count(job.job_id) == 0
    assert backend.segment_status.list(job.job_id) == []
    assert not backend.reassembly.is_triggered(job.job_id)
    assert backend.input_storage.exists(source_key(other.job_id))
