"""The learned path against its reference: one random Depth-Anything-V2, one
frame, through the engine (a CPU conversion's decoder scaler, or a GPU
conversion's input made from the decoded planes; then its estimator) and
through the original project's preprocessing (``depth_anything_reference``).
The bar is correlation >= 0.99 at the same model input size; fed BGR, or not
normalised, the reference misses it (the negative controls)."""

from pathlib import Path

import av
import numpy as np
import pytest
import torch
from shared_types.models import DepthModel

from stereo_inference import planes
from stereo_inference.decode import FrameReader
from stereo_inference.depth import input_interpolation
from stereo_inference.depth.architectures import random_depth_anything
from stereo_inference.depth.depth_anything import DepthAnythingDepth
from stereo_inference.device_frames import depth_input, upload

from .depth_anything_reference import infer_image, lower_bound_size

BAR = 0.99  # correlation the engine's depth must reach against the reference's
BT709_LIMITED = (1, 1, 1, 1)  # (primaries, transfer, matrix, range) as FFmpeg numbers


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("models") / DepthModel.DA2_SMALL.value
    random_depth_anything("tiny", seed=3).save_pretrained(folder)
    return folder.parent


@pytest.fixture(scope="module")
def estimator(model_dir):
    return DepthAnythingDepth.load(DepthModel.DA2_SMALL.value, models_dir=model_dir,
                                   device=torch.device("cpu"))


def picture(width: int, height: int, seed: int = 0) -> np.ndarray:
    """A frame with edges, gradients and texture (RGB uint8)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width]
    rgb = np.empty((height, width, 3), np.float32)
    rgb[..., 0], rgb[..., 1], rgb[..., 2] = xx / width * 255, yy / height * 255, 96
    for _ in range(24):
        cx, cy = rng.integers(0, width), rng.integers(0, height)
        r = rng.integers(height // 30, height // 5)
        rgb[(xx - cx) ** 2 + (yy - cy) ** 2 < r * r] = rng.integers(0, 256, 3)
    return (rgb + rng.normal(0, 6, rgb.shape)).clip(0, 255).astype(np.uint8)


def lossless_video(path: Path, rgb: np.ndarray) -> Path:
    """``rgb`` as a one-frame lossless FFV1 video (RGB, no chroma subsampling): the decoder sees
    exactly the picture the reference gets."""
    with av.open(str(path), "w", format="matroska") as out:
        stream = out.add_stream("ffv1", rate=25)
        stream.width, stream.height, stream.pix_fmt = rgb.shape[1], rgb.shape[0], "bgr0"
        out.mux(stream.encode(av.VideoFrame.from_ndarray(rgb, format="rgb24")))
        out.mux(stream.encode(None))
    return path


def engine_depth(estimator, video: Path, width: int, height: int) -> np.ndarray:
    """The depth of the video's frame as a CPU conversion makes it: the decoder
    scales the frame to the estimator's input size, the estimator runs on it."""
    reader = FrameReader(video, eye_size=(width, height),
                         depth_size=estimator.input_size(width, height), eye_format="yuv420p",
                         batch_size=1,
                         depth_interpolation=input_interpolation(DepthModel.DA2_SMALL))
    (batch,) = list(reader)
    rgb = np.ascontiguousarray(batch.depth_rgb.transpose(0, 3, 1, 2), dtype=np.float32) / 255
    return estimator.estimate(rgb)[0, 0].numpy()


def gpu_path_depth(estimator, rgb: np.ndarray) -> np.ndarray:
    """The depth as a GPU conversion makes it (run here on CPU tensors): the frame
    decoded to YUV 4:2:0 planes, the model's RGB made from them (``device_frames``)."""
    height, width = rgb.shape[:2]
    frame = av.VideoFrame.from_ndarray(rgb, format="rgb24").reformat(
        format="yuv420p", dst_colorspace="ITU709", dst_color_range="MPEG")
    yuv = np.empty((height * 3 // 2, width), np.uint8)
    planes.read_into(frame, yuv)
    x = depth_input(upload(yuv[None], "cpu"), estimator.input_size(width, height),
                    BT709_LIMITED)
    return estimator.estimate(x)[0, 0].numpy()


def correlation(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(a.ravel(), b.ravel())[0, 1])


@pytest.mark.parametrize(("width", "height"), [
    (924, 518),  # already the model's size: nothing is resampled on either side
    (480, 270),  # short side under 518: upscaled, as the reference does
    (1280, 720),  # downscaled
])
def test_the_engine_gives_the_references_depth_at_the_same_input_size(
        estimator, tmp_path, width, height):
    rgb = picture(width, height)
    video = lossless_video(tmp_path / "frame.mkv", rgb)

    ours = engine_depth(estimator, video, width, height)
    reference = infer_image(estimator.model, rgb)

    assert estimator.input_size(width, height) == lower_bound_size(width, height)
    assert ours.shape == reference.at_input.shape
    assert correlation(ours, reference.at_input) >= BAR
    if (width, height) == ours.shape[::-1]:  # infer_image's own answer, where no
        assert correlation(ours, reference.at_source) >= BAR  # resampling intervenes


@pytest.mark.parametrize(("width", "height"), [(924, 518), (480, 270), (1280, 720)])
def test_the_gpu_paths_input_from_decoded_planes_gives_the_references_depth_too(
        estimator, width, height):
    """Chroma subsampling costs a little (0.992-0.996 here), within the bar."""
    rgb = picture(width, height)
    assert correlation(gpu_path_depth(estimator, rgb),
                       infer_image(estimator.model, rgb).at_input) >= BAR


@pytest.mark.parametrize("control", [{"swap_channels": True}, {"normalise": False}])
def test_a_reference_run_with_a_preprocessing_mistake_misses_the_bar(estimator, tmp_path,
                                                                      control):
    """The bar can fail: the same model fed BGR as RGB, or not normalised."""
    width, height = 924, 518
    rgb = picture(width, height)
    ours = engine_depth(estimator, lossless_video(tmp_path / "frame.mkv", rgb), width, height)

    wrong = infer_image(estimator.model, rgb, **control)

    assert correlation(ours, wrong.at_source) < BAR


def test_a_source_under_518_pixels_is_upscaled_to_the_models_size(estimator):
    assert estimator.input_size(480, 270) == (924, 518)
    assert estimator.input_size(270, 480) == (518, 924)
    assert estimator.input_size(1920, 1080) == (924, 518)
    assert estimator.input_size(160, 96) == (868, 518)  # 863.3 rounds to 868 (62 x 14)
