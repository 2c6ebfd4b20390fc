"""The JobStore contract on DynamoDB (moto)."""

import pytest
from shared_types.testing.contracts.job_store import *  # noqa: F401,F403


@pytest.fixture
def job_store(backend):
    return backend.jobs
