import cv2
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


def render(mode: OutputMode, use_opencv: bool, **controls) -> np.ndarray:
    device = torch.device("cpu")
    est = load_estimator("heuristic", models_dir=None, device=device)
    renderer = StereoRenderer(mode, ConversionParams(divergence=4.0, **controls), est,
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


COMFORT = {"auto_convergence": True, "foreground_scale": 2.0, "edge_dilation": 2,
           "ipd_offset": 0.5, "floating_window": True, "synthesised_eye": "right",
           "depth_curve": "s-curve", "viewing": "tv-65", "comfort": "fix"}


@pytest.mark.parametrize("mode", [OutputMode.HALF_SBS, OutputMode.TB, OutputMode.ANAGLYPH])
def test_the_tensor_path_takes_the_comfort_controls_like_the_opencv_path(mode):
    tensor, opencv = render(mode, False, **COMFORT), render(mode, True, **COMFORT)
    assert np.abs(tensor.astype(int) - opencv.astype(int)).mean() < 1.5
    assert np.abs(opencv.astype(int) - render(mode, True).astype(int)).mean() > 1.0


@pytest.mark.parametrize("mode", [OutputMode.HALF_SBS, OutputMode.HALF_TB, OutputMode.ANAGLYPH])
def test_a_gpu_batch_made_from_full_size_planes_renders_like_a_cpu_batch(mode):
    """On a GPU the decoder hands full-size planes only: the model's RGB and the
    eye size are made on the device (``device_frames``). The picture must be
    the one the CPU path makes from its own RGB and squeeze."""
    from stereo_inference.formats import eye_size

    rng = np.random.default_rng(3)
    h, w = 48, 80
    y, x = np.mgrid[0:h, 0:w]
    luma = (40 + 150 * (x > w // 2) + rng.integers(0, 30, (h, w))).astype(np.uint8)
    chroma = np.full((h // 2, w), 128, np.uint8)  # grey: both paths' RGB agree
    frames = np.stack([np.vstack([luma, chroma])] * 2)
    rgb = np.repeat(((luma.astype(np.float32) - 16) * 255 / 219).clip(0, 255)
                    .astype(np.uint8)[None, ..., None], 3, axis=3)
    device = torch.device("cpu")
    outputs = []
    for gpu_style in (False, True):
        est = load_estimator("heuristic", models_dir=None, device=device)
        renderer = StereoRenderer(mode, ConversionParams(divergence=4.0), est,
                                  TemporalNormalizer("heuristic"), device,
                                  eye_size=eye_size(mode, w, h), color=(1, 1, 1, 1))
        renderer.use_opencv = not gpu_style
        small = est.input_size(w, h)
        depth_rgb = None if gpu_style else np.stack(
            [cv2.resize(rgb[0], small, interpolation=cv2.INTER_AREA)] * 2)
        outputs.append(renderer.render(FrameBatch(depth_rgb=depth_rgb, eyes=frames.copy(),
                                                  pts=[0, 1], durations=[1, 1])))
    cpu, gpu = outputs
    assert gpu.shape == cpu.shape and gpu.dtype == np.uint8
    # measured 0.6-1.8 (noisy texture: the depth inputs differ by their scalers)
    assert np.abs(gpu.astype(int) - cpu.astype(int)).mean() < 2.5
