import pytest
from stereo_media.testing.media import make_audio_only, make_video

from stereo_inference.errors import InvalidInputError
from stereo_inference.video_info import probe_video


def test_describes_size_rate_length_and_audio_of_a_video(tmp_path):
    info = probe_video(make_video(tmp_path / "c.mp4", seconds=1.0, size=(64, 48), fps=24))
    assert (info.width, info.height, info.codec) == (64, 48, "h264")
    assert info.fps == pytest.approx(24.0)
    assert info.duration_s == pytest.approx(1.0, abs=0.1)
    assert info.audio_codecs == ["aac"]
    assert info.rotation == 0


@pytest.mark.parametrize("make", [
    lambda p: p,  # missing
    lambda p: (p.write_bytes(b""), p)[1],  # empty
    lambda p: (p.write_bytes(b"not a video at all" * 100), p)[1],
    lambda p: make_audio_only(p),
])
def test_anything_but_a_video_is_invalid_input_naming_the_file(tmp_path, make):
    path = make(tmp_path / "bad.mp4")
    with pytest.raises(InvalidInputError, match="bad.mp4|no video"):
        probe_video(path)


def test_a_picture_wider_than_the_media_workers_limit_is_refused_here_too(tmp_path):
    # 7696 px wide: within the engine's old 8192 px but beyond 7680x4320, the one
    # set of limits (stereo_media.probe_limits) the media worker's probe applies
    wide = make_video(tmp_path / "wide.mp4", seconds=0.1, size=(7696, 16), fps=10,
                      audio=False, pattern="color")
    with pytest.raises(InvalidInputError, match="7696x16, larger than the allowed 7680x4320"):
        probe_video(wide)
    assert probe_video(make_video(tmp_path / "fits.mp4", seconds=0.1, size=(7680, 16),
                                  fps=10, audio=False, pattern="color")).width == 7680


def test_a_rate_beyond_the_media_workers_limit_is_refused_in_its_words(tmp_path):
    from stereo_media.bounded_probe import probe_video as bounded_probe
    from stereo_media.errors import UnusableVideoError
    from stereo_media.probe_limits import DEFAULT_LIMITS

    fast = make_video(tmp_path / "fast.mp4", seconds=0.1, size=(32, 16), fps=300,
                      audio=False, pattern="color")
    with pytest.raises(UnusableVideoError) as refused:
        bounded_probe(fast, DEFAULT_LIMITS)
    with pytest.raises(InvalidInputError) as engine:
        probe_video(fast)
    assert "300 frames per second; at most 240" in str(engine.value)
    assert str(refused.value) in str(engine.value)  # one set of limits, one sentence
