"""Retry: redo only what is not complete, never strand, never reset fencing."""

import json

import pytest

from shared_types.errors import ConditionFailedError, JobStateError, TransientStoreError
from shared_types.events import parse_s3_event_body
from shared_types.keys import output_segment_key, segment_key, source_key
from shared_types.models import (
    Job,
    JobError,
    JobStatus,
    JobUpdate,
    OutputMode,
    SegmentCompletion,
    SegmentState,
)
from shared_types.retry import retry_job
from shared_types.testing.memory import memory_backend

ERR = JobError(code="boom", message="it broke", stage="inference")


@pytest.fixture
def backend():
    return memory_backend()


def drain(queue):
    return [m.body for m in queue.receive(max_messages=100)]


def failed_job(backend, job_id="j1", **changes):
    backend.jobs.create(Job(job_id=job_id, mode=OutputMode.SBS))
    return backend.jobs.update(job_id, JobUpdate(status=JobStatus.FAILED, error=ERR, **changes))


def complete(backend, job_id, index):
    backend.completions.put(SegmentCompletion(job_id=job_id, segment_index=index,
                                              output_key=output_segment_key(job_id, index)))
    backend.output_storage.put_bytes(output_segment_key(job_id, index), b"converted")
    backend.segment_status.mark_complete(job_id, index)


def test_only_a_failed_job_can_be_retried(backend):
    backend.jobs.create(Job(job_id="j1", mode=OutputMode.SBS, status=JobStatus.REASSEMBLING))
    with pytest.raises(JobStateError):
        retry_job(backend, backend.jobs.get("j1"))


@pytest.mark.parametrize("code", ["invalid_media", "model_unavailable", "invalid_request"])
def test_a_job_that_failed_for_its_input_is_not_retried_and_nothing_changes(backend, code):
    backend.jobs.create(Job(job_id="j1", mode=OutputMode.SBS))
    backend.input_storage.put_bytes(source_key("j1"), b"not a video")
    job = backend.jobs.update("j1", JobUpdate(status=JobStatus.FAILED, error=JobError(
        code=code, message="The file is not a video.", stage="chunking")))
    with pytest.raises(JobStateError, match="would fail the same way"):
        retry_job(backend, job)
    assert backend.jobs.get("j1") == job
    assert drain(backend.chunking_queue) == []


def test_retry_before_chunking_finished_resends_the_source_event(backend):
    job = failed_job(backend)
    backend.input_storage.put_bytes(source_key("j1"), b"video")
    new = retry_job(backend, job)
    assert (new.status, new.error, new.epoch) == (JobStatus.CREATED, None, 1)
    [body] = drain(backend.chunking_queue)
    [record] = parse_s3_event_body(body)
    assert (record.bucket, record.key, record.size) == ("input", source_key("j1"), 5)


def test_retry_without_a_source_waits_for_a_new_upload(backend):
    assert retry_job(backend, failed_job(backend)).status == JobStatus.CREATED
    assert drain(backend.chunking_queue) == []


def test_retry_after_chunking_resends_only_incomplete_segments(backend):
    job = failed_job(backend, total_segments=3)
    for i in range(3):
        backend.input_storage.put_bytes(segment_key("j1", i, 3, job.mode), b"seg")
    complete(backend, "j1", 0)
    backend.segment_status.mark_failed("j1", 2, "gpu fell over")

    new = retry_job(backend, job)

    assert new.status == JobStatus.CHUNKING_COMPLETE
    assert new.error is None
    keys = [parse_s3_event_body(b)[0].key for b in drain(backend.video_queue)]
    assert keys == [segment_key("j1", i, 3, job.mode) for i in (1, 2)]
    assert backend.segment_status.get("j1", 2).state == SegmentState.PENDING
    assert backend.segment_status.get("j1", 0).state == SegmentState.COMPLETE
    assert drain(backend.chunking_queue) == []


