"""Probe limits on real files: each refusal names the limit in plain words."""

from __future__ import annotations

import pytest

from stereo_media.bounded_probe import probe_header, probe_video
from stereo_media.errors import UnusableVideoError
from stereo_media.probe_limits import ProbeLimits
from stereo_media.testing.media import make_video

ROOMY = dict(max_bytes=10**9, max_duration_s=3600, max_width=8000, max_height=8000)


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    return make_video(tmp_path_factory.mktemp("probe") / "clip.mp4", seconds=3, gop=24)


def test_a_good_clip_is_described(clip):
    # exactly at every work limit is still allowed (the negative control of the refusals below)
    info = probe_video(clip, ProbeLimits(**ROOMY, max_fps=24, max_frames=72,
                                         max_pixel_frames=160 * 96 * 72))
    assert (info.width, info.height, info.video_frames) == (160, 96, 72)
    assert info.duration_s == pytest.approx(3.0, abs=0.05)
    assert info.has_audio
    assert info.max_keyframe_gap_s == pytest.approx(1.0, abs=0.05)


@pytest.mark.parametrize("limit, words", [
    ({"max_bytes": 1000}, "too large"),
    ({"max_duration_s": 2}, "too long"),
    ({"max_width": 100}, "160x96, larger than the allowed 100x8000"),
    ({"max_height": 50}, "larger than the allowed"),
    ({"max_fps": 20}, "24 frames per second; at most 20"),
    ({"max_frames": 50}, "72 frames; at most 50"),
    ({"max_pixel_frames": 160 * 96 * 71}, "too much work to convert"),
])
def test_a_clip_over_a_limit_is_refused_with_the_limit_named(clip, limit, words):
    with pytest.raises(UnusableVideoError, match=words):
        probe_video(clip, ProbeLimits(**{**ROOMY, **limit}))


def test_a_source_whose_index_counts_too_many_frames_is_refused_from_its_header(clip):
    # no packet scan: a 2x2 px source of a million frames is refused at once
    with pytest.raises(UnusableVideoError, match="The video has 72 frames; at most 50"):
        probe_header(str(clip), ProbeLimits(**ROOMY, max_frames=50))
    assert probe_header(str(clip), ProbeLimits(**ROOMY, max_frames=72)).width == 160
