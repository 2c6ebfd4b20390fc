"""The multipart upload contract on S3 (moto): parts PUT over HTTP to their
presigned URLs, as a browser sends them."""

import pytest
import requests
from shared_types.testing.contracts.multipart_upload import *  # noqa: F401,F403


@pytest.fixture
def object_storage(backend):
    return backend.input_storage


@pytest.fixture
def send_part():
    def send(url: str, data: bytes) -> None:
        resp = requests.put(url, data=data, timeout=30)
        assert resp.status_code == 200, resp.text
    return send
