"""Shared fixtures: a fresh SQLite database and data folder per test."""

import pytest
from shared_types.settings import BackendSettings

from local_adapters.db import Database


@pytest.fixture
def db(tmp_path):
    database = Database(tmp_path / "state.sqlite3")
    yield database
    database.close()


@pytest.fixture
def settings(tmp_path):
    return BackendSettings(data_dir=tmp_path / "data", signing_secret="test-secret",
                           public_base_url="http://testserver")
