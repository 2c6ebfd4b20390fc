"""Segments published as contiguous runs per video-worker (seam warm-ups saved)."""

import pytest

from media_worker.segment_order import publish_order


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
