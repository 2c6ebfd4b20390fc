"""Frames made ready on the device (here a CPU tensor: the same torch code as on a GPU)."""

import av
import cv2
import numpy as np
import pytest
import torch

from stereo_inference import planes
from stereo_inference.device_frames import (
    depth_input,
    eye_planes,
    join_planes,
    split_planes,
    upload,
)
from stereo_inference.remap import shrink

BT709_LIMITED = (1, 1, 1, 1)
BT601_LIMITED = (6, 6, 6, 1)
BT709_FULL = (1, 1, 1, 2)


def colourful(h: int = 64, w: int = 96) -> np.ndarray:
    """Smooth saturated colours (chroma subsampling loses little of them)."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    rgb = np.stack([x / w, y / h, 1 - (x + y) / (w + h)], axis=-1)
    return (rgb * 235 + 10).astype(np.uint8)


def as_yuv(rgb: np.ndarray, colorspace: str, color_range: str) -> np.ndarray:
    frame = av.VideoFrame.from_ndarray(rgb, format="rgb24").reformat(
        format="yuv420p", dst_colorspace=colorspace, dst_color_range=color_range)
    out = np.empty((rgb.shape[0] * 3 // 2, rgb.shape[1]), np.uint8)
    planes.read_into(frame, out)
    return out


def rgb_error(rgb: np.ndarray, yuv: np.ndarray, color, bit_depth: int = 8) -> float:
    h, w = rgb.shape[:2]
    got = depth_input(upload(yuv[None], "cpu"), (w, h), color, bit_depth)[0]
    want = torch.from_numpy(rgb).permute(2, 0, 1).float() / 255
    return float((got - want).abs().mean())


def test_depth_input_reads_the_sources_matrix_and_range():
    rgb = colourful()
    limited = as_yuv(rgb, "ITU709", "MPEG")
    assert rgb_error(rgb, limited, BT709_LIMITED) < 0.01
    # negative controls: the wrong matrix or range is visibly off
    assert rgb_error(rgb, limited, BT601_LIMITED) > 0.02
    assert rgb_error(rgb, limited, BT709_FULL) > 0.02
    full = as_yuv(rgb, "ITU709", "JPEG")
    assert rgb_error(rgb, full, BT709_FULL) < 0.01


def test_depth_input_without_a_colour_description_picks_by_height():
    rgb = colourful()  # 64 lines: BT.601
    assert rgb_error(rgb, as_yuv(rgb, "ITU601", "MPEG"), None) < 0.01


def test_ten_bit_samples_give_the_eight_bit_picture():
    rgb = colourful()
    yuv = as_yuv(rgb, "ITU709", "MPEG")
    ten = (yuv.astype(np.uint16) << 2)
    assert upload(ten[None], "cpu").dtype == torch.int16
    assert rgb_error(rgb, ten, BT709_LIMITED, bit_depth=10) < 0.01


def test_depth_input_is_at_the_models_size():
    yuv = as_yuv(colourful(64, 96), "ITU709", "MPEG")
    rgb = depth_input(upload(np.stack([yuv, yuv]), "cpu"), (42, 28), BT709_LIMITED)
    assert rgb.shape == (2, 3, 28, 42) and rgb.dtype == torch.float32
    assert 0 <= float(rgb.min()) and float(rgb.max()) <= 1


@pytest.mark.parametrize("size", [(48, 64), (48, 32)])  # half width, half height
def test_eye_planes_average_like_the_cpu_paths_shrink(size):
    w, h = size
    frames = np.random.default_rng(1).integers(0, 256, (2, 96, 96), dtype=np.uint8)
    got = join_planes(*eye_planes(upload(frames, "cpu"), size)).numpy()
    assert got.shape == (2, h * 3 // 2, w)
    for i in range(2):
        luma, chroma = (p.numpy() for p in split_planes(torch.from_numpy(frames[i:i + 1])))
        want_luma = shrink(luma[0, 0], w, h)
        want_u = shrink(chroma[0, 0], w // 2, h // 2)
        assert np.abs(got[i, :h] - want_luma).max() <= 0.5  # OpenCV rounds, this does not
        assert np.abs(got[i, h:h + h // 4].reshape(h // 2, w // 2) - want_u).max() <= 0.5


def test_eye_planes_of_frames_of_that_size_are_views_of_them():
    frames = upload(np.zeros((1, 96, 64), np.uint8), "cpu")
    for size in ((64, 64), None):
        luma, chroma = eye_planes(frames, size)
        assert luma.dtype == chroma.dtype == torch.uint8  # not even converted
        assert luma.data_ptr() == frames.data_ptr()
        assert join_planes(luma, chroma).equal(frames)


def test_a_source_smaller_than_the_models_input_is_upscaled_smoothly():
    """Depth-Anything's reference upscales a small source (cubic); area would
    repeat each pixel, a staircase the model never saw."""
    rgb = colourful(32, 48)
    yuv = as_yuv(rgb, "ITU709", "MPEG")
    up = depth_input(upload(yuv[None], "cpu"), (96, 64), BT709_LIMITED)[0]
    row = up[0, 32]
    steps = (row[1:] - row[:-1]).abs()
    assert float((steps < 1e-6).float().mean()) < 0.1  # no repeated pixels along a gradient
    want = torch.from_numpy(cv2.resize(rgb, (96, 64), interpolation=cv2.INTER_CUBIC))
    assert float((up - want.permute(2, 0, 1).float() / 255).abs().mean()) < 0.01
