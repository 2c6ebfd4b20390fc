"""``stereo-spot convert`` with the comfort options: the pipeline's per-segment
reports merged into one beside the output; a depth video converted in one piece."""

import json
import subprocess
import sys
from pathlib import Path

from local_stack.testing.media import video_facts


def test_the_pipeline_writes_one_comfort_report_over_all_segments(clip_12s, tmp_path: Path,
                                                                  stack_env, run_cli):
    out = tmp_path / "out.mp4"
    result = run_cli(["convert", str(clip_12s), "-o", str(out), "--workers", "2",
                      "--segment-seconds", "4", "--viewing", "tv-55", "--floating-window",
                      "--auto-convergence"], stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    report = json.loads((tmp_path / "out.mp4.comfort.json").read_text())
    shots = report["shots"]
    assert report["viewing"]["preset"] == "tv-55" and report["viewing"]["rule"] == "1 degree"
    assert shots[0]["start_s"] == 0 and abs(shots[-1]["end_s"] - 12.0) < 0.05
    for before, after in zip(shots, shots[1:], strict=False):
        assert abs(after["start_s"] - before["end_s"]) < 0.05  # contiguous
        # a segment's seam is no shot boundary; only a cut found in the picture is
        assert after["opens_at_cut"] is True
    assert sum(s["frames"] for s in shots) == video_facts(out).frames


def test_a_depth_video_is_converted_in_one_piece(clip_12s, tmp_path: Path, stack_env,
                                                 run_cli):
    depth = tmp_path / "depth.mkv"
    env = stack_env(tmp_path / "data")
    exported = run_cli(["convert", str(clip_12s), "-o", str(tmp_path / "plain.mp4"),
                        "--comfort", "off"], env)
    assert exported.returncode == 0, exported.stderr
    assert not (tmp_path / "plain.mp4.comfort.json").exists()
    bin_dir = Path(sys.executable).parent
    subprocess.run([str(bin_dir / "stereo-inference"), "depth", str(clip_12s), str(depth),
                    "--no-progress"], check=True, env=env, capture_output=True, timeout=600)
    out = tmp_path / "imported.mp4"
    result = run_cli(["convert", str(clip_12s), "-o", str(out), "--depth-video", str(depth)],
                     env)
    assert result.returncode == 0, result.stderr + result.stdout
    assert "depth from depth.mkv" in result.stdout
    assert video_facts(out).frames == 12 * 24
    wrong = run_cli(["convert", str(clip_12s), "-o", str(tmp_path / "w.mp4"),
                     "--depth-video", str(tmp_path / "missing.mkv")], env)
    assert wrong.returncode != 0 and "missing.mkv" in wrong.stderr  # one clear line
