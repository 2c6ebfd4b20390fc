"""The SegmentStatusStore contract on the in-memory fake."""

import pytest

from shared_types.testing.contracts.segment_status_store import *  # noqa: F403
from shared_types.testing.memory import MemorySegmentStatusStore


@pytest.fixture(params=["memory"])
def segment_status_store():
    return MemorySegmentStatusStore()
