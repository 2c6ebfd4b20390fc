"""Multipart uploads on S3 with presigned part URLs.

The browser PUTs each part straight to S3 with a presigned ``UploadPart`` URL;
web-ui never sees the bytes. Completion lists the parts S3 really holds
(``ListParts``), checks them against the cap before the object exists, and
then calls ``CompleteMultipartUpload`` with S3's own ETags, so the browser
never has to read response headers (no CORS ``ExposeHeaders`` needed).

S3 calls made here (the web-ui role needs them): s3:PutObject (create, upload
part, complete), s3:ListMultipartUploadParts, s3:ListBucketMultipartUploads,
s3:AbortMultipartUpload.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shared_types.errors import UploadNotFoundError, UploadTooLargeError
from shared_types.models import MAX_PARTS, ObjectInfo, UploadedPart
from shared_types.multipart import checked_total

from aws_adapters.errors import translated


def plain_etag(value: str | None) -> str | None:
    """An S3 ETag without the quotes S3 puts around it (None stays None)."""
    return value.strip('"') if value else None


class S3MultipartUploads:
    """The multipart half of :class:`~aws_adapters.s3_storage.S3ObjectStorage`
    (a mixin: it uses the storage's bucket, client, key check and head)."""

    bucket: str
    _client: Any

    if TYPE_CHECKING:  # what the storage provides (declared here for the type checker only)
        @staticmethod
        def check(key: str) -> str: ...
        def head(self, key: str) -> ObjectInfo | None: ...

    def start_multipart(self, key: str, *, max_bytes: int | None = None,
                        content_type: str | None = None) -> str:
        """CreateMultipartUpload; returns the upload id. Raises InvalidKeyError."""
        self.check(key)
        extra = {"ContentType": content_type} if content_type else {}
        with translated(f"create multipart s3://{self.bucket}/{key}"):
            resp = self._client.create_multipart_upload(Bucket=self.bucket, Key=key, **extra)
        return resp["UploadId"]

    def presign_part(self, key: str, upload_id: str, part_number: int, *,
                     expires_s: int = 3600, content_length: int | None = None) -> str:
        """A SigV4 presigned UploadPart URL; with ``content_length`` the
        Content-Length header is signed, so S3 takes a part of exactly that size.
        Raises ValueError for a part number outside 1..10000 (an unknown upload
        fails when the part is sent)."""
        if not 1 <= part_number <= MAX_PARTS:
            raise ValueError(f"part number {part_number} is outside 1..{MAX_PARTS}")
        self.check(key)
        params = {"Bucket": self.bucket, "Key": key, "UploadId": upload_id,
                  "PartNumber": int(part_number)}
        if content_length is not None:
            params["ContentLength"] = int(content_length)
        with translated(f"presign part s3://{self.bucket}/{key}"):
            return self._client.generate_presigned_url("upload_part", Params=params,
                                                       ExpiresIn=int(expires_s))

    def open_uploads(self, key: str) -> list[str]:
        """ListMultipartUploads under ``key``: the ids of those to exactly ``key``."""
        self.check(key)
        found: list[tuple[Any, str]] = []  # (Initiated datetime, UploadId)
        paginator = self._client.get_paginator("list_multipart_uploads")
        with translated(f"list uploads s3://{self.bucket}/{key}"):
            for page in paginator.paginate(Bucket=self.bucket, Prefix=key):
                found.extend((u["Initiated"], u["UploadId"]) for u in page.get("Uploads", [])
                             if u["Key"] == key)
        return [upload_id for _, upload_id in sorted(found)]

    def list_parts(self, key: str, upload_id: str) -> list[UploadedPart]:
        """ListParts (paginated). Raises UploadNotFoundError."""
        self.check(key)
        if not upload_id:
            raise UploadNotFoundError("empty upload id")
        parts: list[UploadedPart] = []
        paginator = self._client.get_paginator("list_parts")
        with translated(f"list parts s3://{self.bucket}/{key}"):
            for page in paginator.paginate(Bucket=self.bucket, Key=key, UploadId=upload_id):
                parts.extend(UploadedPart(part_number=p["PartNumber"], size=int(p["Size"]),
                                          etag=plain_etag(p.get("ETag")))
                             for p in page.get("Parts", []))
        return sorted(parts, key=lambda p: p.part_number)

    def complete_multipart(self, key: str, upload_id: str, *,
                           max_bytes: int | None = None) -> ObjectInfo:
        """CompleteMultipartUpload from the parts S3 holds. Raises
        UploadNotFoundError, InvalidUploadError, UploadTooLargeError (then aborts)."""
        parts = self.list_parts(key, upload_id)
        try:
            checked_total(parts, max_bytes)
        except UploadTooLargeError:
            self.abort_multipart(key, upload_id)
            raise
        body = {"Parts": [{"PartNumber": p.part_number, "ETag": f'"{p.etag}"'} for p in parts]}
        with translated(f"complete multipart s3://{self.bucket}/{key}"):
            self._client.complete_multipart_upload(Bucket=self.bucket, Key=key,
                                                   UploadId=upload_id, MultipartUpload=body)
        info = self.head(key)
        if info is None:
            raise UploadNotFoundError(f"s3://{self.bucket}/{key} vanished after completing")
        return info

    def abort_multipart(self, key: str, upload_id: str) -> None:
        """AbortMultipartUpload; no error if the upload is already gone."""
        self.check(key)
        try:
            with translated(f"abort multipart s3://{self.bucket}/{key}"):
                self._client.abort_multipart_upload(Bucket=self.bucket, Key=key,
                                                    UploadId=upload_id)
        except UploadNotFoundError:
            pass
