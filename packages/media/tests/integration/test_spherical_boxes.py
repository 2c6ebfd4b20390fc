"""VR180 boxes: added to an MP4 (faststart too), read back, and the file still plays."""

import subprocess

import av

from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.spherical_boxes import HALF_SPHERE_BOUNDS, add_vr180_metadata, read_sv3d
from stereo_media.stereo_boxes import read_st3d


def _mp4(path, faststart):
    args = ["-movflags", "+faststart"] if faststart else []
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    "testsrc2=size=128x64:rate=10", "-t", "1", "-c:v", "libx264", *args,
                    str(path)], check=True, timeout=60)
    return path


def test_vr180_boxes_are_read_back_and_the_file_still_decodes(tmp_path):
    for faststart in (False, True):
        path = _mp4(tmp_path / f"v{faststart}.mp4", faststart)
        assert read_sv3d(path) is None and read_st3d(path) is None  # negative control
        add_vr180_metadata(path)
        add_vr180_metadata(path)  # a second time adds nothing
        spherical = read_sv3d(path)
        assert spherical.bounds == HALF_SPHERE_BOUNDS
        assert (spherical.projection, spherical.writer) == ("equirectangular", "StereoSpot")
        assert read_st3d(path) == 2
        with av.open(str(path)) as container:
            assert sum(1 for _ in container.decode(video=0)) == 10
