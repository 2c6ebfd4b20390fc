import os

import pytest
import torch
from shared_types.conversion import EngineRuntime
from shared_types.models import ConversionParams, DepthModel
from stereo_models.depth_models import CATALOG
from stereo_models.testing.hub import FakeHub, serve_hub

from stereo_inference import convert_file
from stereo_inference.depth import default_depth_model, load_estimator
from stereo_inference.depth.architectures import random_depth_anything, save_random_model
from stereo_inference.errors import ModelNotInstalledError

from .conftest import read_video


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory):
    """A tiny randomly initialised Depth-Anything saved like downloaded weights,
    its preprocessor config asking for a small input (98 px: fast tests)."""
    root = tmp_path_factory.mktemp("models")
    save_random_model(root / "depth-anything-v2-small", input_size=98)
    return root


def test_the_saved_model_loads_and_estimates_depth_at_patch_multiples(models_dir):
    est = load_estimator("depth-anything-v2-small", models_dir=models_dir,
                         device=torch.device("cpu"))
    w, h = est.input_size(160, 96)
    assert w % 14 == 0
    assert h % 14 == 0
    depth = est.estimate(torch.rand(2, 3, h, w))
    assert depth.shape == (2, 1, h, w)
    assert torch.isfinite(depth).all()


def test_the_models_preprocessor_config_sets_its_input_size(models_dir, tmp_path):
    cpu = torch.device("cpu")
    small = load_estimator("depth-anything-v2-small", models_dir=models_dir, device=cpu)
    assert small.input_size(160, 96) == (168, 98)  # the short side at 98, upscaled
    save_random_model(tmp_path / "depth-anything-v2-small")  # no preprocessor config
    default = load_estimator("depth-anything-v2-small", models_dir=tmp_path, device=cpu)
    assert default.input_size(160, 96) == (868, 518)  # Depth-Anything-V2's own 518


def test_convert_runs_with_the_installed_model(models_dir, clip, tmp_path):
    params = ConversionParams(depth_model=DepthModel.DA2_SMALL)
    result = convert_file(
        clip, tmp_path / "o.mp4", mode="half-sbs", params=params,
        runtime=EngineRuntime(models_dir=models_dir))
    assert result.depth_model == "depth-anything-v2-small"
    assert read_video(tmp_path / "o.mp4")["frames"] == 24


def test_a_depth_stride_runs_the_model_on_fewer_frames_and_still_writes_every_one(
        models_dir, clip, tmp_path, monkeypatch):
    from stereo_inference.depth.depth_anything import DepthAnythingDepth

    seen = []
    estimate = DepthAnythingDepth.estimate
    monkeypatch.setattr(DepthAnythingDepth, "estimate",
                        lambda self, rgb: seen.append(rgb.shape[0]) or estimate(self, rgb))
    params = ConversionParams(depth_model=DepthModel.DA2_SMALL)
    convert_file(
        clip, tmp_path / "every.mp4", mode="half-sbs", params=params,
        runtime=EngineRuntime(models_dir=models_dir))
    assert sum(seen) == 24  # every frame
    seen.clear()
    convert_file(
        clip, tmp_path / "o.mp4", mode="half-sbs", params=params,
        runtime=EngineRuntime(models_dir=models_dir, depth_stride=3))
    assert 8 <= sum(seen) < 24
    assert read_video(tmp_path / "o.mp4")["frames"] == 24


def test_a_cpu_with_native_bfloat16_runs_the_model_in_it_within_a_stated_tolerance(
        monkeypatch):
    from stereo_inference.depth import depth_anything

    def estimator(native: bool):
        monkeypatch.setattr(depth_anything, "native_bfloat16", lambda: native)
        return depth_anything.DepthAnythingDepth(random_depth_anything("tiny"), "tiny",
                                                 torch.device("cpu"))

    rgb = torch.rand(2, 3, 98, 154, generator=torch.Generator().manual_seed(1))
    fp32, again = estimator(False).estimate(rgb), estimator(False).estimate(rgb)
    bf16 = estimator(True).estimate(rgb)
    assert torch.equal(fp32, again)  # the control: fp32 is deterministic
    assert bf16.dtype == torch.float32
    span = fp32.max() - fp32.min()
    assert not torch.equal(bf16, fp32)  # bfloat16 did run
    # docs/BENCHMARKS.md ("Depth-Anything-V2-small on this CPU"): DA-V2-small's
    # mean difference is 0.1 % of the depth range; this tiny model's is alike
    assert ((bf16 - fp32).abs().mean() / span).item() < 0.005


def test_a_learned_model_on_a_cpu_gets_every_core_of_the_conversion(
        models_dir, clip, tmp_path, monkeypatch):
    import cv2

    from stereo_inference.depth.depth_anything import DepthAnythingDepth
    from stereo_inference.depth.heuristic import HeuristicDepth

    seen = []
    for estimator in (DepthAnythingDepth, HeuristicDepth):
        estimate = estimator.estimate
        monkeypatch.setattr(estimator, "estimate", lambda self, rgb, estimate=estimate: (
            seen.append((torch.get_num_threads(), cv2.getNumThreads()))
            or estimate(self, rgb)))
    params = ConversionParams(depth_model=DepthModel.DA2_SMALL)
    convert_file(
        clip, tmp_path / "da.mp4", mode="half-sbs", params=params,
        runtime=EngineRuntime(models_dir=models_dir, cores=2))
    assert set(seen) == {(2, 2)}  # the model is the bottleneck: both cores
    seen.clear()
    # the control: the weight-free depth takes half the cores and leaves torch alone
    convert_file(
        clip, tmp_path / "h.mp4", mode="half-sbs",
        params=ConversionParams(depth_model=DepthModel.HEURISTIC), runtime=EngineRuntime(cores=2))
    assert {opencv for _, opencv in seen} == {1}


