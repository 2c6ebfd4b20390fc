"""Model downloads through the real huggingface_hub client against a local hub."""

import pytest
from shared_types.errors import ModelDownloadError, ModelUnavailableError

from stereo_models.depth_models import CATALOG, best_installed, is_installed
from stereo_models.model_install import check_model_available, download_model, remove_model
from stereo_models.testing.hub import FakeHub, serve_hub

NAME = "depth-anything-v2-small"
# 16 MiB: huggingface_hub writes 10 MiB chunks, so a cut at 12 MiB leaves 10 MiB to resume from
WEIGHTS = bytes(range(256)) * 65536


def _hub(**faults) -> FakeHub:
    files = {"config.json": b'{"model_type": "depth_anything"}', "model.safetensors": WEIGHTS}
    return FakeHub(repos={CATALOG[NAME].repo: files}, **faults)


def test_a_download_installs_the_model_and_reports_progress(tmp_path):
    seen = []
    with serve_hub(_hub()) as hub:
        folder = download_model(NAME, tmp_path, endpoint=hub.url,
                                progress=lambda f, done, total: seen.append((f, done, total)))
    assert (folder / "model.safetensors").read_bytes() == WEIGHTS
    assert is_installed(NAME, tmp_path)
    assert best_installed(tmp_path) == NAME
    weights = [s for s in seen if s[0] == "model.safetensors"]
    assert weights[-1] == ("model.safetensors", len(WEIGHTS), len(WEIGHTS))
    assert not list(tmp_path.glob(".*.partial"))


def test_an_interrupted_transfer_resumes_where_it_stopped(tmp_path):
    with serve_hub(_hub(cut_after={"model.safetensors": 12 << 20})) as hub:
        download_model(NAME, tmp_path, endpoint=hub.url)
    ranges = [r for method, path, r in hub.requests
              if method == "GET" and path.endswith("model.safetensors")]
    assert ranges[0] is None
    assert ranges[-1] == f"bytes={10 << 20}-"
    assert (tmp_path / NAME / "model.safetensors").read_bytes() == WEIGHTS


def test_weights_that_fail_their_checksum_are_not_installed(tmp_path):
    with serve_hub(_hub(corrupt={"model.safetensors"})) as hub:
        with pytest.raises(ModelDownloadError, match="checksum"):
            download_model(NAME, tmp_path, endpoint=hub.url)
    assert not is_installed(NAME, tmp_path)
    assert best_installed(tmp_path) == "heuristic"


def test_a_missing_repository_file_is_a_download_error(tmp_path):
    with serve_hub(FakeHub(repos={})) as hub:
        with pytest.raises(ModelDownloadError):
            download_model(NAME, tmp_path, endpoint=hub.url)
    assert not is_installed(NAME, tmp_path)


def test_unknown_names_and_removal(tmp_path):
    with pytest.raises(ModelUnavailableError):
        download_model("midas", tmp_path)
    with serve_hub(_hub()) as hub:
        download_model(NAME, tmp_path, endpoint=hub.url)
    assert remove_model(NAME, tmp_path)
    assert not is_installed(NAME, tmp_path)
    assert not remove_model(NAME, tmp_path)


def test_iw3_is_refused_where_the_engine_runs_without_its_package(tmp_path):
    with pytest.raises(ModelUnavailableError, match="GPU image"):
        check_model_available("iw3", tmp_path, auto_download=True)


def test_iw3_is_accepted_where_its_package_imports_or_the_engine_runs_elsewhere(
        tmp_path, monkeypatch):
    check_model_available("iw3", tmp_path, auto_download=False, engine_here=False)
    (tmp_path / "iw3").mkdir()
    (tmp_path / "iw3" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    check_model_available("iw3", tmp_path, auto_download=False)
