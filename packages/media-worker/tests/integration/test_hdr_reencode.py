"""A source whose keyframes are too sparse is re-encoded before splitting: HDR survives it."""

import pytest
from stereo_media.bounded_probe import probe_video
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.ffmpeg_runner import FfmpegRunner
from stereo_media.probe_limits import ProbeLimits
from stereo_media.testing.media_facts import media_facts
from stereo_media.testing.rich_media import make_rich_video

from media_worker.splitting import prepare_and_split, reencode_reason

LIMITS = ProbeLimits(max_bytes=10**9, max_duration_s=600, max_width=4096, max_height=4096)


@pytest.mark.parametrize("hdr10", [True, False])
def test_the_keyframed_reencode_keeps_10_bit_colour_and_mastering_metadata(tmp_path, hdr10):
    source = make_rich_video(tmp_path / "src.mkv", seconds=4.0, size=(160, 96), fps=12,
                             gop=48, hdr10=hdr10, audio=(), cues=(), chapters=())
    info = probe_video(source.path, LIMITS)
    assert reencode_reason(info, 1.0)  # one keyframe in 4 s: must re-encode for 1 s cuts
    runner = FfmpegRunner(ffmpeg_path(), timeout_s=120)
    segments = prepare_and_split(runner, source.path, info, tmp_path, 1.0, job_id="job",
                                 limits=LIMITS)
    assert (tmp_path / "keyframed.mp4").is_file() and len(segments) >= 3
    src = media_facts(source.path)
    facts = [media_facts(s) for s in segments]
    assert sum(f.frames for f in facts) == src.frames
    for f in facts:
        if hdr10:
            assert (f.of_kind("video")[0].codec, f.pix_fmt) == ("hevc", "yuv420p10le")
            assert f.color == src.color == ("9", "16", "9")  # BT.2020, PQ, BT.2020 nc
            assert f.hdr_side_data == {"MASTERING_DISPLAY_METADATA", "CONTENT_LIGHT_LEVEL"}
        else:
            assert (f.of_kind("video")[0].codec, f.pix_fmt) == ("h264", "yuv420p")


def test_open_gops_are_re_encoded_so_no_frame_is_lost_at_a_cut(tmp_path):
    """x265's default open GOPs: frames coded after a keyframe but shown before it
    would be lost by a ``-c copy`` cut there (102 of 108 frames kept before)."""
    hevc = make_rich_video(tmp_path / "open.mkv", seconds=9.0, size=(160, 96), fps=12,
                           hdr10=True, audio=(), cues=(), chapters=())
    h264 = make_rich_video(tmp_path / "closed.mp4", seconds=9.0, size=(160, 96), fps=12,
                           audio=(), cues=(), chapters=())
    info = probe_video(hevc.path, LIMITS)
    assert info.has_leading_frames and info.max_keyframe_gap_s <= 1.01
    assert not probe_video(h264.path, LIMITS).has_leading_frames
    runner = FfmpegRunner(ffmpeg_path(), timeout_s=120)
    segments = prepare_and_split(runner, hevc.path, info, tmp_path, 4.0, job_id="job",
                                 limits=LIMITS)
    assert len(segments) == 3
    assert sum(media_facts(s).frames for s in segments) == media_facts(hevc.path).frames == 108
