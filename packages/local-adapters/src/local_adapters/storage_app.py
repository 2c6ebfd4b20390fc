"""The ASGI app behind local presigned URLs; web-ui mounts it at ``/storage``.

``GET /{bucket}/{key}`` serves an object with HTTP Range support (video
seeking); ``PUT /{bucket}/{key}`` streams the request body to a temp file,
enforcing the signed size cap while streaming, then moves it into place (which
raises the object-created event). ``PUT ...?op=part&upload=..&part=n`` stores
one part of a multipart upload the same way, refusing a part that would take
the upload over its cap. ``POST /{bucket}`` takes a presigned POST form (S3's
browser upload) and enforces its signed policy (local_adapters.form_upload).
Every request needs a valid, unexpired signature made by this backend's
:class:`UrlSigner`. A write that finds the disk full answers 507 with a sentence
naming the data folder (its temp file removed, nothing stored).
"""

from __future__ import annotations

import logging
import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import anyio
from shared_types import keys
from shared_types.content_disposition import content_disposition
from shared_types.errors import (
    DiskFullError,
    InvalidKeyError,
    ObjectExistsError,
    PolicyViolationError,
    UploadNotFoundError,
    UploadTooLargeError,
    UploadTooSmallError,
)
from shared_types.ports import Backend
from shared_types.settings import BackendSettings
from shared_types.upload_policy import check_size, size_range
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from local_adapters.backend import build_backend
from local_adapters.errors import SignatureError
from local_adapters.form_upload import FormReader, accept_form
from local_adapters.signing import SignedRequest
from local_adapters.storage import FilesystemStorage, validate_key

log = logging.getLogger(__name__)

CHUNK = 256 * 1024
# At most 19 digits: anything longer is past any object size, and int() of a
# 5000-digit string raises ValueError (Python's digit limit) instead of a 416.
_RANGE_RE = re.compile(r"^bytes=(\d{0,19})-(\d{0,19})$")


class RangeNotSatisfiableError(ValueError):
    """The Range header is malformed or outside the object."""


def parse_range(header: str | None, size: int) -> tuple[int, int] | None:
    """(start, end inclusive) of a single ``bytes=`` range, or None to send it all.

    Several ranges are answered with the whole object (allowed by RFC 9110).
    Raises RangeNotSatisfiableError for a malformed or unsatisfiable range.
    """
    if not header:
        return None
    if "," in header:
        return None
    m = _RANGE_RE.match(header.strip()[:64])
    if len(header.strip()) > 64 or not m or (m[1] == "" and m[2] == ""):
        raise RangeNotSatisfiableError(f"malformed Range {header!r}")
    if m[1] == "":  # suffix range: the last N bytes
        length = int(m[2])
        if length == 0 or size == 0:
            raise RangeNotSatisfiableError("empty suffix range")
        return max(0, size - length), size - 1
    start = int(m[1])
    end = int(m[2]) if m[2] else size - 1
    if start >= size or end < start:
        raise RangeNotSatisfiableError(f"range {header!r} outside 0..{size - 1}")
    return start, min(end, size - 1)


async def _file_chunks(path, start: int, length: int):
    with open(path, "rb") as fh:
        fh.seek(start)
        remaining = length
        while remaining > 0:
            data = await anyio.to_thread.run_sync(fh.read, min(CHUNK, remaining))
            if not data:
                return
            remaining -= len(data)
            yield data


# The refusals the endpoint answers with their error: its status, how its text starts
# (S3's codes where a browser's upload code looks for them).
_REFUSALS: dict[type[Exception], tuple[int, str]] = {
    SignatureError: (403, "forbidden"),
    InvalidKeyError: (400, "bad key"),
    UploadNotFoundError: (404, "no such upload"),
    PolicyViolationError: (403, "AccessDenied"),
    UploadTooLargeError: (400, "EntityTooLarge"),
    UploadTooSmallError: (400, "EntityTooSmall"),
}


def _error(status: int, reason: str) -> Response:
    return PlainTextResponse(reason, status_code=status)


