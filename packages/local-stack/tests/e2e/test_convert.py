"""``stereo-spot convert`` end to end: real worker processes, ffmpeg, SQLite, heuristic depth."""

from pathlib import Path

import pytest

from local_stack.testing.media import video_facts

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
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("stereo-spot: conversion failed during chunking")
    assert not (tmp_path / "o.mp4").exists()
