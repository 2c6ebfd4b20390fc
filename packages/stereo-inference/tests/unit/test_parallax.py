"""parallax: dense flow between small grey frames, whatever their size."""

import cv2
import numpy as np
import pytest

from stereo_inference.depth.parallax import FlowField
from stereo_inference.testing import real_scene


def _texture(shape) -> np.ndarray:
    noise = np.random.default_rng(0).random((72, 128)) * 255
    return cv2.GaussianBlur(noise.astype(np.uint8), (0, 0), 2)[: shape[0], : shape[1]]


@pytest.mark.parametrize("shape", [(8, 2), (2, 8), (8, 10), (11, 11), (8, 128)])
def test_frames_smaller_than_the_flows_patches_still_get_a_flow(shape):
    """(a 2x2 source's depth input is 2x8: DIS alone refuses under ~12 px a side)"""
    prev = _texture(shape)
    flow, consistency = FlowField().backward(np.roll(prev, 1, axis=1), prev)
    assert flow.shape == (*shape, 2) and consistency.shape == shape
    assert np.isfinite(flow).all()


def test_a_tiny_frames_flow_is_in_its_own_pixels():
    prev = _texture((8, 10))
    flow, _ = FlowField().backward(np.roll(prev, 1, axis=1), prev)  # moved 1 px right
    assert -1.5 < float(np.median(flow[..., 0])) < -0.3


@pytest.mark.skipif(not real_scene.available(), reason="real scenes not in this checkout")
def test_an_exposure_step_still_matches_a_cut_does_not():
    """A camera's automatic exposure brightens every grey level alike: the
    moved frame still matches (no cut read, the shot's depth kept); a frame of
    another scene does not."""
    rgb, disp = real_scene.motorcycle()
    first, second = (cv2.cvtColor(f, cv2.COLOR_RGB2GRAY)
                     for f in real_scene.slid(rgb, disp, [0.0, 2.0], (128, 86)))
    _, same = FlowField().backward(second, first)
    brighter = np.clip(second.astype(np.int16) + 12, 0, 255).astype(np.uint8)
    _, stepped = FlowField().backward(brighter, first)
    assert float(same.mean()) > 0.8 and float(stepped.mean()) > float(same.mean()) - 0.05
    _, cut = FlowField().backward(np.ascontiguousarray(first[::-1, ::-1]), first)
    assert float(cut.mean()) < 0.5
