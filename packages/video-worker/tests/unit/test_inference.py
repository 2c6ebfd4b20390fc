import json
import time

import pytest
from shared_types.consumer import Consumer, ConsumerConfig
from shared_types.errors import JobNotFoundError
from shared_types.events import build_s3_event_body, s3_test_event_body
from shared_types.models import JobStatus, OutputMode, SegmentState

from video_worker import testing as h
from video_worker.errors import InferenceRejectedError, InferenceUnavailableError
from video_worker.inference import InferenceDeps, handle_inference_message


@pytest.fixture
def deps(backend, inference):
    return InferenceDeps(backend, inference)




def test_status_row_is_pending_before_inference_runs(backend, inference, deps):
    h.make_job(backend)
    seen = []
    inference.during = lambda p: seen.append(backend.segment_status.get(p.job_id, p.segment_index))
    handle_inference_message(h.message(h.segment_event(backend, "job-1", 1, 2)), deps)
    assert seen[0].state == SegmentState.PENDING and seen[0].attempts == 1


def test_converts_to_the_canonical_output_key_with_the_jobs_params(backend, inference, deps):
    h.make_job(backend, divergence=3.5, mode=OutputMode.ANAGLYPH)
    results = handle_inference_message(
        h.message(h.segment_event(backend, "job-1", 0, 2, OutputMode.ANAGLYPH)), deps)
    payload, output_key, params = inference.calls[0]
    assert output_key == "jobs/job-1/segments/0.mp4"
    assert params.divergence == 3.5 and payload.mode == OutputMode.ANAGLYPH
    assert results[0].output_key == output_key
    assert backend.output_storage.exists(output_key)
    # completion is event-driven from the output bucket, never written here
    assert backend.completions.count("job-1") == 0


def test_a_complete_segment_is_acknowledged_without_work(backend, inference, deps):
    h.make_job(backend)
    backend.segment_status.mark_complete("job-1", 0)
    assert handle_inference_message(h.message(h.segment_event(backend, "job-1", 0, 2)),
                                    deps) == []
    assert inference.calls == []


def test_each_redelivery_counts_an_attempt(backend, inference, deps):
    h.make_job(backend)
    inference.error = InferenceUnavailableError("endpoint busy")
    body = h.segment_event(backend, "job-1", 0, 2)
    for _ in range(3):
        with pytest.raises(InferenceUnavailableError):
            handle_inference_message(h.message(body), deps)
    status = backend.segment_status.get("job-1", 0)
    assert status.attempts == 3 and status.state == SegmentState.PENDING
    assert backend.jobs.get("job-1").status == JobStatus.CHUNKING_COMPLETE


def test_a_permanent_error_fails_the_segment_and_the_job(backend, inference, deps):
    h.make_job(backend)
    inference.error = InferenceRejectedError("not a video stream")
    with pytest.raises(InferenceRejectedError):
        handle_inference_message(h.message(h.segment_event(backend, "job-1", 1, 2)), deps)
    status = backend.segment_status.get("job-1", 1)
    assert status.state == SegmentState.FAILED and "not a video stream" in status.last_error
    job = backend.jobs.get("job-1")
    assert job.status == JobStatus.FAILED
    assert job.error.stage == "inference" and "Segment 2 of 2" in job.error.message


def test_the_loop_acks_permanent_and_retries_transient_failures(backend, inference):
    h.make_job(backend)
    deps = InferenceDeps(backend, inference)
    consumer = Consumer(backend.video_queue, lambda m: handle_inference_message(m, deps),
                        ConsumerConfig(wait_s=0, visibility_s=30, backoff_base_s=0.01,
                                       backoff_max_s=0.01))
    backend.video_queue.send(h.segment_event(backend, "job-1", 0, 2))
    inference.error = InferenceUnavailableError("503")
    consumer.process(backend.video_queue.receive(visibility_s=30)[0])
    stats = backend.video_queue.stats()
    assert stats.visible + stats.in_flight == 1  # kept for redelivery
    inference.error = InferenceRejectedError("bad input")
    time.sleep(0.02)
    consumer.process(backend.video_queue.receive(visibility_s=30)[0])
    stats = backend.video_queue.stats()
    assert stats.visible + stats.in_flight == 0 and stats.dead_letters == 0


def test_a_malformed_message_is_dead_lettered_by_the_loop(backend, deps):
    consumer = Consumer(backend.video_queue, lambda m: handle_inference_message(m, deps))
    backend.video_queue.send("{not json")
    consumer.process(backend.video_queue.receive()[0])
    assert backend.video_queue.stats().dead_letters == 1


def test_test_events_and_foreign_keys_are_acknowledged_without_work(backend, inference, deps):
    h.make_job(backend)
    assert handle_inference_message(h.message(s3_test_event_body("input")), deps) == []
    for key in ("segments/job-1/notes.txt", "input/job-1/source.mp4",
                "segments/job-1/00002_00002_half-sbs.mp4"):
        body = build_s3_event_body("input", key, size=1)
        assert handle_inference_message(h.message(body), deps) == []
    assert inference.calls == []


def test_removal_events_are_ignored(backend, inference, deps):
    h.make_job(backend)
    doc = json.loads(h.segment_event(backend, "job-1", 0, 2))
    doc["Records"][0]["eventName"] = "ObjectRemoved:Delete"
    handle_inference_message(h.message(json.dumps(doc)), deps)
    assert inference.calls == []


def test_an_unknown_job_is_a_permanent_error(backend, deps):
    with pytest.raises(JobNotFoundError):
        handle_inference_message(h.message(h.segment_event(backend, "ghost", 0, 1)), deps)


@pytest.mark.parametrize("status", [JobStatus.FAILED, JobStatus.COMPLETED])
def test_segments_of_a_finished_job_are_skipped(backend, inference, deps, status):
    h.make_job(backend, status=status)
    handle_inference_message(h.message(h.segment_event(backend, "job-1", 0, 2)), deps)
    assert inference.calls == []
    assert backend.segment_status.get("job-1", 0) is None


def test_a_message_with_several_records_converts_each(backend, inference, deps):
    h.make_job(backend)
    a = json.loads(h.segment_event(backend, "job-1", 0, 2))
    b = json.loads(h.segment_event(backend, "job-1", 1, 2))
    body = json.dumps({"Records": a["Records"] + b["Records"]})
    assert len(handle_inference_message(h.message(body), deps)) == 2
