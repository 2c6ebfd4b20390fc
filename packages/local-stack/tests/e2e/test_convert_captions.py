"""``stereo-spot convert`` keeps closed captions carried in the pictures (A/53)
across segment cuts: a caption shown over a seam stays whole, at its moment;
a caption track of its own (a MOV's c608) comes out as text."""

from pathlib import Path

import pytest
from stereo_media.testing.captions import (
    caption_cues,
    make_caption_track_video,
    make_captioned_video,
    track_cues,
)


@pytest.mark.parametrize("suffix", [".mp4", ".mkv"])
def test_a_broadcast_recordings_captions_survive_the_segments(suffix, tmp_path: Path,
                                                              stack_env, run_cli):
    # shown from ~3.9 s to 5 s: across the cut at 4 s
    source = make_captioned_video(tmp_path / "recording.ts", seconds=8.0, shown_at=3.5,
                                  hidden_at=5.0, text="ACROSS A SEAM")
    out = tmp_path / f"out{suffix}"
    result = run_cli(["convert", str(source), "-o", str(out), "--mode", "half-sbs",
                      "--workers", "1", "--segment-seconds", "2"],
                     stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    cues = caption_cues(source)
    assert [c.text for c in cues] == ["ACROSS A SEAM"] and cues[0].start_s < 4 < cues[0].end_s
    assert caption_cues(out) == cues


def test_a_caption_track_comes_out_as_text(tmp_path: Path, stack_env, run_cli):
    source = make_caption_track_video(tmp_path / "edit.mov", text="FROM A TRACK")
    out = tmp_path / "out.mp4"
    result = run_cli(["convert", str(source), "-o", str(out), "--workers", "1",
                      "--segment-seconds", "1"], stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    assert "not in this file" not in result.stdout
    assert [c.text for c in track_cues(out)] == ["FROM A TRACK"]
    assert track_cues(out) == track_cues(source)
