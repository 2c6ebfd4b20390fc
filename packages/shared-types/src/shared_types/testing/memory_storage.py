"""An in-memory object store (the ObjectStorage port) for fast unit tests (thread-safe)."""

from __future__ import annotations

import builtins
import hashlib
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from shared_types.errors import (
    ObjectNotFoundError,
    UploadNotFoundError,
    UploadTooLargeError,
)
from shared_types.models import ObjectInfo, PresignedRequest, UploadedPart, now
from shared_types.multipart import checked_total
from shared_types.upload_policy import encode_policy, policy_document, post_fields


class MemoryStorage:
    """An object store in a dict; presigned URLs are ``memory://`` strings."""

    def __init__(self, bucket: str = "bucket") -> None:
        self.bucket = bucket
        self._objects: dict[str, tuple[bytes, ObjectInfo]] = {}
        self._uploads: dict[str, dict] = {}
        self._lock = threading.Lock()
        self.expirable: set[str] = set()  # keys marked by mark_expirable

    def put_bytes(self, key: str, data: bytes, *, content_type: str | None = None) -> ObjectInfo:
        info = ObjectInfo(key=key, size=len(data), etag=hashlib.md5(data).hexdigest(),
                          last_modified=now(), content_type=content_type)
        with self._lock:
            self._objects[key] = (data, info)
        return info

    def put_file(self, key: str, path: Path, *, content_type: str | None = None,
                 move: bool = False) -> ObjectInfo:
        info = self.put_bytes(key, Path(path).read_bytes(), content_type=content_type)
        if move:
            Path(path).unlink()
        return info

    def get_bytes(self, key: str) -> bytes:
        try:
            return self._objects[key][0]
        except KeyError:
            raise ObjectNotFoundError(f"{self.bucket}/{key}") from None

    def get_file(self, key: str, path: Path) -> ObjectInfo:
        data = self.get_bytes(key)
        Path(path).write_bytes(data)
        return self._objects[key][1]

    def head(self, key: str) -> ObjectInfo | None:
        entry = self._objects.get(key)
        return entry[1] if entry else None

    def exists(self, key: str) -> bool:
        return key in self._objects

    def delete(self, key: str) -> None:
        with self._lock:
            self._objects.pop(key, None)

    def list(self, prefix: str) -> Iterator[ObjectInfo]:
        for key in sorted(self._objects):
            if key.startswith(prefix):
                yield self._objects[key][1]

    def presign_put(self, key: str, *, expires_s: int = 3600, max_bytes: int | None = None,
                    content_type: str | None = None) -> PresignedRequest:
        return PresignedRequest(url=f"memory://{self.bucket}/{key}?op=put", method="PUT",
                                expires_at=now() + expires_s, max_bytes=max_bytes)

    def presign_post(self, key: str, *, max_bytes: int, expires_s: int = 3600,
                     content_type: str | None = None,
                     success_redirect: str | None = None) -> PresignedRequest:
        fields = post_fields(content_type, success_redirect)
        policy = policy_document(self.bucket, key, max_bytes=max_bytes,
                                 expires_at=now() + expires_s, fields=fields)
        return PresignedRequest(url=f"memory://{self.bucket}", method="POST",
                                fields={"key": key, **fields, "policy": encode_policy(policy)},
                                expires_at=now() + expires_s, max_bytes=max_bytes)

    def presign_get(self, key: str, *, expires_s: int = 3600,
                    download_name: str | None = None) -> str:
        suffix = f"&download={download_name}" if download_name else ""
        return f"memory://{self.bucket}/{key}?op=get{suffix}"

    def uri(self, key: str) -> str:
        return f"memory://{self.bucket}/{key}"

    def mark_expirable(self, prefix: str) -> int:
        keys = [info.key for info in self.list(prefix)]
        self.expirable.update(keys)
        return len(keys)

    def unmark_expirable(self, prefix: str) -> int:
        keys = [info.key for info in self.list(prefix)]
        self.expirable.difference_update(keys)
        return len(keys)

    def start_multipart(self, key: str, *, max_bytes: int | None = None,
                        content_type: str | None = None) -> str:
        upload_id = uuid.uuid4().hex
        with self._lock:
            self._uploads[upload_id] = {"key": key, "content_type": content_type, "parts": {}}
        return upload_id

    def _upload(self, key: str, upload_id: str) -> dict:
        upload = self._uploads.get(upload_id)
        if upload is None or upload["key"] != key:
            raise UploadNotFoundError(f"no upload {upload_id} for {self.bucket}/{key}")
        return upload

    def presign_part(self, key: str, upload_id: str, part_number: int, *,
                     expires_s: int = 3600, content_length: int | None = None) -> str:
        if not 1 <= part_number <= 10_000:
            raise ValueError(f"part number {part_number} is outside 1..10000")
        self._upload(key, upload_id)
        length = "" if content_length is None else f"&length={int(content_length)}"
        return (f"memory://{self.bucket}/{key}?op=part&upload={upload_id}"
                f"&part={part_number}{length}")

    def open_uploads(self, key: str) -> builtins.list[str]:
        with self._lock:
            return [upload_id for upload_id, upload in self._uploads.items()
                    if upload["key"] == key]

    def put_part(self, url: str, data: bytes) -> None:
        """What a browser's PUT to a ``presign_part`` URL does (test helper)."""
        parts = urlsplit(url)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        key = parts.path.lstrip("/")
        with self._lock:
            upload = self._upload(key, query["upload"])
            if "length" in query and len(data) != int(query["length"]):
                raise ValueError(f"the part URL is signed for {query['length']} bytes, "
                                 f"not {len(data)}")  # S3: SignatureDoesNotMatch
            upload["parts"][int(query["part"])] = data

    def list_parts(self, key: str, upload_id: str) -> builtins.list[UploadedPart]:
        with self._lock:
            parts = self._upload(key, upload_id)["parts"]
            return [UploadedPart(part_number=n, size=len(d), etag=hashlib.md5(d).hexdigest())
                    for n, d in sorted(parts.items())]

    def complete_multipart(self, key: str, upload_id: str, *,
                           max_bytes: int | None = None) -> ObjectInfo:
        try:
            checked_total(self.list_parts(key, upload_id), max_bytes)
        except UploadTooLargeError:
            self.abort_multipart(key, upload_id)
            raise
        with self._lock:
            upload = self._uploads.pop(upload_id)
        data = b"".join(d for _, d in sorted(upload["parts"].items()))
        return self.put_bytes(key, data, content_type=upload["content_type"])

    def abort_multipart(self, key: str, upload_id: str) -> None:
        with self._lock:
            upload = self._uploads.get(upload_id)
            if upload is not None and upload["key"] == key:
                del self._uploads[upload_id]
