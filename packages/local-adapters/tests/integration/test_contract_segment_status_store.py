"""The SegmentStatusStore contract on SQLite."""

import pytest
from shared_types.testing.contracts.segment_status_store import *  # noqa: F403

from local_adapters.segments import SqliteSegmentStatusStore


@pytest.fixture(params=["sqlite"])
def segment_status_store(db):
    return SqliteSegmentStatusStore(db)
