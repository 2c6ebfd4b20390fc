"""The Queue contract on SQLite."""

import pytest
from shared_types.testing.contracts.queue import *  # noqa: F403
from shared_types.testing.contracts.queue import QUEUE_MAX_RECEIVES

from local_adapters.doorbell import Doorbell
from local_adapters.queue import SqliteQueue


@pytest.fixture(params=["sqlite", "sqlite-doorbell"])
def queue(request, db):
    doorbell = Doorbell.for_database(db.path) if request.param == "sqlite-doorbell" else None
    if request.param == "sqlite-doorbell" and doorbell is None:
        pytest.skip("no UNIX datagram sockets here: the queue polls")
    return SqliteQueue(db, "contract", max_receives=QUEUE_MAX_RECEIVES, doorbell=doorbell)
