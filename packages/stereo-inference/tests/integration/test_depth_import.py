"""``convert --depth-video``: render with an exported (and perhaps edited) depth video."""

import av
import numpy as np
import pytest

from stereo_inference.cli import main
from stereo_inference.convert import convert_file
from stereo_inference.depth_export import export_depth
from stereo_inference.errors import InvalidInputError


def _planes(path):
    with av.open(str(path)) as c:
        return [f.to_ndarray(format="gray16le") for f in c.decode(video=0)]


def _write(path, planes, rate=24):
    with av.open(str(path), "w", format="matroska") as out:
        stream = out.add_stream("ffv1", rate=rate)
        stream.height, stream.width = planes[0].shape
        stream.pix_fmt = "gray16le"
        for plane in planes:
            out.mux(stream.encode(av.VideoFrame.from_ndarray(plane, format="gray16le")))
        out.mux(stream.encode(None))
    return path


def _luma(path):
    with av.open(str(path)) as c:
        return np.stack([f.to_ndarray(format="gray").astype(np.float32)
                         for f in c.decode(video=0)])


def test_the_exported_depth_renders_like_the_estimate_and_an_edit_changes_it(clip, tmp_path):
    depth = tmp_path / "depth.mkv"
    export_depth(clip, depth)
    estimated = convert_file(clip, tmp_path / "estimated.mp4", mode="sbs")
    imported = convert_file(clip, tmp_path / "imported.mp4", mode="sbs", depth_video=depth)
    assert (imported.frames, imported.depth_model) == (estimated.frames, "depth-video")
    inverted = _write(tmp_path / "inverted.mkv", [65535 - p for p in _planes(depth)])
    convert_file(clip, tmp_path / "edited.mp4", mode="sbs", depth_video=inverted)
    same = np.abs(_luma(tmp_path / "imported.mp4") - _luma(tmp_path / "estimated.mp4")).mean()
    edited = np.abs(_luma(tmp_path / "edited.mp4") - _luma(tmp_path / "estimated.mp4")).mean()
    assert same < 1.0  # levels of 255: the same depth, read back from 16 bits
    assert edited > 3 * same + 0.5


def test_a_depth_video_with_too_few_frames_is_refused_before_anything_is_written(clip,
                                                                                 tmp_path):
    short = _write(tmp_path / "short.mkv", [np.full((96, 160), 30000, np.uint16)] * 10)
    with pytest.raises(InvalidInputError, match="has 10 frames; the source has 24"):
        convert_file(clip, tmp_path / "out.mp4", mode="sbs", depth_video=short)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["short.mkv"]


def test_a_depth_video_of_another_shape_or_not_grey_is_refused(clip, tmp_path):
    square = _write(tmp_path / "square.mkv", [np.zeros((96, 96), np.uint16)] * 24)
    with pytest.raises(InvalidInputError, match="expected 160x96"):
        convert_file(clip, tmp_path / "out.mp4", mode="sbs", depth_video=square)
    with pytest.raises(InvalidInputError, match="expected grey"):
        convert_file(clip, tmp_path / "out.mp4", mode="sbs", depth_video=clip)
    with pytest.raises(InvalidInputError, match="does not exist"):
        convert_file(clip, tmp_path / "out.mp4", mode="sbs", depth_video=tmp_path / "no.mkv")
    assert not (tmp_path / "out.mp4").exists()


def test_the_cli_takes_a_depth_video_and_says_why_it_refuses_one(clip, tmp_path, capsys,
                                                                 monkeypatch):
    monkeypatch.setenv("STEREO_SPOT_MODELS_DIR", str(tmp_path / "models"))
    half = _write(tmp_path / "half.mkv", [np.full((48, 80), 40000, np.uint16)] * 24)
    out = tmp_path / "out.mp4"
    assert main(["convert", str(clip), str(out), "--depth-video", str(half),
                 "--no-progress"]) == 0
    assert "24 frames" in capsys.readouterr().out
    short = _write(tmp_path / "short.mkv", [np.zeros((48, 80), np.uint16)] * 3)
    assert main(["convert", str(clip), str(tmp_path / "x.mp4"), "--depth-video", str(short),
                 "--no-progress"]) == 2
    assert "has 3 frames" in capsys.readouterr().err
