"""``stereo-spot convert`` end to end: real worker processes, ffmpeg, SQLite, heuristic depth."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from local_adapters import build_backend
from shared_types.models import JobStatus
from shared_types.testing.waiting import wait_until
from stereo_media.testing.media import make_video

from local_stack.settings import StackSettings
from local_stack.testing.media import video_facts

VENV_BIN = Path(sys.executable).parent

W, H, FRAMES = 160, 96, 12 * 24

GEOMETRY = {
    "sbs": (2 * W, H),
    "half-sbs": (W, H),
    "tb": (W, 2 * H),
    "half-tb": (W, H),
    "anaglyph": (W, H),
}


@pytest.mark.parametrize("mode", list(GEOMETRY))
def test_convert_writes_a_3d_video_with_the_source_timing_and_audio(
    mode, clip_12s, tmp_path: Path, stack_env, run_cli
):
    out = tmp_path / f"out-{mode}.mp4"
    result = run_cli(["convert", str(clip_12s), "-o", str(out), "--mode", mode,
                      "--workers", "2", "--segment-seconds", "4"],
                     stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    facts = video_facts(out)
    assert (facts.width, facts.height) == GEOMETRY[mode]
    assert facts.frames == FRAMES
    assert abs(facts.duration_s - 12.0) < 1 / 24 + 1e-3
    assert facts.has_audio
    assert "segment(s)" in result.stdout


def test_convert_of_a_file_that_is_not_a_video_fails_with_one_line(
    tmp_path: Path, stack_env, run_cli
):
    bogus = tmp_path / "notes.mp4"
    bogus.write_text("these are my holiday notes, not a video\n" * 20)
    result = run_cli(["convert", str(bogus), "-o", str(tmp_path / "o.mp4"), "--workers", "1"],
                     stack_env(tmp_path / "data"))
    assert result.returncode == 1
    # the reason, once: the media worker's own log lines (it runs as threads of
    # this process) go to its log file, as a child's would
    assert result.stderr.strip().splitlines() == [
        "stereo-spot: conversion failed during chunking: The file is not a video we can "
        "read (it is not in a known video format, or it is damaged)."]
    assert not (tmp_path / "o.mp4").exists()


def test_a_download_cut_off_near_its_end_is_converted_as_far_as_it_goes(
    tmp_path: Path, stack_env, run_cli
):
    # a faststart MP4 whose last tenth is missing (a download that stopped;
    # short enough of its length to be taken, not refused as incomplete): its
    # last segment ends in a packet cut mid-way, which the decoder refuses; the
    # engine ran alone converted it, the stack failed the whole job on it
    whole = make_video(tmp_path / "whole.mp4", seconds=6.0, size=(320, 180), fps=24)
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size * 9 // 10])
    out = tmp_path / "out.mp4"
    result = run_cli(["convert", str(cut), "-o", str(out), "--workers", "1",
                      "--segment-seconds", "1"], stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    assert 96 <= video_facts(out).frames < 144


def _live_video_workers(marker: str) -> list[int]:
    """Pids of running video-workers started with ``marker`` in their environment."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline, environ = (entry / "cmdline").read_bytes(), (entry / "environ").read_bytes()
        except OSError:  # gone meanwhile, or not ours
            continue
        if b"video-worker" in cmdline and marker.encode() in environ:
            pids.append(int(entry.name))
    return pids


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux's /proc")
@pytest.mark.parametrize("kept_data", [True, False], ids=["data-dir", "temporary"])
def test_a_convert_killed_mid_job_cancels_it_and_leaves_no_worker_or_files(
    kept_data, tmp_path: Path, stack_env
):
    """SIGTERM (``kill``, a closed terminal's SIGHUP alike) ends ``convert`` the
    way Ctrl-C does: its job is cancelled, not left in progress with nobody to
    finish it, its workers are gone and its temporary folder is removed."""
    clip = make_video(tmp_path / "long.mp4", seconds=20, size=(640, 360), fps=24)
    tmp, data, out = tmp_path / "tmp", tmp_path / "data", tmp_path / "out.mp4"
    tmp.mkdir()
    env = {**stack_env(data), "TMPDIR": str(tmp)}
    args = [str(VENV_BIN / "stereo-spot"), "convert", str(clip), "-o", str(out),
            "--workers", "1", "--segment-seconds", "4"]
    proc = subprocess.Popen([*args, *(["--data-dir", str(data)] if kept_data else [])],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        def converting() -> bool:
            return any("inference attempt" in log.read_text()
                       for log in tmp_path.glob("**/logs/video-worker-*.log"))

        assert wait_until(converting, timeout_s=120), "no segment conversion ever started"
        # without --data-dir the job's store is a hidden folder beside the output
        assert (list(tmp_path.glob(".stereo-spot-*")) == []) == kept_data
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr
    assert not out.exists()
    assert _live_video_workers(str(tmp)) == []
    if kept_data:
        backend = build_backend(StackSettings(_env_file=None, data_dir=data))
        [job] = backend.jobs.list_by_status(JobStatus.CANCELLED).items
        assert backend.jobs.list_in_progress() == []
    else:
        assert list(tmp_path.glob(".stereo-spot-*")) == []
        assert list(tmp.glob("stereo-spot-*")) == []


def test_a_job_whose_convert_was_sigkilled_is_cancelled_by_the_next_convert_there(
        tmp_path: Path, stack_env, run_cli):
    """SIGKILL leaves ``convert`` no way out: its job stayed in progress in the
    kept --data-dir with no worker left. The next convert on that folder sees the
    dead command's lock free and cancels the job; the new one converts."""
    data = tmp_path / "data"
    env = stack_env(data)
    long = make_video(tmp_path / "long.mp4", seconds=20, size=(320, 180), fps=24)
    proc = subprocess.Popen(
        [str(VENV_BIN / "stereo-spot"), "convert", str(long), "-o", str(tmp_path / "a.mp4"),
         "--workers", "1", "--segment-seconds", "2", "--data-dir", str(data)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    backend = build_backend(StackSettings(_env_file=None, data_dir=data))
    try:
        assert wait_until(lambda: data.joinpath("state.sqlite3").exists()
                          and backend.jobs.list_in_progress() != [], timeout_s=120)
        [orphan] = backend.jobs.list_in_progress()
        proc.kill()
        proc.wait(timeout=30)
    finally:
        proc.kill()
    assert not backend.jobs.get(orphan.job_id).status.is_final  # nobody will end it

    result = run_cli(["convert", str(make_video(tmp_path / "short.mp4", seconds=2)), "-o",
                      str(tmp_path / "b.mp4"), "--workers", "1", "--data-dir", str(data)], env)

    assert result.returncode == 0, result.stderr
    assert backend.jobs.get(orphan.job_id).status == JobStatus.CANCELLED
    assert backend.jobs.list_in_progress() == []
    assert list((data / "owners").glob("*.lock")) == []


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux's /proc")
def test_a_video_worker_sigkilled_mid_segment_still_gives_every_frame_and_leaves_no_temp(
        tmp_path: Path, stack_env):
    """SIGKILL (the OOM killer's signal) mid-segment: the supervisor restarts the
    worker, the segment is converted again, and the killed worker's temp folder
    (the segment and its half-written output) is removed when the command ends."""
    clip = make_video(tmp_path / "clip.mp4", seconds=12, size=(320, 192), fps=24)
    tmp, data, out = tmp_path / "tmp", tmp_path / "data", tmp_path / "out.mp4"
    tmp.mkdir()
    work = data / "work"  # stack_env's STEREO_SPOT_WORK_DIR: every worker's temp folders
    proc = subprocess.Popen(
        [str(VENV_BIN / "stereo-spot"), "convert", str(clip), "-o", str(out), "--workers", "1",
         "--segment-seconds", "4", "--data-dir", str(data)],
        env={**stack_env(data), "TMPDIR": str(tmp)}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        assert wait_until(lambda: any(work.glob("vw-*")), timeout_s=120), "no segment started"
        killed = _live_video_workers(str(tmp))
        for pid in killed:
            os.kill(pid, signal.SIGKILL)
        _, stderr = proc.communicate(timeout=240)
    finally:
        proc.kill()
    assert killed, "no video-worker to kill"
    assert proc.returncode == 0, stderr
    assert video_facts(out).frames == 12 * 24
    assert sorted(p.name for p in work.iterdir()) == []


@pytest.mark.skipif((os.cpu_count() or 1) > 3,
                    reason="only workers that would share cores are fitted; this machine "
                           "gives two workers two cores each")
def test_a_short_video_runs_on_one_worker_with_every_core_when_two_would_share_them(
    clip_4s, tmp_path: Path, stack_env, run_cli
):
    out, data = tmp_path / "out.mp4", tmp_path / "data"
    result = run_cli(["convert", str(clip_4s), "-o", str(out), "--workers", "2",
                      "--segment-seconds", "1", "--data-dir", str(data)],
                     stack_env(data, STEREO_SPOT_FIT_WORKERS="true"))
    assert result.returncode == 0, result.stderr + result.stdout
    assert "1 video-worker(s) instead of 2" in result.stdout
    assert [p.name for p in (data / "logs").glob("video-worker-*.log")] == ["video-worker-1.log"]
    assert video_facts(out).frames == 4 * 24
