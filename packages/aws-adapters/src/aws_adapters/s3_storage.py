"""ObjectStorage on S3: streaming transfers, listing, SigV4 presigned URLs.

Keys are validated like the local backend's (no ``..`` segment, no leading
``/``, no backslash or NUL), so code that works locally cannot write a key
that only S3 would accept.

S3 answers a request for a missing key with 403, not 404, when the caller may
not list the bucket -- and the services' roles may list it only under their
own prefixes, a condition a HeadObject or GetObject does not carry. So a
denied read is followed by a listing of exactly that key, which those roles
may make: when it shows no such key, the key is missing; otherwise (or when
the listing is refused too) the denial stands.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from shared_types.content_disposition import content_disposition
from shared_types.errors import InvalidKeyError, ObjectNotFoundError
from shared_types.models import ObjectInfo, PresignedRequest, now
from shared_types.upload_policy import SIZE_CONDITION, post_fields

from aws_adapters.clients import make_client
from aws_adapters.errors import AwsPermanentError, error_code, translated
from aws_adapters.s3_multipart import S3MultipartUploads, plain_etag

MULTIPART_THRESHOLD = 64 * 1024 * 1024
MULTIPART_CHUNK = 16 * 1024 * 1024
MAX_KEY_BYTES = 1024
DENIED_CODES = frozenset({"403", "AccessDenied", "Forbidden"})


def check_key(key: str) -> str:
    """``key`` when it is a safe object key. Raises InvalidKeyError."""
    if not key or key.startswith("/") or "\\" in key or "\x00" in key:
        raise InvalidKeyError(f"unsafe object key {key!r}")
    if any(part in ("..", ".") for part in key.split("/")):
        raise InvalidKeyError(f"object key {key!r} has a '.' or '..' segment")
    if len(key.encode("utf-8")) > MAX_KEY_BYTES:
        raise InvalidKeyError(f"object key is over {MAX_KEY_BYTES} bytes")
    return key


# Both buckets' lifecycle rules expire objects carrying this tag (an S3
# lifecycle filter cannot match ``jobs/*/segments/``, a tag can). A job's
# segments get it only once the job has ended (mark_expirable), so a backlog
# or a long job never loses them (modules/data-plane/s3.tf).
RETENTION_TAG_KEY = "stereo-spot-retention"
RETENTION_TAG_VALUE = "expirable"
KEPT_TAG_VALUE = "kept"  # what unmark_expirable sets (moto refuses an empty tag set)


def upload_args(content_type: str | None) -> dict[str, str]:
    """Extra PutObject arguments: the content type, when known."""
    return {"ContentType": content_type} if content_type else {}


class S3ObjectStorage(S3MultipartUploads):
    """One S3 bucket."""

    check = staticmethod(check_key)

    def __init__(self, bucket: str, *, client: Any = None, region: str | None = None,
                 endpoint_url: str | None = None) -> None:
        self.bucket = bucket
        self._client = client or make_client("s3", region=region, endpoint_url=endpoint_url)

    def _transfer_config(self) -> Any:
        from boto3.s3.transfer import TransferConfig

        return TransferConfig(multipart_threshold=MULTIPART_THRESHOLD,
                              multipart_chunksize=MULTIPART_CHUNK, use_threads=True)

    def put_file(self, key: str, path: Path, *, content_type: str | None = None,
                 move: bool = False) -> ObjectInfo:
        """Upload a file through the transfer manager (multipart over 64 MiB);
        ``move`` removes it once uploaded.
        Raises InvalidKeyError, FileNotFoundError, AwsTransientError."""
        check_key(key)
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no file to upload at {path}")
        extra = upload_args(content_type) or None
        with translated(f"upload s3://{self.bucket}/{key}"):
            self._client.upload_file(str(path), self.bucket, key, ExtraArgs=extra,
                                     Config=self._transfer_config())
        info = self.head(key)
        if info is None:  # deleted by someone else right after the upload
            raise ObjectNotFoundError(f"s3://{self.bucket}/{key} vanished after upload")
        if move:
            path.unlink()
        return info

    def put_bytes(self, key: str, data: bytes, *, content_type: str | None = None) -> ObjectInfo:
        """Upload small content from memory. Raises InvalidKeyError."""
        check_key(key)
        extra = upload_args(content_type)
        with translated(f"put s3://{self.bucket}/{key}"):
            resp = self._client.put_object(Bucket=self.bucket, Key=key, Body=data, **extra)
        return ObjectInfo(key=key, size=len(data), etag=plain_etag(resp.get("ETag")),
                          last_modified=now(), content_type=content_type)

    def get_file(self, key: str, path: Path) -> ObjectInfo:
        """Download to ``path`` through the transfer manager (written to a temp
        name, then renamed). Raises ObjectNotFoundError."""
        info = self.head(check_key(key))
        if info is None:
            raise ObjectNotFoundError(f"s3://{self.bucket}/{key}")
        with translated(f"download s3://{self.bucket}/{key}"):
            self._client.download_file(self.bucket, key, str(path),
                                       Config=self._transfer_config())
        return info

    def get_bytes(self, key: str) -> bytes:
        """Read small content into memory. Raises ObjectNotFoundError."""
        check_key(key)
        try:
            with translated(f"get s3://{self.bucket}/{key}"):
                body = self._client.get_object(Bucket=self.bucket, Key=key)["Body"]
                try:
                    return body.read()
                finally:
                    body.close()
        except AwsPermanentError as exc:
            if self._missing_behind(exc, key):
                raise ObjectNotFoundError(f"s3://{self.bucket}/{key}") from exc
            raise

    def head(self, key: str) -> ObjectInfo | None:
        """Metadata of an object, or None. Raises AwsPermanentError when the
        caller may not read it (and it exists, or the caller may not tell)."""
        check_key(key)
        try:
            with translated(f"head s3://{self.bucket}/{key}"):
                resp = self._client.head_object(Bucket=self.bucket, Key=key)
        except ObjectNotFoundError:
            return None
        except AwsPermanentError as exc:
            if self._missing_behind(exc, key):
                return None
            raise
        return ObjectInfo(key=key, size=int(resp["ContentLength"]),
                          etag=plain_etag(resp.get("ETag")),
                          last_modified=resp["LastModified"].timestamp(),
                          content_type=resp.get("ContentType"))

    def exists(self, key: str) -> bool:
        """True when the object exists."""
        return self.head(key) is not None

    def _missing_behind(self, denial: AwsPermanentError, key: str) -> bool:
        """Whether ``denial`` (of a read of ``key``) is S3's answer for a missing
        key to a caller that may not list it: a listing of exactly that key,
        allowed where the read was not, shows no such key."""
        if denial.__cause__ is None or error_code(denial.__cause__) not in DENIED_CODES:
            return False
        try:
            with translated(f"list s3://{self.bucket}/{key}"):
                listed = self._client.list_objects_v2(Bucket=self.bucket, Prefix=key, MaxKeys=1)
        except AwsPermanentError:
            return False  # refused too: nothing can be told
        return not any(obj["Key"] == key for obj in listed.get("Contents", []))

    def delete(self, key: str) -> None:
        """Remove an object; no error if absent."""
        check_key(key)
        with translated(f"delete s3://{self.bucket}/{key}"):
            self._client.delete_object(Bucket=self.bucket, Key=key)

    def list(self, prefix: str) -> Iterator[ObjectInfo]:
        """Objects under a prefix, in key order (ListObjectsV2, paginated)."""
        paginator = self._client.get_paginator("list_objects_v2")
        with translated(f"list s3://{self.bucket}/{prefix}"):
            for page in paginator.paginate(Bucket=self.bucket, Prefix=prefix):
                for obj in page.get("Contents", []):
                    yield ObjectInfo(key=obj["Key"], size=int(obj["Size"]),
                                     etag=plain_etag(obj.get("ETag")),
                                     last_modified=obj["LastModified"].timestamp())

    def presign_put(self, key: str, *, expires_s: int = 3600, max_bytes: int | None = None,
                    content_type: str | None = None) -> PresignedRequest:
        """A SigV4 presigned PUT URL. The browser must send the returned headers.
        S3 cannot cap a PUT's size: ``max_bytes`` is only reported back; use
        :meth:`presign_post` where the cap must be enforced."""
        check_key(key)
        params: dict[str, Any] = {"Bucket": self.bucket, "Key": key}
        headers: dict[str, str] = {}
        if content_type:
            params["ContentType"] = content_type
            headers["Content-Type"] = content_type
        with translated(f"presign PUT s3://{self.bucket}/{key}"):
            url = self._client.generate_presigned_url("put_object", Params=params,
                                                      ExpiresIn=int(expires_s))
        return PresignedRequest(url=url, method="PUT", headers=headers,
                                expires_at=now() + expires_s, max_bytes=max_bytes)

    def presign_post(self, key: str, *, max_bytes: int, expires_s: int = 3600,
                     content_type: str | None = None,
                     success_redirect: str | None = None) -> PresignedRequest:
        """A presigned POST (multipart form) whose policy has a
        ``content-length-range`` of 1..``max_bytes``: S3 rejects larger uploads
        (EntityTooLarge). The browser posts ``fields`` then the file as the
        ``file`` field; with ``success_redirect`` S3 answers 303 to it.
        Raises InvalidKeyError."""
        check_key(key)
        fields = post_fields(content_type, success_redirect)
        conditions: list[Any] = [[SIZE_CONDITION, 1, int(max_bytes)]]
        conditions += [{name: value} for name, value in fields.items()]
        with translated(f"presign POST s3://{self.bucket}/{key}"):
            post = self._client.generate_presigned_post(
                self.bucket, key, Fields=fields or None, Conditions=conditions,
                ExpiresIn=int(expires_s))
        return PresignedRequest(url=post["url"], method="POST", fields=post["fields"],
                                expires_at=now() + expires_s, max_bytes=max_bytes)

    def presign_get(self, key: str, *, expires_s: int = 3600,
                    download_name: str | None = None) -> str:
        """A SigV4 presigned GET URL (Range requests work); with
        ``download_name`` the response carries an attachment Content-Disposition."""
        check_key(key)
        params: dict[str, Any] = {"Bucket": self.bucket, "Key": key}
        if download_name:
            params["ResponseContentDisposition"] = content_disposition(download_name)
        with translated(f"presign GET s3://{self.bucket}/{key}"):
            return self._client.generate_presigned_url("get_object", Params=params,
                                                       ExpiresIn=int(expires_s))

    def _tag_all(self, prefix: str, tags: builtins.list[dict[str, str]]) -> int:
        count = 0
        for info in self.list(prefix):
            try:
                with translated(f"tag s3://{self.bucket}/{info.key}"):
                    self._client.put_object_tagging(Bucket=self.bucket, Key=info.key,
                                                    Tagging={"TagSet": tags})
            except ObjectNotFoundError:
                continue  # deleted meanwhile (cancel, delete): nothing left to expire
            count += 1
        return count

    def mark_expirable(self, prefix: str) -> int:
        """Tag every object under ``prefix`` for the lifecycle rule
        (ListObjectsV2, then PutObjectTagging each). Raises AwsTransientError."""
        return self._tag_all(prefix, [{"Key": RETENTION_TAG_KEY, "Value": RETENTION_TAG_VALUE}])

    def unmark_expirable(self, prefix: str) -> int:
        """Re-tag the objects under ``prefix`` as kept (PutObjectTagging), so the
        lifecycle rule leaves them. Raises AwsTransientError."""
        return self._tag_all(prefix, [{"Key": RETENTION_TAG_KEY, "Value": KEPT_TAG_VALUE}])

    def uri(self, key: str) -> str:
        """``s3://bucket/key``."""
        return f"s3://{self.bucket}/{key}"
