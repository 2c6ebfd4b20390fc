"""``stereo-spot convert`` with no ``--depth`` and nothing installed: a GPU downloads
Depth-Anything-V2-Small in the CLI (its bar shown) before any worker starts and the
workers convert with it; offline, the weight-free default runs and one line names
the command that installs a model. The GPU is the engine's device probe, injected
into the in-process CLI; the offline run is the installed console script."""

import socket
from pathlib import Path

import pytest
from stereo_inference.depth.architectures import save_random_model
from stereo_media.testing.media import make_video
from stereo_models.depth_models import CATALOG, is_installed
from stereo_models.testing.hub import FakeHub, serve_hub

from local_stack.cli import main
from local_stack.testing.media import video_facts

SMALL = "depth-anything-v2-small"
INSTALL = f"stereo-spot models download {SMALL}"


@pytest.fixture(scope="module")
def clip_1s(tmp_path_factory) -> Path:
    """A 1 s clip: a learned model, even a tiny one, is slow on a busy CPU."""
    return make_video(tmp_path_factory.mktemp("media") / "c1.mp4", seconds=1, fps=24)


@pytest.fixture
def hub(tmp_path):
    folder = tmp_path / "served" / SMALL
    save_random_model(folder, input_size=98)  # a tiny random model: a fast conversion
    files = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    with serve_hub(FakeHub(repos={CATALOG[SMALL].repo: files})) as served:
        yield served


def test_on_a_gpu_the_cli_downloads_the_model_then_the_workers_convert_with_it(
        hub, clip_1s, tmp_path: Path, stack_env, monkeypatch, capsys):
    models = tmp_path / "models"
    env = stack_env(tmp_path / "data", STEREO_SPOT_MODELS_DIR=str(models),
                    STEREO_SPOT_HUB_ENDPOINT=hub.url)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    out = tmp_path / "o.mp4"

    code = main(["convert", str(clip_1s), "-o", str(out), "--workers", "1"],
                has_gpu=lambda: True)

    printed = capsys.readouterr().out
    assert code == 0, printed
    assert f"depth: {SMALL} (downloading it for its first use" in printed
    assert "downloading model.safetensors" in printed
    assert is_installed(SMALL, models)
    fetched = [p for method, p, _ in hub.requests if method == "GET"]
    assert sum(p.endswith("model.safetensors") for p in fetched) == 1  # workers did not
    assert video_facts(out).frames == 24


def test_offline_the_default_runs_and_one_line_names_the_install_command(
        clip_4s, tmp_path: Path, stack_env, run_cli):
    with socket.socket() as closed:  # nothing listens there: the hub is unreachable
        closed.bind(("127.0.0.1", 0))
        env = stack_env(tmp_path / "data", STEREO_SPOT_MODELS_DIR=str(tmp_path / "models"),
                        STEREO_SPOT_HUB_ENDPOINT=f"http://127.0.0.1:{closed.getsockname()[1]}")
        result = run_cli(["convert", str(clip_4s), "-o", str(tmp_path / "o.mp4"),
                          "--workers", "1"], env)

    assert result.returncode == 0, result.stderr + result.stdout
    notices = [line for line in result.stdout.splitlines() if INSTALL in line]
    assert notices == [f"depth: the weight-free default (no depth model is installed and "
                       f"none can be downloaded now); `{INSTALL}` installs one"]
    assert video_facts(tmp_path / "o.mp4").frames == 4 * 24
