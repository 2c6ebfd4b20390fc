"""Per-frame progress: the engine's callback becomes throttled heartbeat records."""

from shared_types.keys import parse_segment_key, segment_key
from shared_types.testing.memory import memory_backend

from video_worker import testing as h
from video_worker.heartbeat import SegmentHeartbeater
from video_worker.inference import InferenceDeps, convert_segment


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_beats_are_throttled_but_the_first_and_the_last_always_land():
    backend = memory_backend()
    backend.segment_status.mark_pending("job-1", 0)
    clock = Clock()
    writes = []
    original = backend.heartbeats.beat
    backend.heartbeats.beat = lambda hb: (writes.append(hb.frames_done), original(hb))
    beater = SegmentHeartbeater(backend.heartbeats, "job-1", 0, "w1", interval_s=2, clock=clock)
    for frame in range(1, 101):
        clock.t += 0.1  # 10 fps
        beater(frame, 100)
    beater.finish(100)
    assert writes[0] == 1 and writes[-1] == 100
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
