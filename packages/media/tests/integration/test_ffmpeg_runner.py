"""The ffmpeg runner: errors carry ffmpeg's last words (the tail in ``stderr``);
the wall clock is enforced; inputs are local files in known containers only."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from stereo_media.errors import (
    FfmpegFailedError,
    FfmpegKilledError,
    FfmpegTimeoutError,
    FfmpegUndecodableError,
)
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.ffmpeg_runner import FfmpegRunner, file_input


def script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "fake-ffmpeg"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_a_failure_reports_the_tail_of_ffmpeg_stderr(tmp_path):
    runner = FfmpegRunner(ffmpeg_path(), timeout_s=60)
    with pytest.raises(FfmpegFailedError, match="No such file"):
        runner.run([*file_input(tmp_path / "missing.mp4"), str(tmp_path / "out.mp4")])


def test_a_failure_is_one_line_for_the_job_and_the_whole_tail_for_the_log(tmp_path):
    noisy = "".join(f"[h264 @ 0x55d0c0ffee{i:02d}] Invalid NAL unit size ({i} > 99).\\n"
                    for i in range(40))
    runner = FfmpegRunner(script(tmp_path, f"printf '{noisy}Conversion failed!\\n' >&2\nexit 1\n"),
                          timeout_s=10)
    with pytest.raises(FfmpegFailedError) as failed:
        runner.run(["-version"], what="split into segments")
    assert str(failed.value) == "split into segments: ffmpeg exited with 1: Conversion failed!"
    assert "Invalid NAL unit size (39 > 99)." in failed.value.stderr


def test_an_input_that_stops_decoding_is_a_damaged_video(tmp_path):
    rate = "[vist#0:0/h264 @ 0x5633f6585a40] Decode error rate 0.92 exceeds maximum 0.67\\n"
    runner = FfmpegRunner(script(tmp_path, f"printf '{rate}' >&2\nexit 69\n"), timeout_s=10)
    with pytest.raises(FfmpegUndecodableError) as failed:
        runner.run(["-version"], what="split into segments")
    assert failed.value.code == "invalid_media"  # the upload's fault: Retry is not offered
    assert str(failed.value).startswith("The video is damaged: too many of its pictures cannot "
                                        "be decoded (split into segments stopped).")


def test_a_playlist_input_is_not_followed(tmp_path):
    target = tmp_path / "other.txt"
    target.write_text("secret")
    playlist = tmp_path / "list.mp4"
    playlist.write_text(f"#EXTM3U\n#EXTINF:1.0,\n{target}\n#EXT-X-ENDLIST\n")
    runner = FfmpegRunner(ffmpeg_path(), timeout_s=60)
    with pytest.raises(FfmpegFailedError):
        runner.run([*file_input(playlist), "-c", "copy", str(tmp_path / "out.mp4")])
    assert not (tmp_path / "out.mp4").exists()


def test_ffmpeg_past_its_time_limit_is_stopped(tmp_path):
    runner = FfmpegRunner(script(tmp_path, "exec sleep 30\n"), timeout_s=0.5, tick_s=0.1)
    ticks = []
    with pytest.raises(FfmpegTimeoutError, match="longer than 0.5 s"):
        runner.run(["-version"], on_tick=lambda: ticks.append(1))
    assert ticks  # the lease/visibility hook ran while it waited


def test_ffmpeg_killed_by_a_signal_is_transient(tmp_path):
    runner = FfmpegRunner(script(tmp_path, "echo dying >&2\nkill -9 $$\n"), timeout_s=10)
    with pytest.raises(FfmpegKilledError, match="SIGKILL"):
        runner.run(["-version"])


def test_an_error_from_the_tick_hook_stops_ffmpeg(tmp_path):
    from shared_types.errors import LeaseLostError

    pid_file = tmp_path / "pid"
    runner = FfmpegRunner(script(tmp_path, f"echo $$ > '{pid_file}'\nexec sleep 30\n"),
                          timeout_s=30, tick_s=0.1)

    def lease_lost():
        raise LeaseLostError("retaken")

    with pytest.raises(LeaseLostError):
        runner.run(["-version"], on_tick=lease_lost)
    with pytest.raises(ProcessLookupError):  # killed and reaped, not left running
        os.kill(int(pid_file.read_text()), 0)
