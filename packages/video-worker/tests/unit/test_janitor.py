import json
import time

from shared_types.events import parse_s3_event_body
from shared_types.keys import segment_key, source_key
from shared_types.models import JobStatus, JobUpdate, OutputMode

from video_worker import testing as h
from video_worker.janitor import complete_segment_set, run_janitor_pass

STUCK = 600.0


def later(seconds=STUCK + 1):
    return time.time() + seconds


def janitor(backend, now=None):
    return run_janitor_pass(backend, stuck_after_s=STUCK, max_segment_attempts=3, now=now)


def upload_segments(backend, job_id, indexes, total, mode=OutputMode.HALF_SBS, run=0):
    for i in indexes:
        backend.input_storage.put_bytes(segment_key(job_id, i, total, mode, run), b"seg")


def drain(queue):
    out = []
    while msgs := queue.receive(max_messages=10, visibility_s=60):
        out += [m.body for m in msgs]
    return out


def complete(backend, job_id, index):
    h.record_outputs(h.message(h.output_event(backend, job_id, index)), backend)


def test_a_recent_chunking_job_is_left_alone(backend):
    h.make_job(backend, status=JobStatus.CHUNKING_IN_PROGRESS, total=None)
    upload_segments(backend, "job-1", [0, 1], 2)
    report = janitor(backend, now=time.time())
    assert report.chunking_recovered == []
    assert report.chunking_resent == []
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
    assert job.status == JobStatus.FAILED
    assert job.error.stage == "chunking"


def test_mixed_chunking_runs_are_not_a_complete_set(backend):
    job = h.make_job(backend, status=JobStatus.CHUNKING_IN_PROGRESS, total=None)
    upload_segments(backend, "job-1", [0, 1], 2)
    assert complete_segment_set(backend, job) == 2
    upload_segments(backend, "job-1", [0, 1, 2], 3)
    assert complete_segment_set(backend, job) is None
    assert complete_segment_set(backend, job.model_copy(update={"job_id": "job-2"})) is None


def test_only_the_current_runs_segments_make_a_complete_set(backend):
    job = h.make_job(backend, status=JobStatus.CHUNKING_IN_PROGRESS, total=None)
    job = backend.jobs.update("job-1", JobUpdate(run=2))
    upload_segments(backend, "job-1", [0, 1, 2], 3, run=1)  # a zombie's whole run
    upload_segments(backend, "job-1", [0], 2, run=2)
    assert complete_segment_set(backend, job) is None
    upload_segments(backend, "job-1", [1], 2, run=2)
    assert complete_segment_set(backend, job) == 2


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
    assert job.status == JobStatus.FAILED
    assert "model crashed" in job.error.message


def test_a_segment_that_exhausted_its_attempts_fails_the_job(backend):
    h.make_job(backend, total=2)
    for _ in range(3):
        backend.segment_status.mark_pending("job-1", 0)
    backend.segment_status.mark_pending("job-1", 1)  # one attempt: still in the running
    report = janitor(backend, now=later())
    assert report.failed == ["job-1"]
    assert "Segment 1 of 2" in backend.jobs.get("job-1").error.message


def test_a_last_attempt_whose_converter_still_beats_does_not_fail_the_job(backend):
    # its fifth (here: third) attempt of a long segment runs past stuck_after_s:
    # the owner is alive while its frames beat, and only its silence gives up
    from shared_types.models import SegmentHeartbeat

    h.make_job(backend, total=1)
    for _ in range(3):
        backend.segment_status.mark_pending("job-1", 0)
    t = later()
    backend.heartbeats.beat(SegmentHeartbeat(job_id="job-1", segment_index=0, worker="w",
                                             frames_done=900, started_at=t - STUCK - 60,
                                             last_heartbeat=t - 1))
    assert janitor(backend, now=t).failed == []
    assert backend.jobs.get("job-1").status == JobStatus.CHUNKING_COMPLETE
    assert janitor(backend, now=t + STUCK).failed == ["job-1"]  # it went silent


