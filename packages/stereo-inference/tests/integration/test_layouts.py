"""Layouts and encoding end to end: VR180 read back with its metadata, cross-eyed,
RGBD, x265 and AV1 outputs that decode, and a frame-rate cap."""

import subprocess

import av
import numpy as np
import pytest
from shared_types.models import ConversionParams
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.spherical_boxes import HALF_SPHERE_BOUNDS, read_sv3d
from stereo_media.stereo_boxes import read_st3d

from stereo_inference.convert import convert_file
from stereo_inference.errors import InvalidRequestError

from .conftest import read_video


def _convert(clip, out, mode, **params):
    return convert_file(clip, out, mode=mode, start_at_zero=True,
                        params=ConversionParams(preset="ultrafast", **params))


def _ffmpeg_says(path) -> str:
    """What ffmpeg (as a player's demuxer) reads of the file's first video stream."""
    run = subprocess.run([ffmpeg_path(), "-hide_banner", "-i", str(path)],
                         capture_output=True, text=True, timeout=60)
    return run.stderr


def test_a_vr180_file_reads_back_with_its_spherical_and_stereo_metadata(clip, tmp_path):
    out = tmp_path / "vr.mp4"
    result = _convert(clip, out, "vr180")
    assert (result.width, result.height) == (320, 160)  # one 160x160 half sphere per eye
    assert read_st3d(out) == 2  # left-right
    spherical = read_sv3d(out)
    assert spherical is not None and spherical.projection == "equirectangular"
    assert spherical.bounds == HALF_SPHERE_BOUNDS  # the front half of the sphere
    said = _ffmpeg_says(out)
    assert "Spherical Mapping: tiled equirectangular" in said
    assert "Stereo 3D: side by side" in said
    facts = read_video(out)
    assert facts["frames"] == 24 and facts["audio"] == 1
    picture = facts["first"].astype(int)
    # the flat picture sits straight ahead in each eye; the sphere behind it is black
    for eye in (picture[:, :160], picture[:, 160:]):
        assert eye[70:90, 70:90].mean() > 40
        assert eye[:10, :10].max() < 30 and eye[:, :20].mean() < 10


def test_a_vr180_mkv_carries_projection_and_stereo_mode(clip, tmp_path):
    out = tmp_path / "vr.mkv"
    _convert(clip, out, "vr180")
    said = _ffmpeg_says(out)
    assert "Spherical Mapping: tiled equirectangular" in said
    assert "stereo_mode     : left_right" in said


def test_a_flat_layout_has_no_spherical_metadata(clip, tmp_path):
    out = tmp_path / "sbs.mp4"
    _convert(clip, out, "half-sbs")
    assert read_st3d(out) == 2 and read_sv3d(out) is None  # negative control
    assert "Spherical" not in _ffmpeg_says(out)


def test_cross_eyed_swaps_the_views_and_says_no_left_right(clip, tmp_path, encoded):
    _convert(clip, tmp_path / "lr.mp4", "sbs")
    _convert(clip, tmp_path / "rl.mp4", "sbs", cross_eyed=True)
    plain, crossed = encoded[0][3], encoded[1][3]
    w = plain.shape[1] // 2
    h = plain.shape[0] * 2 // 3
    assert not np.array_equal(plain[:h, :w], plain[:h, w:])  # the views differ...
    assert np.array_equal(crossed[:h, :w], plain[:h, w:])  # ...and trade places
    assert np.array_equal(crossed[:h, w:], plain[:h, :w])
    assert read_st3d(tmp_path / "rl.mp4") is None  # no player is told "left first"
    with pytest.raises(InvalidRequestError, match="side-by-side"):
        _convert(clip, tmp_path / "tb.mp4", "tb", cross_eyed=True)


@pytest.mark.parametrize(("mode", "size"), [("rgbd", (320, 96)), ("half-rgbd", (160, 96))])
def test_rgbd_puts_the_picture_beside_its_depth(clip, tmp_path, encoded, mode, size):
    result = _convert(clip, tmp_path / "o.mp4", mode)
    assert (result.width, result.height) == size
    frame = encoded[0][0]
    h, w = 96, size[0] // 2
    picture, depth = frame[:h, :w].astype(int), frame[:h, w:].astype(int)
    chroma = frame[h:].reshape(2, h // 2, size[0] // 2)
    assert (chroma[:, :, w // 2:] == 128).all()  # the depth is grey
    assert 16 <= depth.min() and depth.max() <= 235 and depth.std() > 5
    assert picture.std() > 20 and not np.array_equal(picture, depth)
    assert read_st3d(tmp_path / "o.mp4") is None  # not a stereo pair


@pytest.mark.parametrize(("codec", "pix_fmt", "name"), [
    ("x265", None, "hevc"), ("av1", None, "av1"), ("av1", "yuv420p10le", "av1"),
])
def test_x265_and_av1_outputs_decode_every_frame(clip, tmp_path, codec, pix_fmt, name):
    out = tmp_path / f"{codec}.mkv"
    _convert(clip, out, "half-sbs", codec=codec, pix_fmt=pix_fmt)
    with av.open(str(out)) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.codec.name in (name, "libdav1d")
        frames = list(container.decode(stream))
        assert len(container.streams.audio) == 1
    assert len(frames) == 24
    assert frames[0].format.name == (pix_fmt or "yuv420p")
    assert "stereo_mode     : left_right" in _ffmpeg_says(out)


def test_a_bitrate_asks_for_that_many_bits(clip, tmp_path):
    small, large = tmp_path / "s.mp4", tmp_path / "l.mp4"
    _convert(clip, small, "half-sbs", bitrate_kbps=100)
    _convert(clip, large, "half-sbs", bitrate_kbps=2000)
    assert small.stat().st_size * 3 < large.stat().st_size


def test_max_fps_leaves_out_frames_and_keeps_the_timeline(clip, tmp_path):
    out = tmp_path / "o.mp4"
    _convert(clip, out, "half-sbs", max_fps=12)
    facts = read_video(out)
    assert facts["frames"] == 12
    assert facts["times"][:3] == [0.0, pytest.approx(1 / 12, abs=1e-3),
                                  pytest.approx(2 / 12, abs=1e-3)]
    with av.open(str(out)) as container:
        assert float(container.duration / 1e6) == pytest.approx(1.0, abs=0.1)
