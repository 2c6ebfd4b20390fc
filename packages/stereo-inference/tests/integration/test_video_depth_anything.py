"""Video-Depth-Anything on random weights: it loads from an installed folder like
any model, streams frames through its temporal layers, and converts a video."""

import json

import pytest
import torch
from shared_types.conversion import EngineRuntime
from shared_types.models import ConversionParams, DepthModel

from stereo_inference import convert_file
from stereo_inference.depth import load_estimator
from stereo_inference.depth.architectures import random_video_depth_anything
from stereo_inference.depth.video_depth_anything import (
    VideoDepthAnythingDepth,
    save_video_depth_anything,
)
from stereo_inference.errors import ModelNotInstalledError

from .conftest import read_video

NAME = DepthModel.VDA_SMALL.value
CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    save_video_depth_anything(random_video_depth_anything("tiny", seed=1), root / NAME)
    # a small input (98 px short side) keeps the tests fast
    (root / NAME / "preprocessor_config.json").write_text(json.dumps(
        {"size": {"height": 98, "width": 98}}))
    return root


def frames(count: int, seed: int = 0, size: tuple[int, int] = (98, 168)) -> torch.Tensor:
    return torch.rand(count, 3, *size, generator=torch.Generator().manual_seed(seed))


def test_the_installed_model_loads_as_an_estimator_at_the_reference_size(models_dir):
    est = load_estimator(NAME, models_dir=models_dir, device=CPU)
    assert est.input_size(160, 96) == (168, 98)
    depth = est.estimate(frames(2))
    assert depth.shape == (2, 1, 98, 168)
    assert torch.isfinite(depth).all()


def test_a_frame_depends_on_the_frames_before_it(models_dir):
    clip = frames(3)
    fresh = VideoDepthAnythingDepth.load(NAME, models_dir=models_dir, device=CPU)
    alone = fresh.estimate(clip[2:])
    streamed = VideoDepthAnythingDepth.load(NAME, models_dir=models_dir, device=CPU)
    streamed.estimate(clip[:2])
    after = streamed.estimate(clip[2:])
    assert not torch.allclose(alone, after, atol=1e-6)  # the temporal layers remember


def test_a_batch_gives_what_its_frames_give_one_at_a_time(models_dir):
    """The causal mask: a frame in a batch sees only the frames before it."""
    clip = frames(4, seed=2)
    batched = VideoDepthAnythingDepth.load(NAME, models_dir=models_dir, device=CPU)
    together = torch.cat([batched.estimate(clip[:1]), batched.estimate(clip[1:])])
    single = VideoDepthAnythingDepth.load(NAME, models_dir=models_dir, device=CPU)
    apart = torch.cat([single.estimate(clip[i:i + 1]) for i in range(4)])
    torch.testing.assert_close(together, apart, rtol=1e-4, atol=1e-5)


def test_its_memory_is_bounded_by_the_temporal_window(models_dir):
    est = VideoDepthAnythingDepth.load(NAME, models_dir=models_dir, device=CPU)
    for i in range(3):  # 33 frames
        est.estimate(frames(11, seed=i, size=(28, 42)))
    lengths = {cache.shape[1] for layer in est._caches for cache in layer}
    assert lengths == {31}  # max_len 32: 31 frames before the next one


def test_convert_runs_with_the_installed_video_model(models_dir, clip, tmp_path):
    result = convert_file(
        clip, tmp_path / "o.mp4", mode="half-sbs",
        params=ConversionParams(depth_model=DepthModel.VDA_SMALL),
        runtime=EngineRuntime(models_dir=models_dir))
    assert result.depth_model == NAME
    assert read_video(tmp_path / "o.mp4")["frames"] == 24


def test_a_folder_of_another_model_is_refused_with_the_install_command(models_dir, tmp_path):
    folder = tmp_path / NAME
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "depth_anything"}')
    (folder / "model.safetensors").write_bytes(
        (models_dir / NAME / "model.safetensors").read_bytes())
    with pytest.raises(ModelNotInstalledError, match="cannot be loaded"):
        VideoDepthAnythingDepth.load(NAME, models_dir=tmp_path, device=CPU)
