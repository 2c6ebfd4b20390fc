import pytest
from shared_types.testing.clock import ManualClock

from video_worker.deadline import ConversionDeadline
from video_worker.errors import ConversionTimeoutError


def test_the_limit_scales_with_the_segments_frames_and_stops_the_conversion():
    clock, seen = ManualClock(), []
    progress = ConversionDeadline(lambda *a: seen.append(a), base_s=10, s_per_frame=0.5,
                                  clock=clock)
    progress(0, 100)  # limit: 10 + 0.5 * 100 = 60 s
    assert progress.limit_s() == 60
    clock.t = 59
    progress(90)
    assert seen == [(0, 100), (90, None)]
    clock.t = 61
    with pytest.raises(ConversionTimeoutError, match="longer than 60 s for 100 frames"):
        progress(95)


def test_without_a_frame_count_there_is_no_limit_yet():
    clock = ManualClock()
    progress = ConversionDeadline(lambda *a: None, base_s=1, s_per_frame=0, clock=clock)
    clock.t = 1e6
    progress(5)


def test_a_timed_out_conversion_fails_the_segment_for_good(backend, inference):
    from shared_types.models import SegmentState

    from video_worker import testing as h
    from video_worker.errors import SegmentConversionError
    from video_worker.inference import InferenceDeps, convert_segment, decode_segment_uploads

    h.make_job(backend)
    [payload] = decode_segment_uploads(h.message(h.segment_event(backend, "job-1", 0, 2)))
    deps = InferenceDeps(backend, inference, heartbeat_s=0, timeout_base_s=0,
                         timeout_s_per_frame=0)  # any elapsed time is over the limit
    with pytest.raises(SegmentConversionError, match="longer than 0 s"):
        convert_segment(payload, deps)
    assert backend.segment_status.get("job-1", 0).state == SegmentState.FAILED