def test_a_seam_is_warmed_with_the_conversions_depth_stride(models_dir, clip, monkeypatch):
    from stereo_inference.depth.depth_anything import DepthAnythingDepth
    from stereo_inference.seams import warm_depth_state

    seen = []
    estimate = DepthAnythingDepth.estimate
    monkeypatch.setattr(DepthAnythingDepth, "estimate",
                        lambda self, rgb: seen.append(rgb.shape[0]) or estimate(self, rgb))
    params = ConversionParams(depth_model=DepthModel.DA2_SMALL)
    assert warm_depth_state(clip, params, models_dir=models_dir) is not None
    assert sum(seen) == 24  # the control: every frame of the 24-frame tail
    seen.clear()
    state = warm_depth_state(clip, params, models_dir=models_dir, stride=3)
    assert 8 <= sum(seen) < 24
    assert state["estimator"]["since"] < 3


def test_the_installed_model_becomes_the_default(models_dir, tmp_path):
    assert default_depth_model(models_dir) is DepthModel.DA2_SMALL
    assert default_depth_model(tmp_path) is DepthModel.HEURISTIC


def test_a_missing_model_names_the_folder_and_the_install_command(tmp_path, clip):
    params = ConversionParams(depth_model=DepthModel.DA2_BASE)
    with pytest.raises(ModelNotInstalledError) as err:
        convert_file(
            clip, tmp_path / "o.mp4", mode="sbs", params=params,
            runtime=EngineRuntime(models_dir=tmp_path))
    message = str(err.value)
    assert str(tmp_path / "depth-anything-v2-base") in message
    assert "stereo-spot models download depth-anything-v2-base" in message


@pytest.mark.parametrize(("config", "weights"), [
    ('{"model_type": "depth_anything"}', b"\xff" * 64),  # a cut-short weights file
    ("{not json", b"\xff" * 64),  # a damaged config
    ('{"model_type": "no_such_architecture"}', None),  # weights of another version
])
def test_broken_model_files_are_a_permanent_model_error(models_dir, tmp_path, clip, config,
                                                        weights):
    folder = tmp_path / "m" / "depth-anything-v2-base"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(config)
    good = models_dir / "depth-anything-v2-small" / "model.safetensors"
    (folder / "model.safetensors").write_bytes(weights or good.read_bytes())
    params = ConversionParams(depth_model=DepthModel.DA2_BASE)
    with pytest.raises(ModelNotInstalledError, match="cannot be loaded") as err:
        convert_file(
            clip, tmp_path / "o.mp4", mode="sbs", params=params,
            runtime=EngineRuntime(models_dir=tmp_path / "m"))
    assert err.value.code == "model_unavailable"
    assert "stereo-spot models download depth-anything-v2-base" in str(err.value)


@pytest.fixture(scope="module")
def hub(models_dir):
    """A local hub serving the tiny model's files under Distill-Any-Depth-Small's repo."""
    folder = models_dir / "depth-anything-v2-small"
    files = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    with serve_hub(FakeHub(repos={CATALOG["distill-any-depth-small"].repo: files})) as served:
        yield served


def test_the_first_conversion_downloads_a_missing_model_then_uses_it(hub, clip, tmp_path):
    params = ConversionParams(depth_model=DepthModel.DAD_SMALL)
    result = convert_file(
        clip, tmp_path / "o.mp4", mode="sbs", params=params,
        runtime=EngineRuntime(models_dir=tmp_path / "m", auto_download=True, hub_endpoint=hub.url))
    assert result.depth_model == "distill-any-depth-small"
    assert result.frames == 24
    assert default_depth_model(tmp_path / "m") is DepthModel.DAD_SMALL
    fetched = [p for method, p, _ in hub.requests if method == "GET"]
    assert any(p.endswith("model.safetensors") for p in fetched)


def test_without_downloads_a_missing_model_is_refused(hub, clip, tmp_path):
    params = ConversionParams(depth_model=DepthModel.DAD_SMALL)
    with pytest.raises(ModelNotInstalledError, match="stereo-spot models download"):
        convert_file(
            clip, tmp_path / "o.mp4", mode="sbs", params=params,
            runtime=EngineRuntime(models_dir=tmp_path / "m", auto_download=False,
                                  hub_endpoint=hub.url))
    assert not (tmp_path / "m" / "distill-any-depth-small").exists()


def test_a_loaded_model_is_reused_until_it_changes_on_disk(models_dir):
    name = DepthModel.DA2_SMALL.value
    cpu = torch.device("cpu")
    # the model is loaded once; each conversion gets its own flow memory around it
    first = load_estimator(name, models_dir=models_dir, device=cpu)
    again = load_estimator(name, models_dir=models_dir, device=cpu)
    assert again.inner is first.inner
    assert again is not first

    config = models_dir / name / "config.json"
    stat = config.stat()
    os.utime(config, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert load_estimator(name, models_dir=models_dir, device=cpu).inner is not first.inner
