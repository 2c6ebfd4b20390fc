"""A presigned POST (HTML form upload) received by the local ``/storage`` endpoint.

The form is read as it streams in: the fields before the file are collected
(bounded in number and size), the signed policy is checked when the file
starts (S3 also requires the file to be the last field, and ignores fields
after it), and the file is written out while its size is counted against the
policy's content-length-range, so an over-cap upload is refused after at most
cap + one chunk bytes, never stored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import BinaryIO

from python_multipart.multipart import MultipartParser, parse_options_header
from shared_types.errors import ObjectExistsError, PolicyViolationError, UploadTooLargeError
from shared_types.keys import parse_source_key
from shared_types.models import now
from shared_types.upload_policy import check_form, decode_policy, size_range

from local_adapters.storage import SIGNATURE_FIELD, FilesystemStorage, validate_key

MAX_FIELDS = 50
MAX_FIELD_BYTES = 64 * 1024


def accept_form(storage: FilesystemStorage, fields: dict[str, str]) -> tuple[str, dict]:
    """The key and policy document of a form whose fields carry a valid
    signature and satisfy their policy. Raises SignatureError,
    PolicyViolationError, InvalidKeyError; ObjectExistsError when the key is a
    job's source that is already stored (one source per job)."""
    lowered = {name.lower(): value for name, value in fields.items()}
    policy, key = lowered.get("policy", ""), lowered.get("key", "")
    storage.signer.verify_policy(policy, lowered.get(SIGNATURE_FIELD, ""))
    document = decode_policy(policy)
    check_form(document, storage.bucket, fields, at=now())
    if size_range(document) is None:
        raise PolicyViolationError("the policy has no content-length-range")
    validate_key(key)
    if parse_source_key(key) is not None and storage.exists(key):
        raise ObjectExistsError(f"{storage.bucket}/{key} already exists")
    return key, document


class FormReader:
    """Feeds a multipart/form-data body through python-multipart. When the
    ``file`` part starts, ``on_file(fields)`` returns the largest size allowed
    (it raises to refuse the form); the file's bytes go to ``out``."""

    def __init__(self, content_type: str, on_file: Callable[[dict[str, str]], int],
                 out: BinaryIO) -> None:
        kind, params = parse_options_header(content_type or "")
        if kind != b"multipart/form-data" or not params.get(b"boundary"):
            raise PolicyViolationError("a POST upload must be multipart/form-data")
        self.fields: dict[str, str] = {}
        self.file_size = 0
        self.has_file = False
        self._on_file, self._out = on_file, out
        self._cap = 0
        self._in_file = self._after_file = False
        self._headers: dict[bytes, bytes] = {}
        self._header = [b"", b""]
        self._name = ""
        self._value = bytearray()
        self._parser = MultipartParser(params[b"boundary"], callbacks={
            "on_part_begin": self._part_begin,
            "on_header_field": lambda d, s, e: self._grow(0, d[s:e]),
            "on_header_value": lambda d, s, e: self._grow(1, d[s:e]),
            "on_header_end": self._header_end,
            "on_headers_finished": self._headers_finished,
            "on_part_data": self._part_data,
            "on_part_end": self._part_end,
        })

    def feed(self, chunk: bytes) -> None:
        """Parse the next piece of the body. Raises what ``on_file`` raises,
        UploadTooLargeError past the cap, PolicyViolationError for a malformed form."""
        self._parser.write(chunk)

    def finish(self) -> None:
        """The body ended. Raises PolicyViolationError when it held no file."""
        self._parser.finalize()
        if not self.has_file:
            raise PolicyViolationError("the form has no file field (it must be the last field)")

    def _grow(self, which: int, data: bytes) -> None:
        self._header[which] += data
        if len(self._header[which]) > MAX_FIELD_BYTES:
            raise PolicyViolationError("a form part header is too long")

    def _part_begin(self) -> None:
        self._headers, self._name, self._value = {}, "", bytearray()

    def _header_end(self) -> None:
        self._headers[self._header[0].lower()] = self._header[1]
        self._header = [b"", b""]

    def _headers_finished(self) -> None:
        if self._after_file:
            return
        _, params = parse_options_header(self._headers.get(b"content-disposition", b""))
        self._name = params.get(b"name", b"").decode("utf-8", "replace")
        if self._name == "file":
            self._cap = self._on_file(dict(self.fields))
            self._in_file = self.has_file = True
        elif len(self.fields) >= MAX_FIELDS:
            raise PolicyViolationError(f"the form has more than {MAX_FIELDS} fields")

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if self._in_file:
            self.file_size += end - start
            if self.file_size > self._cap:
                raise UploadTooLargeError(f"Your proposed upload exceeds the maximum allowed "
                                          f"size ({self._cap} bytes)")
            self._out.write(data[start:end])
        elif not self._after_file:
            self._value += data[start:end]
            if len(self._value) > MAX_FIELD_BYTES:
                raise PolicyViolationError(f"form field {self._name!r} is too long")

    def _part_end(self) -> None:
        if self._in_file:
            self._in_file, self._after_file = False, True
        elif not self._after_file and self._name:
            self.fields[self._name] = self._value.decode("utf-8", "replace")
