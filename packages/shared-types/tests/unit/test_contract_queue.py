"""The Queue contract on the in-memory fake."""

import pytest

from shared_types.testing.contracts.queue import *  # noqa: F403
from shared_types.testing.contracts.queue import QUEUE_MAX_RECEIVES
from shared_types.testing.memory import MemoryQueue


@pytest.fixture(params=["memory"])
def queue():
    return MemoryQueue("contract", max_receives=QUEUE_MAX_RECEIVES)
