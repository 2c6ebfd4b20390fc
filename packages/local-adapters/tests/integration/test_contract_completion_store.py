"""The SegmentCompletionStore contract on SQLite."""

import pytest
from shared_types.testing.contracts.completion_store import *  # noqa: F403

from local_adapters.segments import SqliteSegmentCompletionStore


@pytest.fixture(params=["sqlite"])
def completion_store(db):
    return SqliteSegmentCompletionStore(db)
