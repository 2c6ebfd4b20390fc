"""The AWS video-worker installs without the engine (``stereo-inference``, torch):
only the ``local`` inference backend imports it, as the optional extra ``local``.
A child process where importing the engine or torch fails stands for that image."""

import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"

WITHOUT_ENGINE = textwrap.dedent("""
    import sys
    for name in ("stereo_inference", "torch"):
        sys.modules[name] = None  # ImportError on import, as where it is not installed
    from shared_types.testing.memory import memory_backend
    from video_worker.bootstrap import build_worker
    from video_worker.errors import ConfigurationError
    from video_worker.janitor import run_janitor_pass
    from video_worker.local_backend import engine_convert_file
    from video_worker.settings import VideoWorkerSettings
    import video_worker.main

    backend = memory_backend()
    http = VideoWorkerSettings(_env_file=None, inference_backend="http",
                               inference_http_url="http://127.0.0.1:9/")
    build_worker(http, backend)
    run_janitor_pass(backend, stuck_after_s=60, max_segment_attempts=3)
    try:  # what the local backend calls on first use
        engine_convert_file()
    except ConfigurationError as exc:
        print("local refused:", exc)
""")


def test_the_engine_is_an_optional_extra_of_the_local_backend_only():
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    assert not any(d.startswith("stereo-spot-stereo-inference") for d in project["dependencies"])
    assert project["optional-dependencies"]["local"] == ["stereo-spot-stereo-inference"]


def test_the_worker_and_its_janitor_run_without_the_engine_and_local_says_what_to_install():
    run = subprocess.run([sys.executable, "-c", WITHOUT_ENGINE], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    # negative control: the engine really was missing, and `local` asks for its extra
    assert "local refused:" in run.stdout
    assert "stereo-spot-video-worker[local]" in run.stdout
