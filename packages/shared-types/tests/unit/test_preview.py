"""Preview before converting all: clip jobs, the chunking message, confirming."""

import json

import pytest

from shared_types.errors import ConditionFailedError, JobStateError, MalformedMessageError
from shared_types.events import build_s3_event_body, parse_s3_event_body
from shared_types.keys import source_key
from shared_types.models import (
    ClipMessage,
    ConversionParams,
    Job,
    JobStatus,
    JobUpdate,
    OutputMode,
    S3EventRecord,
)
from shared_types.preview import (
    clip_range,
    convert_whole,
    parse_chunking_body,
    resend_chunking,
    start_clip,
)
from shared_types.retry import retry_job
from shared_types.testing.memory import memory_backend

PARAMS = ConversionParams(divergence=4.0, convergence=0.2)


@pytest.fixture
def backend():
    return memory_backend()


def held(backend, *, duration=95.0, uploaded=True):
    job = Job(job_id="p", mode=OutputMode.HALF_SBS, title="Holiday",
              status=JobStatus.AWAITING_CONFIRMATION, source_duration_s=duration,
              thumbnails=12 if duration else None)
    backend.jobs.create(job)
    if uploaded:
        backend.input_storage.put_bytes(source_key("p"), b"video")
    return job


def drain(queue):
    return [m.body for m in queue.receive(max_messages=100)]


@pytest.mark.parametrize(("duration", "start", "expected"), [
    (95.0, 30.0, (30.0, 10.0)),
    (95.0, 90.0, (85.0, 10.0)),  # near the end: moved earlier, still 10 s
    (95.0, -3.0, (0.0, 10.0)),
    (4.0, 2.0, (0.0, 4.0)),  # a source shorter than a clip: all of it
])
def test_clip_range_lies_inside_the_source(duration, start, expected):
    assert clip_range(duration, start) == expected


def test_a_clip_is_a_job_of_its_own_sent_to_chunking(backend):
    parent = held(backend)
    clip = start_clip(backend, parent, 61.0, PARAMS)
    stored = backend.jobs.get(clip.job_id)
    assert (stored.parent_job_id, stored.clip_start_s, stored.clip_duration_s, stored.params,
            stored.mode, stored.status) == ("p", 61.0, 10.0, PARAMS, OutputMode.HALF_SBS,
                                            JobStatus.CREATED)
    assert stored.title == "Holiday (preview at 1:01)"
    assert backend.jobs.get("p").preview_job_id == clip.job_id
    [body] = drain(backend.chunking_queue)
    assert parse_chunking_body(body) == [ClipMessage(clip_job_id=clip.job_id)]


def test_a_clip_needs_a_held_job_whose_video_was_read(backend):
    with pytest.raises(JobStateError, match="still being read"):
        start_clip(backend, held(backend, duration=None), 0.0, PARAMS)
    converting = backend.jobs.update("p", JobUpdate(status=JobStatus.CREATED))
    with pytest.raises(JobStateError):
        start_clip(backend, converting, 0.0, PARAMS)
    assert drain(backend.chunking_queue) == []


def test_the_chunking_queue_still_carries_s3_events_and_refuses_garbage():
    body = build_s3_event_body("input", source_key("p"), size=5)
    assert parse_chunking_body(body) == parse_s3_event_body(body)
    assert isinstance(parse_chunking_body(body)[0], S3EventRecord)
    with pytest.raises(MalformedMessageError):
        parse_chunking_body(json.dumps({"clip_job_id": 5, "extra": 1}))
    with pytest.raises(MalformedMessageError):
        parse_chunking_body("not json")


def test_convert_whole_moves_the_held_job_into_the_pipeline_with_the_chosen_params(backend):
    parent = held(backend)
    job = convert_whole(backend, parent, PARAMS)
    assert (job.status, job.params) == (JobStatus.CREATED, PARAMS)
    [body] = drain(backend.chunking_queue)
    assert parse_chunking_body(body)[0].key == source_key("p")
    with pytest.raises(JobStateError):  # pressed twice
        convert_whole(backend, job, PARAMS)
    with pytest.raises(ConditionFailedError):  # a stale page's second press
        convert_whole(backend, parent, PARAMS)
    assert drain(backend.chunking_queue) == []


def test_convert_whole_before_the_upload_is_refused(backend):
    with pytest.raises(JobStateError, match="Upload"):
        convert_whole(backend, held(backend, uploaded=False), PARAMS)
    assert backend.jobs.get("p").status == JobStatus.AWAITING_CONFIRMATION


def test_a_failed_clip_is_retried_as_a_clip_and_not_once_the_parent_source_is_gone(backend):
    clip = start_clip(backend, held(backend), 0.0, PARAMS)
    drain(backend.chunking_queue)
    backend.jobs.update(clip.job_id, JobUpdate(status=JobStatus.FAILED))
    retry_job(backend, backend.jobs.get(clip.job_id))
    assert [json.loads(b) for b in drain(backend.chunking_queue)] == [
        {"clip_job_id": clip.job_id}]
    backend.input_storage.delete(source_key("p"))
    assert resend_chunking(backend, backend.jobs.get(clip.job_id)) is False
    assert drain(backend.chunking_queue) == []
