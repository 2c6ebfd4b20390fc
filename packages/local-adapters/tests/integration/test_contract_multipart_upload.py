"""The multipart upload contract on the filesystem storage, parts sent over
HTTP through the signed /storage app."""

import pytest
from shared_types.testing.contracts.multipart_upload import *  # noqa: F403
from starlette.testclient import TestClient

from local_adapters import build_backend, storage_app


@pytest.fixture
def backend(settings):
    return build_backend(settings)


@pytest.fixture
def object_storage(backend):
    return backend.input_storage


@pytest.fixture
def send_part(settings, backend):
    with TestClient(storage_app(settings, backend=backend)) as client:
        def send(url: str, data: bytes) -> None:
            resp = client.put(url.removeprefix("http://testserver/storage"), content=data)
            assert resp.status_code == 200, resp.text
        yield send
