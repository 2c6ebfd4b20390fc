"""The multipart upload contract on the in-memory fake."""

import pytest

from shared_types.testing.contracts.multipart_upload import *  # noqa: F403
from shared_types.testing.memory import MemoryStorage


@pytest.fixture
def object_storage():
    return MemoryStorage("contract")


@pytest.fixture
def send_part(object_storage):
    return object_storage.put_part
