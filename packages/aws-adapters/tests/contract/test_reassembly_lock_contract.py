"""The ReassemblyLock contract on DynamoDB (moto)."""

import pytest
from shared_types.testing.contracts.reassembly_lock import *  # noqa: F401,F403


@pytest.fixture
def reassembly_lock(backend):
    return backend.reassembly
