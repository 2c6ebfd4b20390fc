"""``stereo-inference convert`` with no ``--depth``, nothing installed, against a
local hub: a GPU downloads Depth-Anything-V2-Small first (its progress shown)
and converts with it; a CPU keeps the weight-free default and offers the model
with each choice's time; offline, one line says so and names the install command.
The GPU is the engine's device probe, injected (the conversion itself runs here)."""

import re
import socket

import pytest
from stereo_models.depth_models import CATALOG, is_installed
from stereo_models.testing.hub import FakeHub, serve_hub

from stereo_inference.cli import main
from stereo_inference.depth.architectures import save_random_model

from .conftest import read_video

SMALL = "depth-anything-v2-small"
INSTALL = f"stereo-spot models download {SMALL}"


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """The hub, serving a tiny random model as Depth-Anything-V2-Small's files."""
    folder = tmp_path_factory.mktemp("served") / SMALL
    save_random_model(folder, input_size=98)
    files = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    with serve_hub(FakeHub(repos={CATALOG[SMALL].repo: files})) as served:
        yield served


@pytest.fixture
def env(monkeypatch, tmp_path):
    models = tmp_path / "models"
    monkeypatch.setenv("STEREO_SPOT_MODELS_DIR", str(models))
    monkeypatch.delenv("STEREO_SPOT_MODEL_AUTO_DOWNLOAD", raising=False)
    return models


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def wrote(lines) -> str:
    """The CLI's "wrote OUT: N frames, ..., depth MODEL" line (on a terminal the
    progress bars' control sequences may lead it: they are taken off first)."""
    plain = (ANSI.sub("", line).strip() for line in lines)
    return next(line for line in plain if line.startswith("wrote "))


def weights_fetched(hub) -> int:
    return sum(1 for method, path, _ in hub.requests
               if method == "GET" and path.endswith("model.safetensors"))


def test_on_a_gpu_the_first_conversion_downloads_the_model_shows_it_and_uses_it(
        hub, env, clip, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("STEREO_SPOT_HUB_ENDPOINT", hub.url)
    before = weights_fetched(hub)
    out = tmp_path / "o.mp4"

    assert main(["convert", str(clip), str(out), "--preset", "ultrafast"],
                has_gpu=lambda: True) == 0

    printed = capsys.readouterr().out
    assert f"depth: {SMALL} (downloading it for its first use" in printed
    assert "downloading model.safetensors" in printed  # the download's own bar
    assert wrote(printed.splitlines()).endswith(f"depth {SMALL}")  # the conversion used it
    assert is_installed(SMALL, env)
    assert weights_fetched(hub) == before + 1
    assert read_video(out)["frames"] == 24


def test_on_a_cpu_the_weight_free_default_stays_and_both_choices_are_offered_with_their_time(
        hub, env, clip, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("STEREO_SPOT_HUB_ENDPOINT", hub.url)
    before = weights_fetched(hub)

    assert main(["convert", str(clip), str(tmp_path / "o.mp4"), "--no-progress"],
                has_gpu=lambda: False) == 0

    lines = capsys.readouterr().out.splitlines()
    offer = next(line for line in lines if line.startswith("depth: heuristic"))
    assert "for this video" in offer and f"{SMALL} (a learned model" in offer
    assert f"--depth {SMALL}" in offer
    assert wrote(lines).endswith("depth heuristic")
    assert weights_fetched(hub) == before  # nothing was downloaded
    assert not is_installed(SMALL, env)


def test_offline_the_weight_free_default_runs_and_one_line_names_the_install_command(
        env, clip, tmp_path, monkeypatch, capsys):
    with socket.socket() as closed:  # a port nothing listens on: the hub is unreachable
        closed.bind(("127.0.0.1", 0))
        monkeypatch.setenv("STEREO_SPOT_HUB_ENDPOINT",
                           f"http://127.0.0.1:{closed.getsockname()[1]}")

        assert main(["convert", str(clip), str(tmp_path / "o.mp4"), "--no-progress"],
                    has_gpu=lambda: True) == 0

    lines = capsys.readouterr().out.splitlines()
    notices = [line for line in lines if INSTALL in line]
    assert len(notices) == 1
    assert notices[0].startswith("depth: the weight-free default")
    assert wrote(lines).endswith("depth heuristic")
    assert not is_installed(SMALL, env)


def test_a_chosen_model_is_never_replaced_nor_commented(hub, env, clip, tmp_path, monkeypatch,
                                                       capsys):
    monkeypatch.setenv("STEREO_SPOT_HUB_ENDPOINT", hub.url)
    before = weights_fetched(hub)

    assert main(["convert", str(clip), str(tmp_path / "o.mp4"), "--no-progress",
                 "--depth", "heuristic"], has_gpu=lambda: True) == 0

    lines = capsys.readouterr().out.splitlines()
    assert not [line for line in lines if line.startswith("depth:")]
    assert weights_fetched(hub) == before
