"""Segments handed on as they are cut, in the lanes' order, the last one held back."""

from __future__ import annotations

from pathlib import Path

import pytest

from media_worker.publication import Publication
from media_worker.segment_order import publish_order


def test_segments_go_out_in_order_as_soon_as_each_and_those_before_it_are_cut():
    out = []
    pub = Publication(4, [0, 1, 2, 3], lambda i, p: out.append(i))
    pub.cut(1, Path("1"))
    assert out == []  # 0 is not cut yet
    pub.cut(0, Path("0"))
    assert out == [0, 1]
    pub.cut(2, Path("2"))
    pub.cut(3, Path("3"))
    assert out == [0, 1, 2]  # the last one waits for the split's end
    pub.finish([Path(n) for n in "0123"])
    assert out == [0, 1, 2, 3]
    assert pub.published == 4


def test_two_lanes_wait_for_the_head_of_the_second_run():
    out = []
    pub = Publication(4, publish_order(4, 2), lambda i, p: out.append(i))  # 0, 2, 1, 3
    pub.cut(0, Path("0"))
    pub.cut(1, Path("1"))
    assert out == [0]
    pub.cut(2, Path("2"))
    assert out == [0, 2, 1]
    pub.finish([Path(n) for n in "0123"])
    assert out == [0, 2, 1, 3]


def test_a_refused_publication_is_raised_and_not_counted():
    def refuse(index, path):
        raise RuntimeError("job moved on")

    pub = Publication(2, [0, 1], refuse)
    with pytest.raises(RuntimeError):
        pub.cut(0, Path("0"))
    assert pub.published == 0