def test_retry_reconverts_a_complete_segment_whose_output_is_gone(backend):
    job = failed_job(backend, total_segments=3)
    for i in range(3):
        backend.input_storage.put_bytes(segment_key("j1", i, 3, job.mode), b"seg")
        complete(backend, "j1", i)
    backend.output_storage.delete(output_segment_key("j1", 1))  # expired meanwhile

    new = retry_job(backend, job)

    assert new.status == JobStatus.CHUNKING_COMPLETE
    keys = [parse_s3_event_body(b)[0].key for b in drain(backend.video_queue)]
    assert keys == [segment_key("j1", 1, 3, job.mode)]
    assert [c.segment_index for c in backend.completions.list("j1")] == [0, 2]
    assert backend.segment_status.get("j1", 1) is None  # the worker converts it again
    assert drain(backend.reassembly_queue) == []


def test_retry_with_a_lost_output_and_a_lost_segment_source_rechunks(backend):
    job = failed_job(backend, total_segments=1)
    backend.input_storage.put_bytes(source_key("j1"), b"video")
    complete(backend, "j1", 0)
    backend.output_storage.delete(output_segment_key("j1", 0))
    assert retry_job(backend, job).status == JobStatus.CREATED
    assert len(drain(backend.chunking_queue)) == 1
    assert backend.completions.list("j1") == []


def test_retry_with_a_missing_segment_object_rechunks(backend):
    job = failed_job(backend, total_segments=2)
    backend.input_storage.put_bytes(source_key("j1"), b"video")
    backend.input_storage.put_bytes(segment_key("j1", 0, 2, job.mode), b"seg")
    assert retry_job(backend, job).status == JobStatus.CREATED
    assert len(drain(backend.chunking_queue)) == 1
    assert drain(backend.video_queue) == []


def test_retry_when_every_segment_is_done_triggers_reassembly_again(backend):
    job = failed_job(backend, total_segments=1)
    complete(backend, "j1", 0)
    backend.reassembly.trigger("j1", 0)  # the first run's trigger
    retry_job(backend, job)
    [body] = drain(backend.reassembly_queue)
    assert json.loads(body) == {"job_id": "j1"}


def test_after_a_retry_the_last_completion_triggers_again_and_the_lease_row_stays(backend):
    from shared_types.reassembly_trigger import trigger_reassembly_if_ready

    job = failed_job(backend, total_segments=2)
    for i in range(2):
        backend.input_storage.put_bytes(segment_key("j1", i, 2, job.mode), b"seg")
    backend.reassembly.trigger("j1", 0)
    stale = backend.reassembly.take_lease("j1", "before-retry", 0.0)
    retry_job(backend, job)
    complete(backend, "j1", 0)
    complete(backend, "j1", 1)
    assert trigger_reassembly_if_ready(backend, "j1") is True  # epoch 1 fires once
    assert trigger_reassembly_if_ready(backend, "j1") is False
    fresh = backend.reassembly.take_lease("j1", "after-retry", 30)
    assert fresh.token > stale.token
    with pytest.raises(ConditionFailedError):
        backend.reassembly.complete(stale)


def test_retry_loses_to_a_concurrent_status_change(backend):
    job = failed_job(backend)
    backend.jobs.update("j1", JobUpdate(status=JobStatus.CREATED))
    with pytest.raises(ConditionFailedError):
        retry_job(backend, job)


def test_a_retry_whose_send_fails_leaves_the_job_open_for_the_sweep(backend):
    job = failed_job(backend, total_segments=1)
    backend.input_storage.put_bytes(segment_key("j1", 0, 1, job.mode), b"seg")

    def unreachable(*_a, **_k):
        raise TransientStoreError("queue unreachable")

    backend.video_queue.send = unreachable
    with pytest.raises(TransientStoreError):
        retry_job(backend, job)
    after = backend.jobs.get("j1")
    # not failed, not stranded: a non-terminal status with a fresh liveness proof,
    # which the janitor re-sends once stale (video-worker's test_janitor)
    assert after.status == JobStatus.CHUNKING_COMPLETE
    assert after.updated_at >= job.updated_at
