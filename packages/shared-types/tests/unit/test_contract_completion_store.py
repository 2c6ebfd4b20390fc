"""The SegmentCompletionStore contract on the in-memory fake."""

import pytest

from shared_types.testing.contracts.completion_store import *  # noqa: F403
from shared_types.testing.memory import MemorySegmentCompletionStore


@pytest.fixture(params=["memory"])
def completion_store():
    return MemorySegmentCompletionStore()