class _StorageEndpoint:
    def __init__(self, storages: dict[str, FilesystemStorage]) -> None:
        self.storages = storages

    def _resolve(self, request: Request, op: str
                 ) -> tuple[FilesystemStorage, str, SignedRequest]:
        bucket, key = request.path_params["bucket"], request.path_params["key"]
        storage = self.storages.get(bucket)
        if storage is None:
            raise SignatureError(f"unknown bucket {bucket!r}")
        signed = storage.signer.verify(bucket, key, dict(request.query_params), op=op)
        return storage, validate_key(key), signed

    async def __call__(self, scope, receive, send) -> None:
        request = Request(scope, receive)
        op = "get"
        if request.method == "PUT":
            op = "part" if request.query_params.get("op") == "part" else "put"
        try:
            if request.method == "POST":
                response = await self._post_form(request)
                await response(scope, receive, send)
                return
            storage, key, signed = self._resolve(request, op)
            if op == "part":
                response = await self._put_part(request, storage, key, signed)
            elif op == "put":
                response = await self._put(request, storage, key, signed.max_bytes)
            else:
                response = await self._get(request, storage, key, signed.download_name)
        except tuple(_REFUSALS) as exc:
            status, prefix = next(v for t, v in _REFUSALS.items() if isinstance(exc, t))
            response = _error(status, f"{prefix}: {exc}")
        except ObjectExistsError:
            response = _error(409, "This job already has its video.")
        except DiskFullError as exc:  # the temp file is gone; a resumed upload can go on
            log.warning("%s %s refused: %s", request.method, request.url.path, exc)
            response = _error(507, str(exc))
        await response(scope, receive, send)

    async def _get(self, request: Request, storage: FilesystemStorage, key: str,
                   dl: str | None) -> Response:
        info = storage.head(key)
        if info is None:
            return _error(404, f"no object {key}")
        headers = {"Accept-Ranges": "bytes", "Content-Type": info.content_type or "",
                   "ETag": f'"{info.etag}"'}
        if dl:
            headers["Content-Disposition"] = content_disposition(dl)
        try:
            span = parse_range(request.headers.get("range"), info.size)
        except RangeNotSatisfiableError as exc:
            return Response(f"range not satisfiable: {exc}", status_code=416,
                            headers={"Content-Range": f"bytes */{info.size}"})
        status, start, length = 200, 0, info.size
        if span is not None:
            status, start, length = 206, span[0], span[1] - span[0] + 1
            headers["Content-Range"] = f"bytes {span[0]}-{span[1]}/{info.size}"
        headers["Content-Length"] = str(length)
        if request.method == "HEAD":
            return Response(status_code=status, headers=headers)
        return StreamingResponse(_file_chunks(storage.path_of(key), start, length),
                                 status_code=status, headers=headers)

    async def _receive(self, request: Request, storage: FilesystemStorage, key: str,
                       cap: int | None, adopt) -> Response:
        """Stream the body to a temp file under ``cap``, then ``adopt(tmp)``."""
        declared = request.headers.get("content-length")
        if cap is not None and declared and declared.isdigit() and int(declared) > cap:
            return _error(413, f"upload of {declared} bytes is over the {cap}-byte limit")
        tmp = storage.temp_file()
        try:
            total = 0
            with storage.disk_full_as(key), open(tmp, "wb") as out:
                async for chunk in request.stream():
                    total += len(chunk)
                    if cap is not None and total > cap:
                        return _error(413, f"upload is over the {cap}-byte limit")
                    out.write(chunk)
            info = await anyio.to_thread.run_sync(adopt, tmp)
        except ClientDisconnect:
            log.info("bucket=%s key=%s upload aborted by the client", storage.bucket, key)
            return _error(400, "upload interrupted")
        finally:
            tmp.unlink(missing_ok=True)
        log.info("bucket=%s key=%s received %d bytes", storage.bucket, key, info.size)
        return JSONResponse({"key": key, "size": info.size, "etag": info.etag},
                            headers={"ETag": f'"{info.etag}"'})

    async def _put(self, request: Request, storage: FilesystemStorage, key: str,
                   cap: int | None) -> Response:
        # One source per job: an upload URL used a second time cannot replace the
        # video a chunker may already be reading (conditional first write).
        once = keys.parse_source_key(key) is not None
        if once and storage.exists(key):  # early answer; adopt_file decides atomically
            return _error(409, "This job already has its video.")
        return await self._receive(request, storage, key, cap,
                                   lambda tmp: storage.adopt_file(key, tmp, if_absent=once))

    async def _post_form(self, request: Request) -> Response:
        storage = self.storages.get(request.path_params["bucket"])
        if storage is None:
            raise SignatureError(f"unknown bucket {request.path_params['bucket']!r}")
        accepted: dict = {}

        def on_file(fields: dict[str, str]) -> int:
            accepted["key"], accepted["policy"] = accept_form(storage, fields)
            bounds = size_range(accepted["policy"])
            assert bounds is not None  # accept_form refuses a policy without one
            return bounds[1]

        tmp = storage.temp_file()
        try:
            with storage.disk_full_as(None), open(tmp, "wb") as out:
                reader = FormReader(request.headers.get("content-type", ""), on_file, out)
                async for chunk in request.stream():
                    reader.feed(chunk)
                reader.finish()
            check_size(accepted["policy"], reader.file_size)
            key = accepted["key"]
            once = keys.parse_source_key(key) is not None
            info = await anyio.to_thread.run_sync(
                lambda: storage.adopt_file(key, tmp, if_absent=once))
        except ClientDisconnect:
            log.info("bucket=%s form upload aborted by the client", storage.bucket)
            return _error(400, "upload interrupted")
        finally:
            tmp.unlink(missing_ok=True)
        log.info("bucket=%s key=%s received %d bytes by form", storage.bucket, key, info.size)
        return _form_answer(reader.fields, storage.bucket, key, f'"{info.etag}"')

    async def _put_part(self, request: Request, storage: FilesystemStorage, key: str,
                        signed: SignedRequest) -> Response:
        upload_id, number = signed.upload_id, signed.part_number
        if upload_id is None or number is None:
            raise SignatureError("a part URL must name its upload and part number")
        room = await anyio.to_thread.run_sync(storage.room_for_part, key, upload_id, number)
        if signed.max_bytes is not None:  # the part's own signed length
            room = signed.max_bytes if room is None else min(room, signed.max_bytes)
        return await self._receive(request, storage, key, room,
                                   lambda tmp: storage.adopt_part(key, upload_id, number, tmp))


