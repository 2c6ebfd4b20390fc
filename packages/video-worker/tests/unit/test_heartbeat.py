"""Per-frame progress: the engine's callback becomes throttled heartbeat records."""

from shared_types.keys import parse_segment_key, segment_key
from shared_types.testing.clock import ManualClock
from shared_types.testing.memory import memory_backend

from video_worker import testing as h
from video_worker.heartbeat import SegmentHeartbeater
from video_worker.inference import InferenceDeps, convert_segment


def test_beats_are_throttled_but_the_first_and_the_last_always_land():
    backend = memory_backend()
    backend.segment_status.mark_pending("job-1", 0)
    clock = ManualClock(1000.0)
    writes = []
    original = backend.heartbeats.beat
    backend.heartbeats.beat = lambda hb: (writes.append(hb.frames_done), original(hb))
    beater = SegmentHeartbeater(backend.heartbeats, "job-1", 0, "w1", interval_s=2, clock=clock)
    for frame in range(1, 101):
        clock.t += 0.1  # 10 fps
        beater(frame, 100)
    beater.finish(100)
    assert writes[0] == 1
    assert writes[-1] == 100
    assert len(writes) <= 100 * 0.1 / 2 + 2
    [beat] = backend.heartbeats.list("job-1")
    assert (beat.frames_done, beat.frames_total, beat.worker) == (100, 100, "w1")
    assert round(beat.fps) == 10


def test_converting_a_segment_leaves_a_heartbeat_with_every_frame():
    backend = memory_backend()
    h.make_job(backend, total=2)
    inference = h.RecordingInference(backend)
    payload = parse_segment_key(backend.input_storage.bucket,
                                segment_key("job-1", 1, 2, "half-sbs"))
    convert_segment(payload, InferenceDeps(backend, inference, worker_id="w9"))
    [beat] = backend.heartbeats.list("job-1")
    assert (beat.segment_index, beat.frames_done, beat.frames_total, beat.worker) == (
        1, inference.frames, inference.frames, "w9")


def test_a_job_cancelled_mid_conversion_stops_at_the_next_heartbeat():
    from shared_types.models import JobStatus, JobUpdate

    backend = memory_backend()
    h.make_job(backend, total=2)
    inference = h.RecordingInference(backend)
    original = backend.heartbeats.beat

    def beat_then_cancel(hb):
        original(hb)
        if hb.frames_done >= 8:  # the person presses Cancel while frames are written
            backend.jobs.update("job-1", JobUpdate(status=JobStatus.CANCELLED))

    backend.heartbeats.beat = beat_then_cancel
    payload = parse_segment_key(backend.input_storage.bucket,
                                segment_key("job-1", 0, 2, "half-sbs"))
    result = convert_segment(payload, InferenceDeps(backend, inference, heartbeat_s=0))
    assert result is None
    assert list(backend.output_storage.list("")) == []  # the engine never finished
    assert backend.jobs.get("job-1").status == JobStatus.CANCELLED
    assert backend.segment_status.get("job-1", 0).state == "pending"  # not failed


def test_queued_messages_of_a_cancelled_job_are_acknowledged_and_ignored():
    from shared_types.models import JobStatus

    backend = memory_backend()
    h.make_job(backend, status=JobStatus.CANCELLED, total=2)
    inference = h.RecordingInference(backend)
    body = h.segment_event(backend, "job-1", 0, 2)
    assert h.convert_all(h.message(body), InferenceDeps(backend, inference)) == []
    assert inference.calls == []
