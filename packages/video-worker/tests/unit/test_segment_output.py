import json
import threading

import pytest
from shared_types.events import build_s3_event_body
from shared_types.models import JobStatus, JobUpdate, SegmentState
from shared_types.reassembly_trigger import trigger_reassembly_if_ready

from video_worker import testing as h


def complete(backend, job_id, index):
    return h.record_outputs(h.message(h.output_event(backend, job_id, index)),
                                         backend)


def reassembly_messages(backend):
    out = []
    while msgs := backend.reassembly_queue.receive(max_messages=10, visibility_s=60):
        out += [json.loads(m.body)["job_id"] for m in msgs]
    return out


def test_a_completion_is_recorded_and_the_segment_marked_complete(backend):
    h.make_job(backend, total=3)
    assert complete(backend, "job-1", 1) == 1
    [row] = backend.completions.list("job-1")
    assert (row.segment_index, row.output_key, row.total_segments) == (
        1, "jobs/job-1/segments/1.mp4", 3)
    assert backend.segment_status.get("job-1", 1).state == SegmentState.COMPLETE
    assert reassembly_messages(backend) == []


def test_the_last_completion_triggers_reassembly_once(backend):
    h.make_job(backend, total=2)
    complete(backend, "job-1", 0)
    complete(backend, "job-1", 1)
    complete(backend, "job-1", 1)  # duplicate S3 event
    assert backend.completions.count("job-1") == 2
    assert reassembly_messages(backend) == ["job-1"]


def test_a_later_success_clears_a_failed_segment(backend):
    h.make_job(backend, total=2)
    backend.segment_status.mark_failed("job-1", 0, "endpoint crashed")
    complete(backend, "job-1", 0)
    status = backend.segment_status.get("job-1", 0)
    assert status.state == SegmentState.COMPLETE
    assert status.last_error is None


@pytest.mark.parametrize("key", ["jobs/job-1/final.mp4", "jobs/job-1/segments/01.mp4",
                                 "jobs/job-1/segments/0.mp4.tmp", "other/job-1/0.mp4"])
def test_non_segment_outputs_are_ignored(backend, key):
    h.make_job(backend, total=1)
    body = build_s3_event_body(backend.output_storage.bucket, key, size=1)
    assert h.record_outputs(h.message(body), backend) == 0
    assert backend.completions.count("job-1") == 0


def test_outputs_of_unknown_jobs_or_beyond_the_segment_count_are_ignored(backend):
    h.make_job(backend, total=2)
    assert complete(backend, "ghost", 0) == 0
    assert complete(backend, "job-1", 2) == 0
    assert backend.completions.count("job-1") == 0


def test_an_output_written_after_its_job_was_deleted_is_removed(backend):
    # a worker that converted on while the job was deleted: nothing may stay behind
    assert complete(backend, "deleted-job", 0) == 0
    assert list(backend.output_storage.list("jobs/deleted-job/")) == []


def test_last_two_completions_racing_in_two_threads_send_one_reassembly_message(backend):
    for round_ in range(30):
        job_id = f"race-{round_}"
        h.make_job(backend, job_id, total=3)
        complete(backend, job_id, 0)
        barrier = threading.Barrier(2)
        errors = []

        def finish(index, job_id=job_id, barrier=barrier, errors=errors):
            barrier.wait()
            try:
                complete(backend, job_id, index)
            except Exception as exc:  # pragma: no cover - surfaced below
                errors.append(exc)

        threads = [threading.Thread(target=finish, args=(i,)) for i in (1, 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert reassembly_messages(backend) == [job_id], f"round {round_}"


def test_stuck_job_race_is_closed_by_the_trigger_after_chunking_complete(backend):
    # The last segment finishes while the job is still chunking_in_progress ...
    h.make_job(backend, status=JobStatus.CHUNKING_IN_PROGRESS, total=None)
    complete(backend, "job-1", 0)
    complete(backend, "job-1", 1)
    assert reassembly_messages(backend) == []  # nothing can trigger yet
    # ... then media-worker writes total_segments + chunking_complete.
    backend.jobs.update("job-1", JobUpdate(status=JobStatus.CHUNKING_COMPLETE, total_segments=2),
                        expected_status=[JobStatus.CHUNKING_IN_PROGRESS])
    assert reassembly_messages(backend) == []  # the race: stuck without a re-check
    # media-worker's re-check right after chunking_complete closes it, exactly once:
    assert trigger_reassembly_if_ready(backend, "job-1") is True
    complete(backend, "job-1", 1)  # a late duplicate event changes nothing
    assert reassembly_messages(backend) == ["job-1"]
