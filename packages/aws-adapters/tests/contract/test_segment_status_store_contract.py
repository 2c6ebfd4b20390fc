"""The SegmentStatusStore contract on DynamoDB (moto)."""

import pytest
from shared_types.testing.contracts.segment_status_store import *  # noqa: F401,F403


@pytest.fixture
def segment_status_store(backend):
    return backend.segment_status