def test_a_segment_still_being_retried_does_not_fail_the_job(backend):
    h.make_job(backend, total=2)
    backend.segment_status.mark_pending("job-1", 0)
    backend.segment_status.mark_pending("job-1", 0)
    assert janitor(backend, now=later()).failed == []
    assert backend.jobs.get("job-1").status == JobStatus.CHUNKING_COMPLETE


# -- every non-terminal state is swept (docs/ARCHITECTURE.md, "Lifecycle") -----------

def ready_and_triggered(backend, job_id="job-1", total=2):
    h.make_job(backend, job_id, total=total)
    for i in range(total):
        complete(backend, job_id, i)
    drain(backend.reassembly_queue)  # the trigger row exists; pretend its send was lost


def test_a_trigger_whose_send_was_lost_is_re_sent_once_stale(backend):
    ready_and_triggered(backend)
    assert backend.reassembly.is_triggered("job-1")
    assert janitor(backend, now=time.time()).reassembly_resent == []  # owner may still send
    report = janitor(backend, now=later())
    assert report.reassembly_resent == ["job-1"]
    assert [json.loads(b)["job_id"] for b in drain(backend.reassembly_queue)] == ["job-1"]
    assert backend.jobs.get("job-1").resends == 1


def test_a_reassembler_that_died_is_replaced_once_its_job_is_stale(backend):
    h.make_job(backend, status=JobStatus.REASSEMBLING)
    assert janitor(backend, now=time.time()).reassembly_resent == []
    assert janitor(backend, now=later()).reassembly_resent == ["job-1"]
    assert [json.loads(b)["job_id"] for b in drain(backend.reassembly_queue)] == ["job-1"]
    assert backend.jobs.get("job-1").status == JobStatus.REASSEMBLING


def test_a_created_job_whose_upload_event_was_lost_is_chunked_again(backend):
    h.make_job(backend, status=JobStatus.CREATED, total=None)
    backend.input_storage.put_bytes(source_key("job-1"), b"source")
    assert janitor(backend, now=later()).chunking_resent == ["job-1"]
    [body] = drain(backend.chunking_queue)
    assert parse_s3_event_body(body)[0].key == source_key("job-1")


def test_a_created_job_that_never_got_its_upload_fails_after_the_upload_timeout(backend):
    h.make_job(backend, status=JobStatus.CREATED, total=None)
    assert janitor(backend, now=later()).failed == []  # the link may still be used
    report = run_janitor_pass(backend, stuck_after_s=STUCK, max_segment_attempts=3,
                              upload_timeout_s=STUCK * 2, now=later(STUCK * 3))
    assert report.failed == ["job-1"]
    assert backend.jobs.get("job-1").error.code == "upload_missing"


def test_re_sends_are_bounded_then_the_job_fails_with_a_reason(backend):
    h.make_job(backend, status=JobStatus.REASSEMBLING)
    for n in range(1, 3):
        report = run_janitor_pass(backend, stuck_after_s=STUCK, max_segment_attempts=3,
                                  max_resends=2, now=later(n * (STUCK + 1)))
        assert report.reassembly_resent == ["job-1"]
        drain(backend.reassembly_queue)
    report = run_janitor_pass(backend, stuck_after_s=STUCK, max_segment_attempts=3,
                              max_resends=2, now=later(3 * (STUCK + 1)))
    assert (report.reassembly_resent, report.failed) == ([], ["job-1"])
    job = backend.jobs.get("job-1")
    assert (job.status, job.error.code, job.error.stage) == (
        JobStatus.FAILED, "stalled", "reassembly")
    assert "3 times" in job.error.message


def test_a_stage_that_may_not_be_re_sent_fails_saying_it_stopped_once(backend):
    h.make_job(backend, status=JobStatus.REASSEMBLING)
    report = run_janitor_pass(backend, stuck_after_s=STUCK, max_segment_attempts=3,
                              max_resends=0, now=later(STUCK + 1))
    assert report.failed == ["job-1"]
    assert "stopped without finishing once;" in backend.jobs.get("job-1").error.message