def _form_answer(fields: dict[str, str], bucket: str, key: str, etag: str) -> Response:
    """S3's answer to a stored form upload: 303 to ``success_action_redirect``
    (with bucket, key and etag added to its query), else the
    ``success_action_status`` asked for (200 or 201), else 204."""
    lowered = {name.lower(): value for name, value in fields.items()}
    redirect = lowered.get("success_action_redirect")
    if redirect:
        parts = urlsplit(redirect)
        query = parse_qsl(parts.query) + [("bucket", bucket), ("key", key), ("etag", etag)]
        return Response(status_code=303,
                        headers={"Location": urlunsplit(parts._replace(query=urlencode(query)))})
    status = lowered.get("success_action_status")
    return Response(status_code=int(status) if status in ("200", "201") else 204,
                    headers={"ETag": etag})


def storage_app(settings: BackendSettings, *, backend: Backend | None = None) -> Starlette:
    """The Starlette app serving presigned URLs for the local buckets.

    Pass ``backend`` to share one already built (its storages must be
    FilesystemStorage); otherwise one is built from ``settings``. Responses:
    403 bad/expired signature, 400 bad key, 404 missing object, 413 over the
    size cap, 416 bad Range. Raises TypeError for a non-filesystem backend.
    """
    if backend is None:
        backend = build_backend(settings)
    storages = {}
    for storage in (backend.input_storage, backend.output_storage):
        if not isinstance(storage, FilesystemStorage):
            raise TypeError(f"storage_app needs FilesystemStorage, got {type(storage).__name__}")
        storages[storage.bucket] = storage
    endpoint = _StorageEndpoint(storages)
    return Starlette(routes=[
        Route("/{bucket}", endpoint, methods=["POST"]),
        Route("/{bucket}/", endpoint, methods=["POST"]),
        Route("/{bucket}/{key:path}", endpoint, methods=["GET", "HEAD", "PUT"]),
    ])
