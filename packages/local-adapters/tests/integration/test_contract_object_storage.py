"""The ObjectStorage contract on the filesystem storage."""

import pytest
from shared_types.testing.contracts.object_storage import *  # noqa: F403

from local_adapters.signing import UrlSigner
from local_adapters.storage import FilesystemStorage


@pytest.fixture(params=["filesystem"])
def object_storage(tmp_path):
    signer = UrlSigner(b"secret", "http://testserver")
    return FilesystemStorage(tmp_path / "data", "contract", signer=signer)
