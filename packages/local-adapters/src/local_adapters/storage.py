"""ObjectStorage on the filesystem: ``{data_dir}/buckets/{bucket}/{key}``.

Keys are validated before touching the disk. Writes go to a temp file under
``{data_dir}/tmp``, are fsynced, then renamed into place, so a reader never sees
half an object. After each successful write the notifier raises the S3-shaped
object-created event for matching queues. A write that finds the disk full
raises DiskFullError naming the folder (``shared_types.failure.disk_full_as``);
its temp file is removed, and no object appears.
"""

from __future__ import annotations

import builtins
import errno
import mimetypes
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from urllib.parse import quote

from shared_types.errors import InvalidKeyError, ObjectExistsError, ObjectNotFoundError
from shared_types.failure import disk_full_as
from shared_types.models import ObjectInfo, PresignedRequest, now
from shared_types.upload_policy import encode_policy, policy_document, post_fields

from local_adapters.expiry import ExpiryMarks
from local_adapters.multipart import MultipartUploads
from local_adapters.notifications import Notifier
from local_adapters.signing import UrlSigner

MAX_KEY_BYTES = 1024
DEFAULT_EXPIRE_AFTER_S = 86400.0  # segments of ended jobs are kept a day (as on S3)
# The form field carrying a POST policy's signature (S3's is x-amz-signature).
SIGNATURE_FIELD = "x-stereo-signature"
COPY_CHUNK = 1024 * 1024
# A write retries placing its file this often when a concurrent delete pruned
# its folder (each retry needs another delete to win the same tiny window).
PLACE_ATTEMPTS = 5


def validate_key(key: str) -> str:
    """``key`` if it is a safe relative object key.

    Raises InvalidKeyError for empty keys, absolute paths, ``.``/``..`` or empty
    segments, backslashes, NUL or other control characters, or over-long keys.
    """
    if not isinstance(key, str) or not key:
        raise InvalidKeyError("object key must be a non-empty string")
    if len(key.encode()) > MAX_KEY_BYTES:
        raise InvalidKeyError(f"object key is longer than {MAX_KEY_BYTES} bytes")
    if key.startswith("/"):
        raise InvalidKeyError(f"object key {key!r} is an absolute path")
    if "\\" in key or any(ord(c) < 32 for c in key):
        raise InvalidKeyError(f"object key {key!r} has a backslash or control character")
    for part in key.split("/"):
        if part in ("", ".", ".."):
            raise InvalidKeyError(f"object key {key!r} has an empty, '.' or '..' segment")
    return key


def content_type_for(key: str) -> str:
    """The MIME type implied by a key's extension (application/octet-stream if unknown)."""
    return mimetypes.guess_type(key)[0] or "application/octet-stream"


