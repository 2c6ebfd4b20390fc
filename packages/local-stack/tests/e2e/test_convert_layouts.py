"""The pipeline carries the layout and codec options: VR180 in HEVC and AV1,
cut into segments, joined, and read back with its spherical metadata."""

import subprocess
from pathlib import Path

import av
import pytest
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.spherical_boxes import HALF_SPHERE_BOUNDS, read_sv3d
from stereo_media.stereo_boxes import read_st3d
from stereo_media.testing.media import make_video


@pytest.mark.parametrize(("codec", "suffix", "decoder"), [
    ("x265", "mp4", "hevc"), ("av1", "mkv", "av1"),
])
def test_a_vr180_conversion_through_the_pipeline_reads_back_as_vr180(
    codec, suffix, decoder, tmp_path: Path, stack_env, run_cli
):
    source = make_video(tmp_path / "src.mp4", seconds=3.0, gop=24)
    out = tmp_path / f"out.{suffix}"
    result = run_cli(["convert", str(source), "-o", str(out), "--mode", "vr180",
                      "--codec", codec, "--workers", "2", "--segment-seconds", "1"],
                     stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    assert "(3 segment(s))" in result.stdout  # joined from pieces
    with av.open(str(out)) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.codec.name in (decoder, "libdav1d")
        assert (stream.width, stream.height) == (320, 160)
        assert sum(1 for _ in container.decode(stream)) == 72
    said = subprocess.run([ffmpeg_path(), "-hide_banner", "-i", str(out)],
                          capture_output=True, text=True, timeout=60).stderr
    assert "Spherical Mapping: tiled equirectangular" in said
    assert "Stereo 3D: side by side" in said
    if suffix == "mp4":
        assert read_st3d(out) == 2
        assert read_sv3d(out).bounds == HALF_SPHERE_BOUNDS


def test_start_and_end_convert_that_part_through_the_pipeline(tmp_path: Path, stack_env,
                                                               run_cli):
    source = make_video(tmp_path / "src.mp4", seconds=4.0, gop=24)
    out = tmp_path / "part.mp4"
    result = run_cli(["convert", str(source), "-o", str(out), "--start", "1.5", "--end", "3",
                      "--max-fps", "12", "--workers", "1", "--segment-seconds", "1"],
                     stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    with av.open(str(out)) as container:
        frames = list(container.decode(video=0))
        assert len(container.streams.audio) == 1
    assert len(frames) == 18  # 1.5 s at 12 of the source's 24 fps
    assert float(frames[0].time) == 0.0
    assert not list(tmp_path.glob("**/.span-*"))
