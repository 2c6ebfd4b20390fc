"""One kept scaler gives what PyAV's per-frame conversions give, frame after frame."""

from __future__ import annotations

import av
import numpy as np

from stereo_inference.scaler import Scaler


def _frame(width: int, height: int, seed: int, fmt: str = "yuv420p") -> av.VideoFrame:
    rng = np.random.default_rng(seed)
    if fmt == "rgb24":
        return av.VideoFrame.from_ndarray(rng.integers(0, 256, (height, width, 3), np.uint8),
                                          format=fmt)
    planes = rng.integers(16, 236, (height * 3 // 2, width), np.uint8)
    frame = av.VideoFrame.from_ndarray(planes, format=fmt)
    frame.colorspace, frame.color_range = 1, 1  # BT.709, limited
    return frame


def test_the_same_bits_as_each_frames_own_conversion():
    scaler = Scaler()
    for seed in range(6):
        frame = _frame(320, 180, seed)
        for kwargs in ({"width": 32, "height": 18, "format": "rgb24",
                        "interpolation": "FAST_BILINEAR"},
                       {"width": 160, "height": 90, "format": "yuv420p"},
                       {"format": "rgb24"}):
            np.testing.assert_array_equal(scaler.array(frame, **kwargs),
                                          frame.to_ndarray(**kwargs))


def test_a_stream_that_changes_size_and_kind_midway():
    scaler = Scaler()
    frames = [_frame(320, 180, 1), _frame(240, 136, 2), _frame(200, 120, 3, "rgb24"),
              _frame(320, 180, 4)]
    for frame in frames:
        got = scaler.array(frame, width=64, height=36, format="rgb24")
        assert got.shape == (36, 64, 3)
        np.testing.assert_array_equal(got, frame.to_ndarray(width=64, height=36, format="rgb24"))


def test_a_frame_that_needs_nothing_comes_back_as_it_is():
    frame = _frame(64, 36, 5)
    assert Scaler().frame(frame, format="yuv420p") is frame
