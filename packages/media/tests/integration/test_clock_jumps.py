"""A transport stream whose clock jumps is found (and nothing else is), and its
continuous copy plays every part in turn, the picture and sound in step."""

from pathlib import Path

import pytest

from stereo_media.clock_jumps import clock_jumps, continuous_source
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.testing.timing import (
    beep_time,
    flash_time,
    frame_times,
    make_joined_recording,
    make_paused_video,
)

FPS = 25
ONE_FRAME = 1 / FPS


def run_ffmpeg(args):
    import subprocess

    subprocess.run([ffmpeg_path(), *args], check=True, capture_output=True, timeout=60)


@pytest.mark.parametrize("clocks", [(100.0, 5.0), (100.0, 50.0), (20.0, 200.0, 7.0)],
                         ids=["wrapped", "backwards", "three-parts"])
def test_a_joined_recording_becomes_one_timeline_of_every_part(tmp_path, clocks):
    joined = make_joined_recording(tmp_path / "joined.ts", clocks=clocks)
    assert clock_jumps(joined)

    copy = continuous_source(joined, tmp_path, run_ffmpeg)

    assert copy != joined and copy.suffix == ".ts"
    assert not clock_jumps(copy)
    times = frame_times(copy)
    parts = len(clocks)
    assert len(times) == parts * 3 * FPS  # every frame of every part
    assert max(b - a for a, b in zip(times, times[1:], strict=False)) < 2 * ONE_FRAME
    played = (parts - 1) * 3.0 + 1.0  # the last part's flash, after the others
    assert flash_time(copy) == pytest.approx(played, abs=1.5 * ONE_FRAME)
    assert beep_time(copy) == pytest.approx(played, abs=1.5 * ONE_FRAME)


def test_a_jump_under_ten_seconds_is_a_gap_kept_as_it_is(tmp_path):
    gap = make_joined_recording(tmp_path / "gap.ts", clocks=(10.0, 18.0))  # 5 s of nothing
    assert not clock_jumps(gap)
    assert continuous_source(gap, tmp_path, _never) == gap


def test_one_recording_an_mp4_pause_and_what_is_no_video_are_left_alone(tmp_path):
    single = make_joined_recording(tmp_path / "single.ts", clocks=(100.0,))
    paused = make_paused_video(tmp_path / "paused.mp4", pause_s=12.0, flash_at=15.0)
    text = tmp_path / "notes.ts"
    text.write_text("not a video\n" * 100)
    for path in (single, paused, text, tmp_path / "missing.ts"):
        assert not clock_jumps(path), path
        assert continuous_source(path, tmp_path, _never) == path


def _never(args):
    raise AssertionError(f"ffmpeg ran for a file that needs no copy: {args}")


def test_a_copy_that_fails_raises_what_the_runner_raises(tmp_path):
    joined = make_joined_recording(tmp_path / "joined.ts")

    def failing(args):
        raise RuntimeError("ffmpeg exited with 1")

    with pytest.raises(RuntimeError, match="exited with 1"):
        continuous_source(joined, tmp_path, failing)
    assert not Path(tmp_path / "continuous.ts").exists()
