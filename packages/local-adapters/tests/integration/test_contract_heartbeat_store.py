"""The SegmentHeartbeatStore contract on SQLite."""

import pytest
from shared_types.testing.contracts.heartbeat_store import *  # noqa: F403

from local_adapters import build_backend


@pytest.fixture
def backend(settings):
    return build_backend(settings)
