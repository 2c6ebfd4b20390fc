"""A short transport stream with one keyframe: an input seek lands past it and
nothing decodes, so the strip, the poster's moment and a preview clip read it
from the start instead (``seeking``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import av
import numpy as np
import pytest
from shared_types.preview import THUMBNAILS
from stereo_media.errors import UnusableVideoError
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.ffmpeg_runner import FfmpegRunner, file_input

from media_worker import seeking
from media_worker.clip import cut_clip
from media_worker.seeking import seek_attempts
from media_worker.thumbnails import make_thumbnails

FPS, SECONDS = 25, 6


@pytest.fixture
def one_keyframe_ts(tmp_path) -> Path:
    path = tmp_path / "recording.ts"
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                    "-i", f"testsrc2=size=160x96:rate={FPS}:duration={SECONDS}",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "1000", "-f", "mpegts",
                    str(path)], check=True, timeout=60)
    return path


def pictures(path: Path) -> list[np.ndarray]:
    with av.open(str(path)) as container:
        return [f.to_ndarray(format="rgb24").astype(np.float32)
                for f in container.decode(video=0)]


@pytest.fixture
def runner() -> FfmpegRunner:
    return FfmpegRunner(ffmpeg_path(), timeout_s=60)


def test_a_short_stream_with_one_keyframe_gets_its_whole_strip(one_keyframe_ts, runner,
                                                               tmp_path):
    made = make_thumbnails(runner, file_input(one_keyframe_ts), SECONDS, tmp_path)
    assert len(made) == THUMBNAILS


def test_a_clip_of_it_starts_at_its_moment(one_keyframe_ts, runner, tmp_path):
    clip = pictures(cut_clip(runner, file_input(one_keyframe_ts), 3.0, 2.0, tmp_path / "c.mp4"))
    source = pictures(one_keyframe_ts)
    assert len(clip) == 2 * FPS
    error = {i: np.abs(clip[0] - source[i]).mean() for i in (0, 3 * FPS - 1, 3 * FPS)}
    assert error[3 * FPS] < min(error[0], error[3 * FPS - 1]), error


def test_with_input_seeks_alone_the_strip_and_the_clip_are_lost(one_keyframe_ts, runner,
                                                               tmp_path, monkeypatch):
    """The control: only the reading from the start finds these moments."""
    monkeypatch.setattr(seeking, "FROM_START_MAX_S", 0.0)
    assert len(make_thumbnails(runner, file_input(one_keyframe_ts), SECONDS, tmp_path)) == 0
    with pytest.raises(UnusableVideoError, match="could not be cut"):
        cut_clip(runner, file_input(one_keyframe_ts), 3.0, 2.0, tmp_path / "c.mp4")


def test_a_late_moment_is_only_sought_and_the_start_read_as_it_is():
    source = ["-i", "x.ts"]
    assert seek_attempts(30.0, source) == [["-ss", "30.000", *source],
                                           [*source, "-ss", "30.000"]]
    assert seek_attempts(seeking.FROM_START_MAX_S + 1, source) == [
        ["-ss", f"{seeking.FROM_START_MAX_S + 1:.3f}", *source]]
    assert seek_attempts(0.0, source) == [source]
