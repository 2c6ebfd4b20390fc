"""The SegmentCompletionStore contract on DynamoDB (moto)."""

import pytest
from shared_types.testing.contracts.completion_store import *  # noqa: F401,F403


@pytest.fixture
def completion_store(backend):
    return backend.completions
