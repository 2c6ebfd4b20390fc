"""``stereo-inference depth``: 16-bit grey FFV1 depth, frame for frame, nearer is larger."""

import av
import numpy as np
import pytest

from stereo_inference.cli import main
from stereo_inference.depth_export import export_depth
from stereo_inference.errors import InvalidInputError


def _read(path):
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = [f.to_ndarray() for f in container.decode(stream)]
        return stream.codec_context.name, stream.format.name, frames


def test_the_cli_writes_one_16_bit_depth_frame_per_input_frame(clip, tmp_path, capsys,
                                                                monkeypatch):
    monkeypatch.setenv("STEREO_SPOT_MODELS_DIR", str(tmp_path / "models"))
    out = tmp_path / "depth.mkv"
    assert main(["depth", str(clip), str(out), "--no-progress"]) == 0
    assert "depth of 24 frames (heuristic)" in capsys.readouterr().out
    codec, pix_fmt, frames = _read(out)
    assert (codec, pix_fmt, len(frames)) == ("ffv1", "gray16le", 24)
    first = frames[0]
    assert first.dtype == np.uint16
    assert first.shape == (96, 160)
    assert first.max() > 255 * 200  # uses the 16-bit range, not 8 bits
    # the heuristic puts the bottom of a frame nearer: nearer must be larger
    assert first[-8:].mean() > first[:8].mean() + 5000


def test_a_file_that_is_not_a_video_is_refused_and_leaves_nothing(tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"no video here" * 100)
    with pytest.raises(InvalidInputError):
        export_depth(bad, tmp_path / "d.mkv")
    assert list(tmp_path.iterdir()) == [bad]


def test_iw3_has_no_frame_depth(clip, tmp_path):
    with pytest.raises(InvalidInputError, match="iw3"):
        export_depth(clip, tmp_path / "d.mkv", depth_model="iw3")
