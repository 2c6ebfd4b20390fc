"""A local backend plus worker settings with short leases, for fault tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from local_stack.settings import StackSettings


@dataclass
class LocalRun:
    settings: StackSettings
    env: dict[str, str]
    backend: object


@pytest.fixture
def local_run(tmp_path: Path, stack_env):
    """Settings (2 s leases), child environment and the test's own view of the backend."""
    local_adapters = pytest.importorskip("local_adapters")

    def make(**overrides) -> LocalRun:
        data = tmp_path / "data"
        settings = StackSettings(
            _env_file=None, data_dir=data, visibility_s=2, lease_s=2, sqs_wait_s=1,
            restart_backoff_s=0.2, drain_timeout_s=20, segment_seconds=1, **overrides)
        return LocalRun(settings, stack_env(data), local_adapters.build_backend(settings))

    return make
