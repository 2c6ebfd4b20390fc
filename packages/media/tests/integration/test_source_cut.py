"""--start/--end: the part asked for, exactly, with every stream."""

import subprocess

import av
import numpy as np
import pytest
from shared_types.errors import InvalidRequestError

from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.ffmpeg_runner import FfmpegRunner
from stereo_media.source_cut import source_span
from stereo_media.testing.media import make_video


def _frames(path):
    """The pictures (grey), the audio stream count and the pictures' times; the
    audio must begin with the picture (within one AAC frame)."""
    with av.open(str(path)) as container:
        audio = len(container.streams.audio)
        pictures = list(container.decode(video=0))
    if audio:
        with av.open(str(path)) as container:
            first = next(p for p in container.demux(audio=0) if p.pts is not None)
            assert abs(float(first.pts * first.time_base)) < 0.05
    return ([f.to_ndarray(format="gray") for f in pictures], audio,
            [float(f.time) for f in pictures])


def test_the_part_between_start_and_end_begins_on_the_frame_asked_for(tmp_path):
    source = make_video(tmp_path / "s.mp4", seconds=3.0, gop=24)
    runner = FfmpegRunner(ffmpeg_path(), timeout_s=60)
    whole, _, _ = _frames(source)
    with source_span(runner, source, tmp_path, start_s=1.5, end_s=2.5) as part:
        assert part != source and part.name == "s.mkv"
        frames, audio, times = _frames(part)
    assert not part.exists()  # removed with the block
    assert len(frames) == 24 and audio == 1
    assert times[0] == 0.0  # the part starts at 0 ...
    assert np.array_equal(frames[0], whole[36])  # ... on the source's frame at 1.5 s
    # (a near-lossless copy: x264 at qp 0 keeps the picture exactly)
    with source_span(runner, source, tmp_path, start_s=None, end_s=None) as same:
        assert same == source


@pytest.mark.parametrize(("start", "end"), [(-1.0, None), (2.0, 1.0), (None, 0.0)])
def test_a_span_that_is_none_is_refused(tmp_path, start, end):
    with pytest.raises(InvalidRequestError), source_span(
            FfmpegRunner(ffmpeg_path(), timeout_s=60), tmp_path / "s.mp4", tmp_path,
            start_s=start, end_s=end):
        pass


def test_a_late_clock_and_a_start_past_the_preroll_still_cut_on_the_frame(
        tmp_path, monkeypatch):
    from stereo_media import source_cut

    plain = make_video(tmp_path / "p.mp4", seconds=4.0, gop=24)
    late = tmp_path / "late.mkv"  # its clock starts at 100 s, as a recording's may
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-i", str(plain),
                    "-c", "copy", "-output_ts_offset", "100", str(late)], check=True,
                   timeout=60)
    runner = FfmpegRunner(ffmpeg_path(), timeout_s=60)
    whole, _, _ = _frames(plain)
    monkeypatch.setattr(source_cut, "PREROLL_S", 1.0)  # the jump lands before 2.5 s
    for source in (plain, late):
        with source_span(runner, source, tmp_path, start_s=2.5, end_s=3.5) as part:
            frames, audio, times = _frames(part)
        assert len(frames) == 24 and audio == 1 and times[0] == 0.0
        assert np.array_equal(frames[0], whole[60]), source.name  # 2.5 s at 24 fps
