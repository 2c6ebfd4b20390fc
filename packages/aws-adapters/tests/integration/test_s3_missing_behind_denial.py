"""S3 answers a read of a missing key with 403 when the caller may not list the
bucket (the services' roles may list only under a prefix condition, which a
HeadObject or GetObject does not carry). moto answers 404 whatever the role,
so the 403 is S3's, made by a hook on the client's calls."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError
from shared_types.errors import ObjectNotFoundError

from aws_adapters.errors import AwsPermanentError


def _deny(*operations: str):
    def refuse(model, **_kwargs):
        code = "403" if model.name == "HeadObject" else "AccessDenied"
        raise ClientError({"Error": {"Code": code, "Message": "Forbidden"},
                           "ResponseMetadata": {"HTTPStatusCode": 403}}, model.name)

    def install(storage) -> None:
        for operation in operations:
            storage._client.meta.events.register(f"before-call.s3.{operation}", refuse)
    return install


def test_a_denied_read_of_a_missing_key_is_a_missing_key(backend):
    storage = backend.output_storage
    storage.put_bytes("jobs/j/final.mp4.part", b"a longer key beside it")
    _deny("HeadObject", "GetObject")(storage)
    assert storage.head("jobs/j/final.mp4") is None
    assert not storage.exists("jobs/j/final.mp4")
    with pytest.raises(ObjectNotFoundError):
        storage.get_bytes("jobs/j/final.mp4")


def test_a_denied_read_of_a_key_that_exists_stays_denied(backend):
    storage = backend.output_storage
    storage.put_bytes("jobs/j/final.mp4", b"video")
    _deny("HeadObject", "GetObject")(storage)
    with pytest.raises(AwsPermanentError, match="403"):
        storage.head("jobs/j/final.mp4")
    with pytest.raises(AwsPermanentError, match="AccessDenied"):
        storage.get_bytes("jobs/j/final.mp4")


def test_a_denial_that_cannot_be_told_from_a_missing_key_stays_denied(backend):
    storage = backend.output_storage
    _deny("HeadObject", "ListObjectsV2")(storage)
    with pytest.raises(AwsPermanentError, match="403"):
        storage.exists("jobs/j/final.mp4")
