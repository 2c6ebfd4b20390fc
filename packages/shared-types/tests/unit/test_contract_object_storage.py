"""The ObjectStorage contract on the in-memory fake."""

import pytest

from shared_types.testing.contracts.object_storage import *  # noqa: F403
from shared_types.testing.memory import MemoryStorage


@pytest.fixture(params=["memory"])
def object_storage():
    return MemoryStorage("contract")
