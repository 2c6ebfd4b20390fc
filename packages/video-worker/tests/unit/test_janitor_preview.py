"""The janitor and jobs held for a preview: the person owns a held job once its
thumbnail strip exists; a clip job is swept like any job, re-sent as a clip."""

import json
import time

from shared_types.events import parse_s3_event_body
from shared_types.keys import source_key
from shared_types.models import Job, JobStatus, JobUpdate, OutputMode

from video_worker.janitor import run_janitor_pass

STUCK = 600.0
HOLD = 7 * 86400.0


def janitor(backend, at):
    return run_janitor_pass(backend, stuck_after_s=STUCK, max_segment_attempts=3,
                            upload_timeout_s=STUCK * 2, hold_timeout_s=HOLD, now=at)


def held(backend, job_id="held", **fields):
    job = Job(job_id=job_id, mode=OutputMode.SBS, status=JobStatus.AWAITING_CONFIRMATION,
              **fields)
    backend.jobs.create(job)
    return job


def drain(queue):
    out = []
    while msgs := queue.receive(max_messages=10, visibility_s=60):
        out += [m.body for m in msgs]
    return out


def test_a_held_job_with_its_strip_is_never_re_sent_to_chunking(backend):
    # The rule for `created` (source present + stale -> chunk) must not convert a held job.
    held(backend, thumbnails=12, source_duration_s=60.0)
    backend.input_storage.put_bytes(source_key("held"), b"video")
    report = janitor(backend, time.time() + HOLD - 60)
    assert report.model_dump() == type(report)().model_dump()
    assert drain(backend.chunking_queue) == []
    assert backend.jobs.get("held").status == JobStatus.AWAITING_CONFIRMATION


def test_a_held_job_whose_strip_event_was_lost_gets_its_source_event_again(backend):
    held(backend)
    backend.input_storage.put_bytes(source_key("held"), b"video")
    assert janitor(backend, time.time() + 1).chunking_resent == []  # the strip may be coming
    assert janitor(backend, time.time() + STUCK + 1).chunking_resent == ["held"]
    [body] = drain(backend.chunking_queue)
    assert parse_s3_event_body(body)[0].key == source_key("held")
    job = backend.jobs.get("held")
    assert (job.status, job.resends) == (JobStatus.AWAITING_CONFIRMATION, 1)


def test_a_held_job_never_uploaded_fails_after_the_upload_timeout(backend):
    held(backend)
    assert janitor(backend, time.time() + STUCK + 1).failed == []
    assert janitor(backend, time.time() + STUCK * 3).failed == ["held"]
    assert backend.jobs.get("held").error.code == "upload_missing"


def test_a_held_job_nobody_confirms_expires_with_a_reason(backend):
    held(backend, thumbnails=12, source_duration_s=60.0)
    backend.input_storage.put_bytes(source_key("held"), b"video")
    assert janitor(backend, time.time() + HOLD + 1).failed == ["held"]
    job = backend.jobs.get("held")
    assert (job.status, job.error.code, job.error.stage) == (
        JobStatus.FAILED, "preview_expired", "preview")
    assert "7 days" in job.error.message and "Retry" in job.error.message
    assert drain(backend.chunking_queue) == []


def test_a_preview_refreshes_the_hold(backend):
    held(backend, thumbnails=12, source_duration_s=60.0)
    backend.jobs.update("held", JobUpdate(preview_job_id="clip"))  # what start_clip does
    assert janitor(backend, backend.jobs.get("held").updated_at + HOLD - 1).failed == []


def test_a_clip_whose_message_was_lost_is_re_sent_as_a_clip(backend):
    held(backend, thumbnails=12, source_duration_s=60.0)
    backend.input_storage.put_bytes(source_key("held"), b"video")
    backend.jobs.create(Job(job_id="clip", mode=OutputMode.SBS, parent_job_id="held",
                            clip_start_s=5.0, clip_duration_s=10.0))
    assert janitor(backend, time.time() + STUCK + 1).chunking_resent == ["clip"]
    assert [json.loads(b) for b in drain(backend.chunking_queue)] == [{"clip_job_id": "clip"}]


def test_a_stuck_clip_whose_parent_source_is_gone_fails(backend):
    backend.jobs.create(Job(job_id="clip", mode=OutputMode.SBS, parent_job_id="held",
                            status=JobStatus.CHUNKING_IN_PROGRESS, clip_start_s=5.0,
                            clip_duration_s=10.0))
    assert janitor(backend, time.time() + STUCK + 1).failed == ["clip"]
    assert backend.jobs.get("clip").error.code == "source_missing"
