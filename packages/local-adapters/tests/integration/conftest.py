"""Shared fixtures: a fresh SQLite database and data folder per test."""

import pytest
from shared_types.settings import BackendSettings
from starlette.testclient import TestClient

from local_adapters import build_backend
from local_adapters.db import Database
from local_adapters.storage_app import storage_app


@pytest.fixture
def db(tmp_path):
    database = Database(tmp_path / "state.sqlite3")
    yield database
    database.close()


@pytest.fixture
def settings(tmp_path):
    return BackendSettings(data_dir=tmp_path / "data", signing_secret="test-secret",
                           public_base_url="http://testserver")


@pytest.fixture
def backend(settings):
    """The whole local backend on ``settings``' fresh data folder."""
    return build_backend(settings)


@pytest.fixture
def client(settings, backend):
    """A test client of the signed /storage app sharing ``backend``."""
    with TestClient(storage_app(settings, backend=backend)) as test_client:
        yield test_client


def path_of(url: str) -> str:
    """A presigned /storage URL as a path for ``client``."""
    return url.removeprefix("http://testserver/storage")
