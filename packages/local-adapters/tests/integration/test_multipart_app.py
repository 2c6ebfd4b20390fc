"""Multipart parts through the /storage app: signatures, the cap while
streaming, atomic parts, one event on complete."""

import pytest
from shared_types.errors import UploadNotFoundError
from shared_types.models import MIN_PART_BYTES

from .conftest import path_of

KEY = "input/job-1/source.mp4"


def test_a_part_url_cannot_be_retargeted_to_another_part_or_upload(client, backend):
    storage = backend.input_storage
    upload_id = storage.start_multipart(KEY)
    other = storage.start_multipart(KEY)
    url = path_of(storage.presign_part(KEY, upload_id, 1))
    for forged in (url.replace("part=1", "part=2"), url.replace(upload_id, other)):
        assert client.put(forged, content=b"x").status_code == 403
    assert client.put(url, content=b"x").status_code == 200
    assert [p.part_number for p in storage.list_parts(KEY, upload_id)] == [1]
    assert storage.list_parts(KEY, other) == []


def test_a_part_that_takes_the_upload_over_its_cap_is_refused_while_streaming(client, backend):
    storage = backend.input_storage
    upload_id = storage.start_multipart(KEY, max_bytes=MIN_PART_BYTES + 10)
    first = client.put(path_of(storage.presign_part(KEY, upload_id, 1)),
                       content=b"a" * MIN_PART_BYTES)
    assert first.status_code == 200
    second = client.put(path_of(storage.presign_part(KEY, upload_id, 2)), content=b"b" * 11)
    assert second.status_code == 413
    assert [p.size for p in storage.list_parts(KEY, upload_id)] == [MIN_PART_BYTES]


def test_a_part_longer_than_its_url_was_signed_for_is_refused(client, backend):
    storage = backend.input_storage
    upload_id = storage.start_multipart(KEY)
    url = path_of(storage.presign_part(KEY, upload_id, 1, content_length=5))
    assert client.put(url, content=b"123456").status_code == 413
    assert client.put(url.replace("max=5", "max=6"), content=b"123456").status_code == 403
    assert client.put(url, content=b"12345").status_code == 200
    assert [p.size for p in storage.list_parts(KEY, upload_id)] == [5]


def test_a_part_for_an_aborted_upload_is_refused(client, backend):
    storage = backend.input_storage
    upload_id = storage.start_multipart(KEY)
    url = path_of(storage.presign_part(KEY, upload_id, 1))
    storage.abort_multipart(KEY, upload_id)
    assert client.put(url, content=b"x").status_code == 404
    assert not list(storage.uploads_dir.iterdir())


def test_parts_raise_no_event_and_complete_raises_exactly_one(client, backend):
    storage = backend.input_storage
    upload_id = storage.start_multipart(KEY)
    client.put(path_of(storage.presign_part(KEY, upload_id, 1)), content=b"a" * MIN_PART_BYTES)
    client.put(path_of(storage.presign_part(KEY, upload_id, 2)), content=b"end")
    assert backend.chunking_queue.receive(visibility_s=30) == []
    storage.complete_multipart(KEY, upload_id)
    assert len(backend.chunking_queue.receive(max_messages=10, visibility_s=30)) == 1
    assert not list(storage.uploads_dir.iterdir())


def test_an_upload_id_belongs_to_its_key(backend):
    storage = backend.input_storage
    upload_id = storage.start_multipart(KEY)
    with pytest.raises(UploadNotFoundError):
        storage.list_parts("input/job-2/source.mp4", upload_id)
    with pytest.raises(UploadNotFoundError):
        storage.presign_part("input/job-2/source.mp4", upload_id, 1)
