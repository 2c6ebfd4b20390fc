"""The SegmentHeartbeatStore contract on the in-memory fakes."""

import pytest

from shared_types.testing.contracts.heartbeat_store import *  # noqa: F403
from shared_types.testing.memory import memory_backend


@pytest.fixture
def backend():
    return memory_backend()
