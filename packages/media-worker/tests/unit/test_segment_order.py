"""Segments published as contiguous runs per video-worker (seam warm-ups saved)."""

import math

import pytest

from media_worker.segment_order import MIN_SEGMENT_S, publish_order, segment_seconds


@pytest.mark.parametrize(("count", "lanes", "expected"), [
    (4, 1, [0, 1, 2, 3]),
    (4, 2, [0, 2, 1, 3]),
    (5, 2, [0, 3, 1, 4, 2]),
    (7, 3, [0, 3, 5, 1, 4, 6, 2]),
    (2, 4, [0, 1]),  # more lanes than segments: one segment per lane
    (1, 2, [0]),
    (0, 2, []),
])
def test_publish_order_interleaves_contiguous_runs(count, lanes, expected):
    order = publish_order(count, lanes)
    assert order == expected
    assert sorted(order) == list(range(count))  # every segment exactly once


def test_each_lane_is_contiguous_so_its_worker_keeps_the_depth_state():
    order = publish_order(10, 2)
    first, second = order[0::2], order[1::2]
    assert first == list(range(0, 5)) and second == list(range(5, 10))


def test_a_negative_count_is_refused():
    with pytest.raises(ValueError, match="negative"):
        publish_order(-1, 2)


@pytest.mark.parametrize(("duration", "target", "lanes", "expected"), [
    (60.0, 4.0, 2, 3.75),  # 15 segments -> 16: both workers convert 8
    (60.0, 4.0, 1, 4.0),  # one worker: the count needs no rounding
    (16.0, 4.0, 2, 4.0),  # 4 already divides evenly
    (25.0, 10.0, 2, 6.25),  # 3 -> 4
    (25.0, 10.0, 3, 25.0 / 3),
    (17.0, 10.0, 1, 8.5),  # 10 + 7 -> two equal halves
    (5.0, 10.0, 2, 2.5),  # one segment -> one per worker
    (1.5, 10.0, 2, 10.0),  # halves would be shorter than MIN_SEGMENT_S: one segment
    (5.0, 10.0, 1, 10.0),  # one segment: cut at the target (nothing to cut)
    (0.0, 4.0, 2, 4.0),  # duration unknown
])
def test_segment_seconds_fills_every_lane_without_exceeding_the_target(
        duration, target, lanes, expected):
    length = segment_seconds(duration, target, lanes)
    assert length == pytest.approx(expected)
    assert length <= target


@pytest.mark.parametrize("lanes", [1, 2, 3, 4])
@pytest.mark.parametrize("duration", [3.0, 9.9, 16.0, 41.7, 60.0, 601.0])
def test_the_segment_count_is_a_multiple_of_the_lanes_when_segments_stay_long_enough(
        duration, lanes):
    length = segment_seconds(duration, 4.0, lanes)
    count = math.ceil(duration / length - 1e-9)
    if duration / lanes >= MIN_SEGMENT_S and count > 1:
        assert count % lanes == 0
    assert length <= 4.0
