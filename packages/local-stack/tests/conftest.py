"""Fixtures shared by local-stack's integration and end-to-end tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings
from stereo_media.testing.media import make_video

VENV_BIN = Path(sys.executable).parent


@pytest.fixture(scope="session")
def clip_12s(tmp_path_factory) -> Path:
    """A 12 s 160x96 24 fps clip with audio and a keyframe every second."""
    return make_video(tmp_path_factory.mktemp("media") / "clip 12s.mp4", seconds=12, fps=24)


@pytest.fixture(scope="session")
def clip_4s(tmp_path_factory) -> Path:
    """A 4 s 160x96 24 fps clip with audio and a keyframe every second."""
    return make_video(tmp_path_factory.mktemp("media") / "clip4.mp4", seconds=4, fps=24)


def _stack_env(data_dir: Path, **overrides: str) -> dict[str, str]:
    # Nx sets FORCE_COLOR for its children; CLI output asserted here must be plain text.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("STEREO_SPOT_") and k != "FORCE_COLOR"}
    env.update({
        "NO_COLOR": "1",
        "TTY_COMPATIBLE": "0",
        "STEREO_SPOT_DATA_DIR": str(data_dir),
        "STEREO_SPOT_VISIBILITY_S": "3",
        "STEREO_SPOT_LEASE_S": "3",
        "STEREO_SPOT_SQS_WAIT_S": "1",
        "STEREO_SPOT_DRAIN_TIMEOUT_S": "20",
        "STEREO_SPOT_RESTART_BACKOFF_S": "0.2",
        "STEREO_SPOT_JOB_TIMEOUT_S": "240",
        "STEREO_SPOT_BACKOFF_BASE_S": "0.3",
        "STEREO_SPOT_WORK_DIR": str(data_dir / "work"),
        # the tests' short clips would otherwise run on fewer video-workers than they
        # ask for where cores are few (test_convert_plan covers the fitting itself)
        "STEREO_SPOT_FIT_WORKERS": "false",
    })
    env.update(overrides)
    return env


@pytest.fixture
def stack_env():
    """Build the environment a stereo-spot process gets in tests (short leases)."""
    return _stack_env


@pytest.fixture
def run_cli():
    """Run the installed ``stereo-spot`` console script; returns CompletedProcess."""

    def run(args: list[str], env: dict[str, str], timeout_s: float = 280):
        return subprocess.run([str(VENV_BIN / "stereo-spot"), *args], env=env,
                              capture_output=True, text=True, timeout=timeout_s)

    return run


@pytest.fixture
def free_port() -> int:
    """A TCP port nobody listens on right now."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(autouse=True)
def plain_console(monkeypatch):
    """Rich output read by the tests is plain text even under Nx's FORCE_COLOR."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("TTY_COMPATIBLE", "0")


# Hypothesis without per-example deadlines: the shared CI machine is noisy.
settings.register_profile("stereo-spot", deadline=None, max_examples=100)
settings.load_profile("stereo-spot")
