"""``stereo-spot models list|download|remove`` against a local hub (real huggingface_hub)."""

import pytest
from stereo_models.depth_models import CATALOG
from stereo_models.testing.hub import FakeHub, serve_hub

from local_stack.cli import main

NAME = "distill-any-depth-small"


@pytest.fixture
def hub(tmp_path, monkeypatch):
    files = {"config.json": b"{}", "model.safetensors": b"weights" * 1000}
    with serve_hub(FakeHub(repos={CATALOG[NAME].repo: files})) as served:
        monkeypatch.setenv("STEREO_SPOT_MODELS_DIR", str(tmp_path / "models"))
        monkeypatch.setenv("STEREO_SPOT_HUB_ENDPOINT", served.url)
        yield served


def _listing(capsys) -> dict[str, str]:
    assert main(["models", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()[1:]
    return {line.split()[0]: line for line in lines}


def test_list_download_list_remove(hub, tmp_path, capsys):
    before = _listing(capsys)
    assert "available" in before[NAME]
    assert "(default)" in before["heuristic"]
    assert "CC-BY-NC" in before["depth-anything-v2-large"]
    assert main(["models", "download", NAME]) == 0
    assert capsys.readouterr().out.startswith(f"installed {NAME} in ")
    assert (tmp_path / "models" / NAME / "model.safetensors").stat().st_size == 7000
    after = _listing(capsys)
    assert "installed" in after[NAME]
    assert "(default)" in after[NAME]
    assert list(after)[0] == NAME  # installed models are listed first
    assert main(["models", "remove", NAME]) == 0
    assert capsys.readouterr().out == f"removed {NAME}\n"
    assert "available" in _listing(capsys)[NAME]
    assert main(["models", "remove", NAME]) == 1


def test_a_download_the_hub_cannot_serve_fails_with_one_line(hub, capsys):
    assert main(["models", "download", "depth-anything-v2-small"]) == 2  # pinned, not served
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: downloading depth-anything-v2-small")
    assert "\n" not in err


def test_convert_refuses_a_missing_model_before_doing_anything(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("STEREO_SPOT_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("STEREO_SPOT_MODEL_AUTO_DOWNLOAD", "false")
    source = tmp_path / "in.mp4"
    source.write_bytes(b"not even read")
    code = main(["convert", str(source), "-o", str(tmp_path / "out.mp4"),
                 "--depth", "depth-anything-v2-small", "--data-dir", str(tmp_path / "data")])
    assert code == 1
    assert "stereo-spot models download depth-anything-v2-small" in capsys.readouterr().err
    assert not (tmp_path / "data").exists()
