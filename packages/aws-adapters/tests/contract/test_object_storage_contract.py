"""The ObjectStorage contract on S3 (moto)."""

import pytest
from shared_types.testing.contracts.object_storage import *  # noqa: F401,F403


@pytest.fixture
def object_storage(backend):
    return backend.output_storage
