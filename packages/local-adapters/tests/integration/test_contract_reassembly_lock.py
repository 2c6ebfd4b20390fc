"""The ReassemblyLock contract on SQLite."""

import pytest
from shared_types.testing.contracts.reassembly_lock import *  # noqa: F403

from local_adapters.reassembly import SqliteReassemblyLock


@pytest.fixture(params=["sqlite"])
def reassembly_lock(db):
    return SqliteReassemblyLock(db)
