"""The image's default command (``docker/serve``) outside SageMaker needs the
shared secret: run as it is in the image, with the real CLI on PATH."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "docker" / "serve"


def run_script(tmp_path: Path, env: dict[str, str], *, cli: str | None = None):
    """``sh docker/serve`` with ``stereo-inference`` on PATH: the real CLI, or ``cli``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "stereo-inference"
    shim.write_text(cli or f'#!/bin/sh\nexec "{sys.executable}" -m stereo_inference.cli "$@"\n')
    shim.chmod(0o755)
    with socket.socket() as s:  # the port it would bind, were it to start
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = {k: v for k, v in os.environ.items()
            if k not in ("STEREO_SPOT_INFERENCE_SHARED_SECRET", "STEREO_SPOT_SAGEMAKER")}
    return subprocess.run(["sh", str(SCRIPT)], capture_output=True, text=True, timeout=120,
                          env={**base, "PATH": f"{bin_dir}:{base['PATH']}", "PORT": str(port),
                               "STEREO_SPOT_MODELS_DIR": str(tmp_path / "models"), **env})


@pytest.mark.parametrize("env", [{}, {"STEREO_SPOT_INFERENCE_SHARED_SECRET": ""}],
                         ids=["no secret", "empty secret"])
def test_outside_sagemaker_the_image_refuses_to_serve_without_a_secret(tmp_path, env):
    done = run_script(tmp_path, env)
    assert done.returncode == 2, done.stderr
    assert "STEREO_SPOT_INFERENCE_SHARED_SECRET" in done.stderr or "16 characters" in done.stderr


def test_only_sagemaker_gets_the_secretless_server(tmp_path):
    echo = '#!/bin/sh\necho "$@"\n'
    inside = run_script(tmp_path, {"STEREO_SPOT_SAGEMAKER": "1"}, cli=echo)
    outside = run_script(tmp_path, {"STEREO_SPOT_INFERENCE_SHARED_SECRET": "x" * 16}, cli=echo)
    assert "--sagemaker" in inside.stdout.split()
    assert "--sagemaker" not in outside.stdout.split()
    assert "0.0.0.0" in outside.stdout.split()
