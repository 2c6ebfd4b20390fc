import json
import time

from shared_types.events import parse_s3_event_body
from shared_types.keys import segment_key, source_key
from shared_types.models import JobStatus, JobUpdate, OutputMode

from video_worker import testing as h
from video_worker.janitor import complete_segment_set, run_janitor_pass
from video_worker.segment_output import handle_segment_output_message

STUCK = 600.0


def later(seconds=STUCK + 1):
    return time.time() + seconds


def janitor(backend, now=None):
    return run_janitor_pass(backend, stuck_after_s=STUCK, max_segment_attempts=3, now=now)


def upload_segments(backend, job_id, indexes, total, mode=OutputMode.HALF_SBS):
    for i in indexes:
        backend.input_storage.put_bytes(segment_key(job_id, i, total, mode), b"seg")


def drain(queue):
    out = []
    while msgs := queue.receive(max_messages=10, visibility_s=60):
        out += [m.body for m in msgs]
    return out


def complete(backend, job_id, index):
    handle_segment_output_message(h.message(h.output_event(backend, job_id, index)), backend)


def test_a_recent_chunking_job_is_left_alone(backend):
    h.make_job(backend, status=JobStatus.CHUNKING_IN_PROGRESS, total=None)
    upload_segments(backend, "job-1", [0, 1], 2)
    report = janitor(backend, now=time.time())
    assert report.chunking_recovered == [] and report.chunking_resent == []
    assert backend.jobs.get("job-1").status == JobStatus.CHUNKING_IN_PROGRESS


def test_stuck_chunking_with_every_segment_uploaded_is_completed_and_triggered(backend):
    # media-worker crashed after uploading every segment, before chunking_complete,
    # and every segment has already been converted.
    h.make_job(backend, status=JobStatus.CHUNKING_IN_PROGRESS, total=None)
    upload_segments(backend, "job-1", [0, 1, 2], 3)
    for i in range(3):
        complete(backend, "job-1", i)
    assert drain(backend.reassembly_queue) == []  # stuck
    report = janitor(backend, now=later())
    assert report.chunking_recovered == ["job-1"]
    assert report.reassembly_triggered == ["job-1"]
    job = backend.jobs.get("job-1")
    assert (job.status, job.total_segments) == (JobStatus.CHUNKING_COMPLETE, 3)
    assert [json.loads(b)["job_id"] for b in drain(backend.reassembly_queue)] == ["job-1"]
    assert janitor(backend, now=later()).reassembly_triggered == []


def test_stuck_chunking_with_a_partial_segment_set_re_sends_the_source_event(backend):
    h.make_job(backend, status=JobStatus.CHUNKING_IN_PROGRESS, total=None)
    backend.input_storage.put_bytes(source_key("job-1"), b"source")
    upload_segments(backend, "job-1", [0, 2], 3)
    report = janitor(backend, now=later())
    assert report.chunking_resent == ["job-1"]
    [body] = drain(backend.chunking_queue)
    [record] = parse_s3_event_body(body)
    assert (record.bucket, record.key, record.size) == ("input", "input/job-1/source.mp4", 6)
    assert backend.jobs.get("job-1").status == JobStatus.CHUNKING_IN_PROGRESS
    # the job was touched: the next pass waits stuck_after_s again before re-sending
    assert janitor(backend, now=time.time() + 1).chunking_resent == []


def test_stuck_chunking_whose_source_is_gone_fails_the_job(backend):
    h.make_job(backend, status=JobStatus.CHUNKING_IN_PROGRESS, total=None)
    report = janitor(backend, now=later())
    assert report.failed == ["job-1"]
    job = backend.jobs.get("job-1")
    assert job.status == JobStatus.FAILED and job.error.stage == "chunking"


def test_mixed_chunking_runs_are_not_a_complete_set(backend):
    upload_segments(backend, "job-1", [0, 1], 2)
    assert complete_segment_set(backend, "job-1") == 2
    upload_segments(backend, "job-1", [0, 1, 2], 3)
    assert complete_segment_set(backend, "job-1") is None
    assert complete_segment_set(backend, "job-2") is None


def test_stuck_job_race_reproduced_and_repaired_by_the_janitor(backend):
    # Every segment completes while the job is still chunking_in_progress ...
    h.make_job(backend, status=JobStatus.CHUNKING_IN_PROGRESS, total=None)
    complete(backend, "job-1", 0)
    complete(backend, "job-1", 1)
    # ... then chunking_complete is written, and the re-check after it is lost (crash).
    backend.jobs.update("job-1", JobUpdate(status=JobStatus.CHUNKING_COMPLETE, total_segments=2))
    assert drain(backend.reassembly_queue) == []
    report = janitor(backend, now=time.time())  # no need to wait: the repair is safe
    assert report.reassembly_triggered == ["job-1"]
    assert [json.loads(b)["job_id"] for b in drain(backend.reassembly_queue)] == ["job-1"]
    assert janitor(backend).reassembly_triggered == []


def test_a_failed_segment_fails_a_stuck_job(backend):
    h.make_job(backend, total=2)
    complete(backend, "job-1", 0)
    backend.segment_status.mark_pending("job-1", 1)
    backend.segment_status.mark_failed("job-1", 1, "model crashed")
    assert janitor(backend, now=time.time()).failed == []  # not stuck yet
    report = janitor(backend, now=later())
    assert report.failed == ["job-1"]
    job = backend.jobs.get("job-1")
    assert job.status == JobStatus.FAILED and "model crashed" in job.error.message


def test_a_segment_that_exhausted_its_attempts_fails_the_job(backend):
    h.make_job(backend, total=2)
    for _ in range(3):
        backend.segment_status.mark_pending("job-1", 0)
    backend.segment_status.mark_pending("job-1", 1)  # one attempt: still in the running
    report = janitor(backend, now=later())
    assert report.failed == ["job-1"]
    assert "Segment 1 of 2" in backend.jobs.get("job-1").error.message


def test_a_segment_still_being_retried_does_not_fail_the_job(backend):
    h.make_job(backend, total=2)
    backend.segment_status.mark_pending("job-1", 0)
    backend.segment_status.mark_pending("job-1", 0)
    assert janitor(backend, now=later()).failed == []
    assert backend.jobs.get("job-1").status == JobStatus.CHUNKING_COMPLETE
