import json

import pytest
from shared_types.consumer import ConsumerConfig
from shared_types.errors import JobNotFoundError, ObjectNotFoundError
from shared_types.events import build_s3_event_body, s3_test_event_body
from shared_types.models import JobStatus, OutputMode, SegmentState

from video_worker import testing as h
from video_worker.bootstrap import build_worker
from video_worker.errors import InferenceRejectedError, InferenceUnavailableError
from video_worker.inference import InferenceDeps
from video_worker.settings import VideoWorkerSettings


@pytest.fixture
def deps(backend, inference):
    return InferenceDeps(backend, inference)




def test_status_row_is_pending_before_inference_runs(backend, inference, deps):
    h.make_job(backend)
    seen = []
    inference.during = lambda p: seen.append(backend.segment_status.get(p.job_id, p.segment_index))
    h.convert_all(h.message(h.segment_event(backend, "job-1", 1, 2)), deps)
    assert seen[0].state == SegmentState.PENDING
    assert seen[0].attempts == 1


def test_converts_to_the_canonical_output_key_with_the_jobs_params(backend, inference, deps):
    h.make_job(backend, divergence=3.5, mode=OutputMode.ANAGLYPH)
    results = h.convert_all(
        h.message(h.segment_event(backend, "job-1", 0, 2, OutputMode.ANAGLYPH)), deps)
    payload, output_key, params = inference.calls[0]
    assert output_key == "jobs/job-1/segments/0.mp4"
    assert params.divergence == 3.5
    assert payload.mode == OutputMode.ANAGLYPH
    assert results[0].output_key == output_key
    assert backend.output_storage.exists(output_key)
    # completion is event-driven from the output bucket, never written here
    assert backend.completions.count("job-1") == 0


def test_a_complete_segment_is_acknowledged_without_work(backend, inference, deps):
    h.make_job(backend)
    backend.segment_status.mark_complete("job-1", 0)
    assert h.convert_all(h.message(h.segment_event(backend, "job-1", 0, 2)),
                                    deps) == []
    assert inference.calls == []


def test_each_redelivery_counts_an_attempt(backend, inference, deps):
    h.make_job(backend)
    inference.error = InferenceUnavailableError("endpoint busy")
    body = h.segment_event(backend, "job-1", 0, 2)
    for _ in range(3):
        with pytest.raises(InferenceUnavailableError):
            h.convert_all(h.message(body), deps)
    status = backend.segment_status.get("job-1", 0)
    assert status.attempts == 3
    assert status.state == SegmentState.PENDING
    assert backend.jobs.get("job-1").status == JobStatus.CHUNKING_COMPLETE


def consumer(backend, inference, **config):
    worker = build_worker(VideoWorkerSettings(), backend, inference=inference)
    c = worker.inference_consumers()[0]
    c.config = ConsumerConfig(wait_s=0, visibility_s=30, backoff_base_s=0.01,
                              backoff_max_s=0.01, **config)
    return c


@pytest.mark.parametrize(("error", "code"), [
    (InferenceRejectedError("not a video stream", code="invalid_media"), "invalid_media"),
    (InferenceRejectedError("not a video stream"), "inference_rejected"),
    (ObjectNotFoundError("not a video stream: segment gone"), "inference_failed"),
])
def test_a_permanent_error_fails_the_segment_and_the_loop_fails_the_job_with_its_code(
        backend, inference, error, code):
    h.make_job(backend)
    inference.error = error
    backend.video_queue.send(h.segment_event(backend, "job-1", 1, 2))
    assert consumer(backend, inference).process_once()
    status = backend.segment_status.get("job-1", 1)
    assert status.state == SegmentState.FAILED
    assert "not a video stream" in status.last_error
    job = backend.jobs.get("job-1")
    assert job.status == JobStatus.FAILED
    assert (job.error.stage, job.error.code) == ("inference", code)
    assert "Segment 2 of 2" in job.error.message
    assert len(inference.calls) == 1  # not retried
    stats = backend.video_queue.stats()
    assert stats.visible + stats.in_flight + stats.dead_letters == 0  # acknowledged


def test_the_loop_retries_transient_failures_then_fails_the_job_on_the_last_attempt(
        backend, inference):
    h.make_job(backend)
    loop = consumer(backend, inference, max_attempts=2)
    backend.video_queue.send(h.segment_event(backend, "job-1", 0, 2))
    inference.error = InferenceUnavailableError("503")
    assert loop.process_once()
    stats = backend.video_queue.stats()
    assert stats.visible + stats.in_flight == 1  # kept for redelivery
    assert backend.jobs.get("job-1").status == JobStatus.CHUNKING_COMPLETE
    while not loop.process_once(wait_s=0.05):
        pass  # the backoff (10 ms) passes
    job = backend.jobs.get("job-1")
    assert (job.status, job.error.code) == (JobStatus.FAILED, "retries_exhausted")
    assert "503" in job.error.message
    assert backend.video_queue.stats().dead_letters == 1


def test_a_malformed_message_is_dead_lettered_by_the_loop(backend, inference):
    backend.video_queue.send("{not json")
    assert consumer(backend, inference).process_once()
    assert backend.video_queue.stats().dead_letters == 1


def test_test_events_and_foreign_keys_are_acknowledged_without_work(backend, inference, deps):
    h.make_job(backend)
    assert h.convert_all(h.message(s3_test_event_body("input")), deps) == []
    for key in ("segments/job-1/notes.txt", "input/job-1/source.mp4",
                "segments/job-1/00002_00002_half-sbs.mp4"):
        body = build_s3_event_body("input", key, size=1)
        assert h.convert_all(h.message(body), deps) == []
    assert inference.calls == []


def test_removal_events_are_ignored(backend, inference, deps):
    h.make_job(backend)
    doc = json.loads(h.segment_event(backend, "job-1", 0, 2))
    doc["Records"][0]["eventName"] = "ObjectRemoved:Delete"
    h.convert_all(h.message(json.dumps(doc)), deps)
    assert inference.calls == []


def test_an_unknown_job_is_a_permanent_error(backend, deps):
    with pytest.raises(JobNotFoundError):
        h.convert_all(h.message(h.segment_event(backend, "ghost", 0, 1)), deps)


@pytest.mark.parametrize("status", [JobStatus.FAILED, JobStatus.COMPLETED])
def test_segments_of_a_finished_job_are_skipped(backend, inference, deps, status):
    h.make_job(backend, status=status)
    h.convert_all(h.message(h.segment_event(backend, "job-1", 0, 2)), deps)
    assert inference.calls == []
    assert backend.segment_status.get("job-1", 0) is None


def test_a_message_with_several_records_converts_each(backend, inference, deps):
    h.make_job(backend)
    a = json.loads(h.segment_event(backend, "job-1", 0, 2))
    b = json.loads(h.segment_event(backend, "job-1", 1, 2))
    body = json.dumps({"Records": a["Records"] + b["Records"]})
    assert len(h.convert_all(h.message(body), deps)) == 2
