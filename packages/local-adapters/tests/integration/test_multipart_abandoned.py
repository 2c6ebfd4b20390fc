"""An upload nobody finishes (a closed tab, a cancelled job) does not keep its
parts on disk forever: a day after it started it is removed, as S3's lifecycle
rule aborts incomplete uploads."""

import os
import time

import pytest
from shared_types.errors import UploadNotFoundError

from local_adapters import build_backend

from .conftest import path_of

OLD, FRESH = "input/old-job/source.mp4", "input/fresh-job/source.mp4"


def _started_ago(storage, upload_id: str, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(storage.uploads_dir / upload_id / "upload.json", (then, then))


def test_an_upload_left_unfinished_for_a_day_is_removed_when_a_backend_is_built(
        settings, backend, client):
    storage = backend.input_storage
    old = storage.start_multipart(OLD)
    assert client.put(path_of(storage.presign_part(OLD, old, 1)), content=b"x").status_code == 200
    fresh = storage.start_multipart(FRESH)
    assert client.put(path_of(storage.presign_part(FRESH, fresh, 1)),
                      content=b"y").status_code == 200
    _started_ago(storage, old, 86400 + 60)

    build_backend(settings)  # a service starting on the same data folder

    assert not (storage.uploads_dir / old).exists()
    with pytest.raises(UploadNotFoundError):
        storage.list_parts(OLD, old)
    assert [p.part_number for p in storage.list_parts(FRESH, fresh)] == [1]


def test_starting_an_upload_removes_those_abandoned_a_day_ago(backend):
    storage = backend.input_storage
    old = storage.start_multipart(OLD)
    _started_ago(storage, old, 86400 + 60)

    storage.start_multipart("input/new-job/source.mp4")  # a long-running web-ui's next upload

    assert not (storage.uploads_dir / old).exists()
