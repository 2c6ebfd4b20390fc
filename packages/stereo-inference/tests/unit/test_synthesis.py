import numpy as np
import pytest
import torch
from shared_types.models import ConversionParams, OutputMode

from stereo_inference.decode import FrameBatch
from stereo_inference.depth import load_estimator
from stereo_inference.synthesis import StereoRenderer
from stereo_inference.temporal import TemporalNormalizer


def batch(mode: OutputMode) -> FrameBatch:
    rng = np.random.default_rng(0)
    h, w = 48, 80
    eyes = rng.integers(0, 255, (2, h * 3 // 2, w))
    return FrameBatch(depth_rgb=rng.integers(0, 255, (2, 24, 40, 3)).astype(np.uint8),
                      eyes=eyes.astype(np.uint8), pts=[0, 1], durations=[1, 1])


def render(mode: OutputMode, use_opencv: bool) -> np.ndarray:
    device = torch.device("cpu")
    est = load_estimator("heuristic", models_dir=None, device=device)
    renderer = StereoRenderer(mode, ConversionParams(divergence=4.0), est,
                              TemporalNormalizer("heuristic"), device)
    renderer.use_opencv = use_opencv
    return renderer.render(batch(mode))


@pytest.mark.parametrize("mode", [OutputMode.HALF_SBS, OutputMode.TB, OutputMode.ANAGLYPH])
def test_the_tensor_path_used_on_gpus_matches_the_opencv_path(mode):
    tensor, opencv = render(mode, False), render(mode, True)
    assert tensor.shape == opencv.shape
    assert tensor.dtype == np.uint8
    # OpenCV quantises positions to 1/32 px; otherwise the two agree
    assert np.abs(tensor.astype(int) - opencv.astype(int)).mean() < 1.5
