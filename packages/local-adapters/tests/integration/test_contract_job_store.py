"""The JobStore contract on SQLite."""

import pytest
from shared_types.testing.contracts.job_store import *  # noqa: F403

from local_adapters.jobs import SqliteJobStore


@pytest.fixture(params=["sqlite"])
def job_store(db):
    return SqliteJobStore(db)
