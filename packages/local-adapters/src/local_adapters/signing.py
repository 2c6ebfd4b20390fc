"""HMAC-SHA256 signed, expiring URLs for the local ``/storage`` endpoint.

A URL looks like
``{public_base_url}/storage/{bucket}/{key}?op=put&exp=...&max=...&dl=...&sig=...``.
The signature covers the operation, bucket, key, expiry, size cap and download
name (and, for ``op=part``, the upload id and part number), so changing any of
them invalidates it.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode

from shared_types.models import now

from local_adapters.errors import SignatureError

OPERATIONS = ("get", "put", "part")


def load_or_create_secret(path: Path) -> bytes:
    """The signing secret stored at ``path``, created (mode 0600) on first use.

    Creation is atomic (write a temp file, then hard-link it into place), so
    processes starting together all end up with the same secret.
    """
    path = Path(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, secrets.token_hex(32).encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process won the race; use its secret
        finally:
            tmp.unlink()
    return path.read_bytes().strip()


@dataclass(frozen=True)
class SignedRequest:
    """What a verified URL allows."""

    op: str
    bucket: str
    key: str
    expires_at: int
    max_bytes: int | None
    download_name: str | None
    upload_id: str | None = None
    part_number: int | None = None


class UrlSigner:
    """Signs and verifies ``/storage`` URLs with one secret."""

    def __init__(self, secret: bytes, public_base_url: str) -> None:
        if not secret:
            raise ValueError("the signing secret must not be empty")
        self._secret = secret
        self.base_url = public_base_url.rstrip("/") + "/storage"

    def _signature(self, op: str, bucket: str, key: str, exp: int, max_bytes: str,
                   dl: str, upload: str = "", part: str = "") -> str:
        fields: tuple[str, ...] = (op, bucket, key, str(exp), max_bytes, dl)
        if op == "part":
            fields += (upload, part)
        message = "\n".join(fields).encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()

    def sign(self, op: str, bucket: str, key: str, *, expires_s: float,
             max_bytes: int | None = None, download_name: str | None = None,
             upload_id: str = "", part_number: int | None = None) -> tuple[str, int]:
        """A signed URL for ``op`` on one object and its expiry (epoch seconds);
        ``op="part"`` URLs also name a multipart upload and a part number."""
        if op not in OPERATIONS:
            raise ValueError(f"unknown operation {op!r}")
        exp = int(now() + expires_s)
        max_s = "" if max_bytes is None else str(int(max_bytes))
        dl = download_name or ""
        query = {"op": op, "exp": exp}
        if max_s:
            query["max"] = max_s
        if dl:
            query["dl"] = dl
        part_s = "" if part_number is None else str(int(part_number))
        if op == "part":
            query["upload"], query["part"] = upload_id, part_s
        query["sig"] = self._signature(op, bucket, key, exp, max_s, dl, upload_id, part_s)
        path = f"{self.base_url}/{quote(bucket, safe='')}/{quote(key, safe='/')}"
        return f"{path}?{urlencode(query)}", exp

    def sign_policy(self, policy: str) -> str:
        """The signature of a presigned POST's base64 policy document."""
        return hmac.new(self._secret, b"post\n" + policy.encode(), hashlib.sha256).hexdigest()

    def verify_policy(self, policy: str, signature: str) -> None:
        """Accept a POST policy signed by :meth:`sign_policy`. Raises
        SignatureError when the policy or signature is missing or they differ."""
        if not policy or not signature:
            raise SignatureError("the form has no policy or no signature")
        if not hmac.compare_digest(signature, self.sign_policy(policy)):
            raise SignatureError("signature does not match")

    def verify(self, bucket: str, key: str, query: dict[str, str], *, op: str) -> SignedRequest:
        """The request a URL's query allows for ``op`` on ``bucket/key``.

        Raises SignatureError with a reason when the signature does not match,
        the URL is for another operation, a field is malformed, or it expired.
        """
        sig = query.get("sig", "")
        max_s, dl = query.get("max", ""), query.get("dl", "")
        try:
            exp = int(query.get("exp", ""))
        except ValueError:
            raise SignatureError("missing or malformed expiry") from None
        upload, part = query.get("upload", ""), query.get("part", "")
        expected = self._signature(query.get("op", ""), bucket, key, exp, max_s, dl,
                                   upload, part)
        if not sig or not hmac.compare_digest(sig, expected):
            raise SignatureError("signature does not match")
        if query.get("op") != op:
            raise SignatureError(f"this URL allows {query.get('op')!r}, not {op!r}")
        if exp < now():
            raise SignatureError("URL expired")
        if op == "part" and not (upload and part.isdigit()):
            raise SignatureError("a part URL needs an upload id and a part number")
        return SignedRequest(op=op, bucket=bucket, key=key, expires_at=exp,
                             max_bytes=int(max_s) if max_s else None,
                             download_name=dl or None, upload_id=upload or None,
                             part_number=int(part) if op == "part" else None)
