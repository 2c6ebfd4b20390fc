"""The JobStore contract on the in-memory fake."""

import pytest

from shared_types.testing.contracts.job_store import *  # noqa: F403
from shared_types.testing.memory import MemoryJobStore


@pytest.fixture(params=["memory"])
def job_store():
    return MemoryJobStore()
