"""The ffmpeg runner: errors carry ffmpeg's own words; the wall clock is enforced;
inputs are local files in known containers only."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from shared_types.ffmpeg import ffmpeg_path

from media_worker.errors import FfmpegFailedError, FfmpegKilledError, FfmpegTimeoutError
from media_worker.ffmpeg_runner import FfmpegRunner, file_input


def script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "fake-ffmpeg"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_a_failure_reports_the_tail_of_ffmpeg_stderr(tmp_path):
    runner = FfmpegRunner(ffmpeg_path(), timeout_s=60)
    with pytest.raises(FfmpegFailedError, match="No such file"):
        runner.run([*file_input(tmp_path / "missing.mp4"), str(tmp_path / "out.mp4")])


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
