"""Cuts planned from the keyframes, so that a split's count is known before it runs."""

from __future__ import annotations

import pytest

from media_worker.cut_plan import plan_cuts


def test_keyframes_every_second_cut_every_four_halfway_before_their_keyframe():
    keys = [float(t) for t in range(17)]  # 16 s, a keyframe a second
    assert plan_cuts(keys, 4.0) == [3.5, 7.5, 11.5, 15.5]


def test_a_keyframe_just_before_a_multiple_ends_the_segment_there():
    keys = [0.0, 1.0, 2.0, 3.97, 5.0, 6.0, 7.0, 8.0]
    assert plan_cuts(keys, 4.0) == [pytest.approx(2.985), 7.5]


def test_a_gap_longer_than_the_target_makes_one_long_segment_not_empty_ones():
    keys = [0.0, 2.0, 13.0, 14.0, 16.0, 17.0]  # nothing between 2 and 13 s
    # 13 s ends the first segment; the next target is 16 s (the multiple after 13)
    assert plan_cuts(keys, 4.0) == [7.5, 15.0]


def test_no_keyframe_after_the_first_means_no_cut():
    assert plan_cuts([0.0], 4.0) == []
    assert plan_cuts([0.0, 1.0, 2.0], 4.0) == []  # shorter than one segment


def test_unknown_keyframes_plan_nothing():
    assert plan_cuts([], 4.0) is None
    assert plan_cuts([0.0, 4.0], 0) is None
