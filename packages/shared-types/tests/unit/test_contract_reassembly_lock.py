"""The ReassemblyLock contract on the in-memory fake."""

import pytest

from shared_types.testing.contracts.reassembly_lock import *  # noqa: F403
from shared_types.testing.memory import MemoryReassemblyLock


@pytest.fixture(params=["memory"])
def reassembly_lock():
    return MemoryReassemblyLock()
