"""``stereo-spot convert`` keeps every frame's source time across segment cuts:
a pause in the timestamps, a phone's variable frame rate, NTSC over many cuts."""

from pathlib import Path

import pytest
from stereo_media.testing.media import make_video
from stereo_media.testing.timing import (
    beep_time,
    damage_audio_frames,
    flash_time,
    frame_times,
    make_paused_video,
)

ONE_MS = 0.001
SOURCES = {
    # 5 s of picture, paused 2 s at 1.5 s (between two 1 s cuts); flash and beep at 6 s
    "pause": lambda p: make_paused_video(p, seconds=5.0, flash_at=6.0),
    # every third frame dropped: frames last 1/24 or 2/24 s
    "vfr": lambda p: make_video(p, seconds=4.0, size=(64, 48), vfr=True, gop=12),
    # 29.97 fps over twelve 1 s segments: no drift may build up from cut to cut
    "ntsc": lambda p: make_paused_video(p, seconds=12.0, fps="30000/1001", pause_s=0.0,
                                        flash_at=10.5, gop=15),
}


@pytest.mark.parametrize("kind", sorted(SOURCES))
def test_every_frame_keeps_its_source_time_and_the_audio_stays_in_sync(
    kind, tmp_path: Path, stack_env, run_cli
):
    source = SOURCES[kind](tmp_path / f"{kind}.mp4")
    out = tmp_path / "out.mp4"
    result = run_cli(["convert", str(source), "-o", str(out), "--mode", "half-sbs",
                      "--workers", "2", "--segment-seconds", "1"],
                     stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    before, after = frame_times(source), frame_times(out)
    assert len(after) == len(before)
    assert after == pytest.approx(before, abs=ONE_MS)
    if kind != "vfr":
        assert flash_time(out) == pytest.approx(flash_time(source), abs=ONE_MS)
        assert beep_time(out) == pytest.approx(beep_time(source), abs=ONE_MS)


@pytest.mark.parametrize("suffix", [".mp4", ".mkv"])
def test_a_recording_with_damaged_audio_frames_converts_with_the_sound_in_step(
        suffix, tmp_path: Path, stack_env, run_cli):
    # a weak broadcast signal: a copy of its audio fails at chunking, so the
    # side file takes it decoded past the broken frames, the gap kept silent
    clean = make_paused_video(tmp_path / "clean.mp4", seconds=6.0, pause_at=0.5, pause_s=0.0,
                              flash_at=4.0)
    damaged = damage_audio_frames(clean, tmp_path / "recording.ts", first_s=1.0)
    out = tmp_path / f"out{suffix}"
    result = run_cli(["convert", str(damaged), "-o", str(out), "--workers", "1",
                      "--segment-seconds", "2"], stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    assert beep_time(out) - flash_time(out) == pytest.approx(
        beep_time(clean) - flash_time(clean), abs=ONE_MS)
    assert len(frame_times(out)) == len(frame_times(clean))
