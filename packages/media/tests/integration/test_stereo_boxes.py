import subprocess

import pytest

from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.mp4_boxes import Mp4BoxError
from stereo_media.stereo_boxes import add_st3d, read_st3d


def _mp4(path, *extra):
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                    "-i", "testsrc2=size=64x48:rate=10:duration=1", "-f", "lavfi", "-i",
                    "sine=duration=1", "-c:v", "libx264", "-c:a", "aac", *extra, str(path)],
                   check=True, timeout=60)
    return path


def _decoded(path):
    out = subprocess.run([ffmpeg_path(), "-v", "error", "-i", str(path), "-f", "framemd5", "-"],
                         check=True, capture_output=True, timeout=60).stdout
    return [line for line in out.decode().splitlines() if not line.startswith("#")]


@pytest.mark.parametrize("faststart", [True, False])
@pytest.mark.parametrize(("packing", "mode"), [("sbs", 2), ("tb", 1)])
def test_st3d_is_added_and_every_sample_still_decodes(tmp_path, faststart, packing, mode):
    extra = ["-movflags", "+faststart"] if faststart else []
    path = _mp4(tmp_path / "a.mp4", *extra)
    before = _decoded(path)
    assert read_st3d(path) is None
    add_st3d(path, packing)
    assert read_st3d(path) == mode
    assert _decoded(path) == before  # chunk offsets moved with the moov box
    probe = subprocess.run([ffmpeg_path(), "-hide_banner", "-i", str(path)],
                           capture_output=True, timeout=60).stderr.decode()
    assert "Stereo 3D" in probe  # ffmpeg itself reads the box


def test_adding_twice_keeps_one_box(tmp_path):
    path = _mp4(tmp_path / "a.mp4")
    add_st3d(path, "sbs")
    size = path.stat().st_size
    add_st3d(path, "sbs")
    assert path.stat().st_size == size


def test_a_file_that_is_not_mp4_is_refused(tmp_path):
    bad = tmp_path / "x.mp4"
    bad.write_bytes(b"\x00\x00\x00\x10junkjunkjunkjunk")
    with pytest.raises(Mp4BoxError):
        add_st3d(bad, "sbs")