def test_segments_nobody_works_on_are_re_sent_and_complete_ones_are_not(backend):
    h.make_job(backend, total=3)
    upload_segments(backend, "job-1", [0, 1, 2], 3)
    complete(backend, "job-1", 0)  # done; 1 has no status row (its event was lost); 2 pending
    backend.segment_status.mark_pending("job-1", 2)
    assert janitor(backend, now=later()).segments_resent == ["job-1"]
    keys = sorted(parse_s3_event_body(b)[0].key for b in drain(backend.video_queue))
    assert keys == [segment_key("job-1", i, 3, OutputMode.HALF_SBS) for i in (1, 2)]


def test_nothing_is_re_sent_while_the_target_queue_has_a_backlog(backend):
    h.make_job(backend, total=2)
    upload_segments(backend, "job-1", [0, 1], 2)
    backend.video_queue.send("other job's segment, not yet taken")
    assert janitor(backend, now=later()).segments_resent == []
    assert backend.jobs.get("job-1").resends == 0


def test_terminal_jobs_are_never_touched(backend):
    for job_id, status in (("done", JobStatus.COMPLETED), ("gone", JobStatus.FAILED)):
        h.make_job(backend, job_id, status=status)
    report = janitor(backend, now=later(10 * STUCK))
    assert not any(report.model_dump().values())
    assert [backend.jobs.get(j).status for j in ("done", "gone")] == [
        JobStatus.COMPLETED, JobStatus.FAILED]


def test_a_retry_whose_sends_were_lost_is_picked_up_by_the_sweep(backend):
    from shared_types.errors import TransientStoreError
    from shared_types.models import JobError
    from shared_types.retry import retry_job

    h.make_job(backend, total=2)
    upload_segments(backend, "job-1", [0, 1], 2)
    complete(backend, "job-1", 0)
    backend.segment_status.mark_failed("job-1", 1, "gpu fell over")
    failed = backend.jobs.update("job-1", JobUpdate(
        status=JobStatus.FAILED, error=JobError(code="x", message="x", stage="inference")))
    real_send = backend.video_queue.send
    backend.video_queue.send = lambda *a, **k: (_ for _ in ()).throw(TransientStoreError("down"))
    try:
        retry_job(backend, failed)
    except TransientStoreError:
        pass
    backend.video_queue.send = real_send
    assert janitor(backend, now=later()).segments_resent == ["job-1"]
    [body] = drain(backend.video_queue)
    assert parse_s3_event_body(body)[0].key == segment_key("job-1", 1, 2, OutputMode.HALF_SBS)


def test_a_segment_whose_converter_still_beats_is_not_re_sent(backend):
    from shared_types.models import SegmentHeartbeat

    h.make_job(backend, total=1)
    upload_segments(backend, "job-1", [0], 1)
    backend.segment_status.mark_pending("job-1", 0)
    t = later()
    backend.heartbeats.beat(SegmentHeartbeat(job_id="job-1", segment_index=0, worker="w",
                                             frames_done=10, started_at=t - 5,
                                             last_heartbeat=t - 1))
    assert janitor(backend, now=t).segments_resent == []
    assert janitor(backend, now=t + STUCK).segments_resent == ["job-1"]  # it went silent


def test_the_pass_has_a_handler_for_every_sweep_the_lifecycle_table_names():
    import pytest
    from shared_types.lifecycle import Sweep, swept
    from shared_types.testing.memory import memory_backend

    from video_worker.janitor import SweepPolicy, _Sweep

    sweep = _Sweep(memory_backend(), SweepPolicy(stuck_after_s=1, max_segment_attempts=1), 0.0)
    assert all(callable(sweep.by_kind(kind)) for _, kind in swept())
    with pytest.raises(KeyError):  # negative control: a terminal status has no sweep
        sweep.by_kind(Sweep.NONE)
