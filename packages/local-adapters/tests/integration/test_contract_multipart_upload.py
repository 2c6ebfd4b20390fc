"""The multipart upload contract on the filesystem storage, parts sent over
HTTP through the signed /storage app (``backend`` and ``client`` from conftest)."""

import pytest
from shared_types.testing.contracts.multipart_upload import *  # noqa: F403

from .conftest import path_of


@pytest.fixture
def object_storage(backend):
    return backend.input_storage


@pytest.fixture
def send_part(client):
    def send(url: str, data: bytes) -> None:
        resp = client.put(path_of(url), content=data)
        assert resp.status_code == 200, resp.text
    return send