def fsync_dir(path: Path) -> None:
    """Persist a directory entry change (a rename) on POSIX filesystems."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class FilesystemStorage(MultipartUploads):
    """One bucket as a folder; presigned URLs point at the local ``/storage`` app."""

    def __init__(self, data_dir: Path, bucket: str, *, signer: UrlSigner,
                 notifier: Notifier | None = None,
                 expire_after_s: float = DEFAULT_EXPIRE_AFTER_S) -> None:
        if not bucket or "/" in bucket or bucket in (".", ".."):
            raise ValueError(f"invalid bucket name {bucket!r}")
        self.bucket = bucket
        self.data_dir = Path(data_dir)
        self.root = Path(data_dir) / "buckets" / bucket
        self.tmp_dir = Path(data_dir) / "tmp"
        self.uploads_dir = Path(data_dir) / "multipart" / bucket
        self.root.mkdir(parents=True, exist_ok=True)
        self.tmp_dir.mkdir(parents=True, exist_ok=True)
        self.signer = signer
        self.notifier = notifier or Notifier()
        self.expiry = ExpiryMarks(Path(data_dir) / "expirable" / bucket,
                                  expire_after_s=expire_after_s)

    def path_of(self, key: str) -> Path:
        """The file holding ``key``. Raises InvalidKeyError for unsafe keys."""
        return self.root / validate_key(key)

    def _info(self, key: str, path: Path) -> ObjectInfo:
        st = path.stat()
        return ObjectInfo(key=key, size=st.st_size, etag=f"{st.st_size:x}-{st.st_mtime_ns:x}",
                          last_modified=st.st_mtime, content_type=content_type_for(key))

    def temp_file(self) -> Path:
        """A new empty temp file on the same filesystem as the bucket (caller owns
        it). Raises DiskFullError."""
        with self.disk_full_as(None):
            fd, name = tempfile.mkstemp(dir=self.tmp_dir, prefix="upload-")
        os.close(fd)
        return Path(name)

    def disk_full_as(self, key: str | None) -> AbstractContextManager[None]:
        """A block whose full-disk OSErrors become DiskFullError naming the data
        folder (and the object being stored)."""
        doing = f"storing {self.bucket}/{key}" if key else f"writing to {self.bucket}"
        return disk_full_as(self.data_dir, doing=doing)

    def adopt_file(self, key: str, tmp: Path, *, if_absent: bool = False) -> ObjectInfo:
        """Move a finished temp file (from ``temp_file``) into place as ``key``.

        fsyncs it, renames it atomically, then sends the object-created event.
        With ``if_absent`` the move happens only if ``key`` does not exist yet
        (atomically: a hard link never replaces a file). Raises InvalidKeyError,
        ObjectExistsError, DiskFullError; DatabaseBusyError if the event cannot
        be queued.
        """
        dest = self.path_of(key)
        with self.disk_full_as(key):
            self._sync_and_place(tmp, dest, if_absent=if_absent)
        info = self._info(key, dest)
        self.notifier.object_created(self.bucket, info)
        return info

    def _sync_and_place(self, tmp: Path, dest: Path, *, if_absent: bool) -> None:
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())  # a filesystem that allocates late says ENOSPC here
        for attempt in range(PLACE_ATTEMPTS):
            try:
                dest.parent.mkdir(parents=True, exist_ok=True)
                self._place(tmp, dest, if_absent=if_absent)
                break
            except FileNotFoundError:
                # a delete pruned the (then empty) folder between our mkdir and our
                # rename: make it again; a missing temp file is the caller's fault
                if not tmp.exists() or attempt == PLACE_ATTEMPTS - 1:
                    raise
        fsync_dir(dest.parent)

    def _place(self, tmp: Path, dest: Path, *, if_absent: bool) -> None:
        if if_absent:
            try:
                os.link(tmp, dest)
            except FileExistsError:
                raise ObjectExistsError(f"{self.bucket}/{dest.relative_to(self.root)} "
                                        "already exists") from None
            os.unlink(tmp)
        else:
            os.replace(tmp, dest)

    def _write_from(self, key: str, source) -> ObjectInfo:
        validate_key(key)
        tmp = self.temp_file()
        try:
            with self.disk_full_as(key), open(tmp, "wb") as out:
                shutil.copyfileobj(source, out, COPY_CHUNK)
            return self.adopt_file(key, tmp)
        finally:
            tmp.unlink(missing_ok=True)

    def put_file(self, key: str, path: Path, *, content_type: str | None = None,
                 move: bool = False) -> ObjectInfo:
        """Copy a file in (streaming, atomic); with ``move``, take it: renamed in
        when it lies on the bucket's filesystem (a converted film is not copied
        again), else copied and removed; put back at ``path`` when storing
        fails. Raises InvalidKeyError, FileNotFoundError, DiskFullError
        (nothing is stored)."""
        if move:
            validate_key(key)
            tmp = self.temp_file()
            try:
                os.replace(path, tmp)
            except OSError as exc:
                tmp.unlink(missing_ok=True)
                if exc.errno != errno.EXDEV:
                    raise
            else:
                try:
                    return self.adopt_file(key, tmp)
                except BaseException:
                    os.replace(tmp, path)
                    raise
        with open(path, "rb") as src:
            info = self._write_from(key, src)
        if move:
            Path(path).unlink()
        return info

    def put_bytes(self, key: str, data: bytes, *, content_type: str | None = None) -> ObjectInfo:
        """Store small content (atomic). Raises InvalidKeyError, DiskFullError."""
        validate_key(key)
        tmp = self.temp_file()
        try:
            with self.disk_full_as(key):
                tmp.write_bytes(data)
            return self.adopt_file(key, tmp)
        finally:
            tmp.unlink(missing_ok=True)

    def _open(self, key: str):
        try:
            return open(self.path_of(key), "rb")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise ObjectNotFoundError(f"no object {self.bucket}/{key}") from None

    def get_file(self, key: str, path: Path) -> ObjectInfo:
        """Copy an object to ``path`` (streaming). Raises ObjectNotFoundError,
        DiskFullError naming ``path``'s folder (the caller removes the partial copy)."""
        with self._open(key) as src, \
                disk_full_as(Path(path).parent, doing=f"copying {self.bucket}/{key}"), \
                open(path, "wb") as out:
            shutil.copyfileobj(src, out, COPY_CHUNK)
            return self._info(key, Path(src.name))

    def get_bytes(self, key: str) -> bytes:
        """Read an object into memory. Raises ObjectNotFoundError."""
        with self._open(key) as src:
            return src.read()

    def head(self, key: str) -> ObjectInfo | None:
        """Metadata of an object, or None. Raises InvalidKeyError."""
        path = self.path_of(key)
        return self._info(key, path) if path.is_file() else None

    def exists(self, key: str) -> bool:
        """True when the object exists. Raises InvalidKeyError."""
        return self.path_of(key).is_file()

    def delete(self, key: str) -> None:
        """Remove an object (no error if absent), and the folders it leaves empty.
        Raises InvalidKeyError."""
        path = self.path_of(key)
        path.unlink(missing_ok=True)
        self._prune(path.parent)

    def _prune(self, folder: Path) -> None:
        """Remove ``folder`` and its parents below the bucket root while they are
        empty, with the expiry mark of each removed folder's prefix: a bucket has
        no folders on S3, so a deleted job leaves none here either. ``rmdir``
        refuses a folder that is not empty, so a concurrent write into it wins;
        a writer whose folder went between its mkdir and its rename makes it
        again (``adopt_file``)."""
        while folder != self.root and self.root in folder.parents:
            try:
                folder.rmdir()
            except FileNotFoundError:
                pass  # pruned by a concurrent delete: its parent may be empty now
            except OSError:
                return  # not empty (another object, or a write under way)
            else:
                self.expiry.unmark(folder.relative_to(self.root).as_posix() + "/")
            folder = folder.parent

    def list(self, prefix: str) -> Iterator[ObjectInfo]:
        """Objects whose key starts with ``prefix``, in key order."""
        base = self.root / prefix.rsplit("/", 1)[0] if "/" in prefix else self.root
        if ".." in prefix.split("/") or not base.is_dir():
            return
        keys: builtins.list[str] = []
        for dirpath, _dirs, files in os.walk(base):
            rel = Path(dirpath).relative_to(self.root).as_posix()
            for name in files:
                key = name if rel == "." else f"{rel}/{name}"
                if key.startswith(prefix):
                    keys.append(key)
        for key in sorted(keys):
            path = self.root / key
            if path.is_file():
                yield self._info(key, path)

    def presign_put(self, key: str, *, expires_s: int = 3600, max_bytes: int | None = None,
                    content_type: str | None = None) -> PresignedRequest:
        """A signed PUT URL for the local ``/storage`` app. Raises InvalidKeyError."""
        url, exp = self.signer.sign("put", self.bucket, validate_key(key), expires_s=expires_s,
                                    max_bytes=max_bytes)
        headers = {"Content-Type": content_type} if content_type else {}
        return PresignedRequest(url=url, method="PUT", headers=headers, expires_at=exp,
                                max_bytes=max_bytes)

    def presign_post(self, key: str, *, max_bytes: int, expires_s: int = 3600,
                     content_type: str | None = None,
                     success_redirect: str | None = None) -> PresignedRequest:
        """A form for the local ``/storage`` endpoint with a signed policy of
        S3's shape (its content-length-range is enforced while the file
        streams in: local_adapters.form_upload). Raises InvalidKeyError."""
        validate_key(key)
        expires_at = int(now() + expires_s)
        fields = post_fields(content_type, success_redirect)
        policy = encode_policy(policy_document(self.bucket, key, max_bytes=max_bytes,
                                               expires_at=expires_at, fields=fields))
        return PresignedRequest(
            url=f"{self.signer.base_url}/{quote(self.bucket, safe='')}", method="POST",
            fields={"key": key, **fields, "policy": policy,
                    SIGNATURE_FIELD: self.signer.sign_policy(policy)},
            expires_at=expires_at, max_bytes=max_bytes)

    def presign_get(self, key: str, *, expires_s: int = 3600,
                    download_name: str | None = None) -> str:
        """A signed GET URL (Range works); ``download_name`` makes it an attachment."""
        url, _ = self.signer.sign("get", self.bucket, validate_key(key), expires_s=expires_s,
                                  download_name=download_name)
        return url

    def mark_expirable(self, prefix: str) -> int:
        """Mark ``prefix`` for the local lifecycle rule (local_adapters.expiry)
        unless it holds no object, then sweep the prefixes whose mark is past
        the retention age."""
        count = sum(1 for _ in self.list(prefix))
        if count:  # as on S3, where tagging no objects leaves nothing behind
            self.expiry.mark(prefix)
        self.expiry.sweep(self)
        return count

    def unmark_expirable(self, prefix: str) -> int:
        """Forget the mark of ``prefix``: its objects stay."""
        self.expiry.unmark(prefix)
        return sum(1 for _ in self.list(prefix))

    def uri(self, key: str) -> str:
        """``file://`` URI of the object's path. Raises InvalidKeyError."""
        return self.path_of(key).resolve().as_uri()
