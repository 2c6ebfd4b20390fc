"""The engine's own deadline: derived from the video's length, checked at
every batch whether or not progress is reported (#52, finding 13)."""

import pytest
from shared_types.testing.clock import ManualClock

from stereo_inference.deadline import (
    DEFAULT_BASE_S,
    DEFAULT_S_PER_FRAME,
    Deadline,
    DeadlinePolicy,
)
from stereo_inference.errors import EngineTimeoutError


def test_the_limit_grows_with_the_frames_and_stops_at_the_cap():
    policy = DeadlinePolicy()
    assert policy.limit_s(300) == DEFAULT_BASE_S + 300 * DEFAULT_S_PER_FRAME == 720
    assert policy.limit_s(600) - policy.limit_s(300) == 300 * DEFAULT_S_PER_FRAME
    assert DeadlinePolicy(cap_s=3600).limit_s(10**6) == 3600
    assert DeadlinePolicy(cap_s=3600).limit_s(None) == 3600
    assert DeadlinePolicy().limit_s(None) == DEFAULT_BASE_S


def test_batches_stop_at_the_deadline_without_any_progress_report():
    clock = ManualClock(100.0)
    deadline = Deadline(10, clock=clock)
    seen = []
    items = deadline.batches(range(5))
    seen.append(next(items))
    clock.t += 9.9
    seen.append(next(items))  # the control: before the deadline, batches flow
    clock.t += 0.2
    with pytest.raises(EngineTimeoutError, match="deadline of 10 s"):
        next(items)
    assert seen == [0, 1]
    assert deadline.left() == pytest.approx(0.001)  # a step started now gets no time
