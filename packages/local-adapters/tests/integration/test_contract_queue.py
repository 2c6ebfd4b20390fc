"""The Queue contract on SQLite."""

import pytest
from shared_types.testing.contracts.queue import *  # noqa: F403
from shared_types.testing.contracts.queue import QUEUE_MAX_RECEIVES

from local_adapters.queue import SqliteQueue


@pytest.fixture(params=["sqlite"])
def queue(db):
    return SqliteQueue(db, "contract", max_receives=QUEUE_MAX_RECEIVES)
