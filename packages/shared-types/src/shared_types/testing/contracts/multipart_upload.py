"""Multipart upload contract (the ObjectStorage methods a resumable browser
upload uses). Needs two fixtures: ``object_storage`` and ``send_part``, a
callable ``(url, data) -> None`` that PUTs one part to a ``presign_part`` URL
the way a browser would (over HTTP where the implementation serves HTTP).
"""

from __future__ import annotations

import os

import pytest

from shared_types.errors import InvalidUploadError, UploadNotFoundError, UploadTooLargeError
from shared_types.models import MIN_PART_BYTES

KEY = "input/job-a/source.mp4"


@pytest.fixture
def parts():
    """Two full parts and a short last one."""
    return [os.urandom(MIN_PART_BYTES), os.urandom(MIN_PART_BYTES), b"tail of the video"]


def _send(object_storage, send_part, upload_id, number, data):
    send_part(object_storage.presign_part(KEY, upload_id, number, expires_s=600), data)


def test_parts_sent_in_any_order_complete_into_one_object(object_storage, send_part, parts):
    upload_id = object_storage.start_multipart(KEY, content_type="video/mp4")
    for number in (3, 1, 2):
        _send(object_storage, send_part, upload_id, number, parts[number - 1])
    listed = object_storage.list_parts(KEY, upload_id)
    assert [(p.part_number, p.size) for p in listed] == [(i + 1, len(d))
                                                         for i, d in enumerate(parts)]
    assert not object_storage.exists(KEY)
    info = object_storage.complete_multipart(KEY, upload_id, max_bytes=sum(map(len, parts)))
    assert info.size == sum(map(len, parts))
    assert object_storage.get_bytes(KEY) == b"".join(parts)


def test_a_resent_part_replaces_the_first_copy(object_storage, send_part, parts):
    upload_id = object_storage.start_multipart(KEY)
    _send(object_storage, send_part, upload_id, 1, b"x" * MIN_PART_BYTES)
    _send(object_storage, send_part, upload_id, 1, parts[0])
    _send(object_storage, send_part, upload_id, 2, parts[2])
    assert [p.part_number for p in object_storage.list_parts(KEY, upload_id)] == [1, 2]
    object_storage.complete_multipart(KEY, upload_id)
    assert object_storage.get_bytes(KEY) == parts[0] + parts[2]


def test_a_missing_part_refuses_to_complete_and_keeps_the_upload(object_storage, send_part,
                                                                 parts):
    upload_id = object_storage.start_multipart(KEY)
    _send(object_storage, send_part, upload_id, 1, parts[0])
    _send(object_storage, send_part, upload_id, 3, parts[2])
    with pytest.raises(InvalidUploadError, match="missing"):
        object_storage.complete_multipart(KEY, upload_id)
    assert not object_storage.exists(KEY)
    _send(object_storage, send_part, upload_id, 2, parts[1])
    object_storage.complete_multipart(KEY, upload_id)
    assert object_storage.get_bytes(KEY) == b"".join(parts)


def test_a_short_part_before_the_last_refuses_to_complete(object_storage, send_part):
    upload_id = object_storage.start_multipart(KEY)
    _send(object_storage, send_part, upload_id, 1, b"short")
    _send(object_storage, send_part, upload_id, 2, b"last")
    with pytest.raises(InvalidUploadError):
        object_storage.complete_multipart(KEY, upload_id)
    assert not object_storage.exists(KEY)


def test_an_upload_over_the_cap_is_refused_and_freed(object_storage, send_part, parts):
    upload_id = object_storage.start_multipart(KEY)
    _send(object_storage, send_part, upload_id, 1, parts[0])
    _send(object_storage, send_part, upload_id, 2, parts[2])
    with pytest.raises(UploadTooLargeError):
        object_storage.complete_multipart(KEY, upload_id, max_bytes=MIN_PART_BYTES)
    assert not object_storage.exists(KEY)
    with pytest.raises(UploadNotFoundError):
        object_storage.list_parts(KEY, upload_id)


def test_abort_frees_the_parts_and_is_idempotent(object_storage, send_part, parts):
    upload_id = object_storage.start_multipart(KEY)
    _send(object_storage, send_part, upload_id, 1, parts[2])
    object_storage.abort_multipart(KEY, upload_id)
    object_storage.abort_multipart(KEY, upload_id)
    with pytest.raises(UploadNotFoundError):
        object_storage.list_parts(KEY, upload_id)
    with pytest.raises(UploadNotFoundError):
        object_storage.complete_multipart(KEY, upload_id)
    assert not object_storage.exists(KEY)


def test_an_unknown_upload_id_is_not_found(object_storage):
    # (S3 also refuses an upload id used with another key; moto does not check.)
    object_storage.start_multipart(KEY)
    with pytest.raises(UploadNotFoundError):
        object_storage.list_parts(KEY, "no-such-upload")


def test_part_numbers_outside_1_to_10000_are_refused(object_storage):
    upload_id = object_storage.start_multipart(KEY)
    for bad in (0, 10_001):
        with pytest.raises(ValueError):
            object_storage.presign_part(KEY, upload_id, bad)


def test_open_uploads_lists_each_upload_to_the_key_until_it_ends(object_storage, send_part,
                                                                 parts):
    first = object_storage.start_multipart(KEY)
    second = object_storage.start_multipart(KEY)
    other = object_storage.start_multipart(KEY + ".other")
    assert sorted(object_storage.open_uploads(KEY)) == sorted([first, second])
    object_storage.abort_multipart(KEY, first)
    assert object_storage.open_uploads(KEY) == [second]
    _send(object_storage, send_part, second, 1, parts[2])
    object_storage.complete_multipart(KEY, second)
    assert object_storage.open_uploads(KEY) == []
    assert object_storage.open_uploads(KEY + ".other") == [other]


__all__ = [name for name in dir() if name.startswith("test_")] + ["parts"]
