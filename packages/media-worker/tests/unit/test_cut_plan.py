"""Cuts planned from the keyframes, so that a split's count is known before it runs."""

from __future__ import annotations

import pytest

from media_worker.cut_plan import plan_cuts, planned_cuts


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


def _info(**kw):
    from stereo_media.bounded_probe import SourceInfo

    base = dict(size_bytes=1, duration_s=16.0, width=64, height=64, video_frames=384,
                has_audio=False, max_keyframe_gap_s=1.0, container="mov,mp4",
                video_codec="h264", keyframes_s=tuple(float(t) for t in range(16)))
    return SourceInfo(**{**base, **kw})


def test_a_source_cut_as_it_is_plans_at_its_own_keyframes():
    assert planned_cuts(_info(), 4.0) == [3.5, 7.5, 11.5]


def test_a_source_re_encoded_on_the_way_plans_at_the_keyframes_the_re_encode_forces():
    # one keyframe in 16 s: re-encoded with one every keyframe_interval(4) = 1 s
    sparse = _info(max_keyframe_gap_s=16.0, keyframes_s=(0.0,))
    assert plan_cuts(sparse.keyframes_s, 4.0) == []  # its own keyframes allow no cut
    assert planned_cuts(sparse, 4.0) == [3.5, 7.5, 11.5]
