"""Input and output URIs of an invocation: ``s3://bucket/key`` or ``file://`` under a root.

Any other scheme is refused, and a ``file://`` URI must resolve inside the
configured root (no ``..`` escapes, no symlinks out), so a request can never
read or write arbitrary files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from stereo_inference.errors import InvalidRequestError


@dataclass(frozen=True)
class Location:
    uri: str
    path: Path | None = None  # file://
    bucket: str | None = None  # s3://
    key: str | None = None

    def object(self) -> tuple[str, str]:
        """(bucket, key) of an s3:// location. Raises InvalidRequestError for another."""
        if self.bucket is None or self.key is None:
            raise InvalidRequestError(f"{self.uri!r} is not an S3 object")
        return self.bucket, self.key


def parse_uri(uri: str, *, file_root: Path | None) -> Location:
    """Where ``uri`` points. Raises InvalidRequestError for another scheme, a
    malformed S3 URI, or a file:// URI outside ``file_root`` (or with no root)."""
    parts = urlsplit(uri)
    if parts.scheme == "s3":
        key = parts.path.lstrip("/")
        if not parts.netloc or not key or parts.query or parts.fragment:
            raise InvalidRequestError(f"malformed S3 URI {uri!r}: expected s3://bucket/key")
        return Location(uri=uri, bucket=parts.netloc, key=key)
    if parts.scheme == "file":
        return Location(uri=uri, path=_inside_root(uri, parts, file_root))
    raise InvalidRequestError(f"unsupported URI {uri!r}: only s3:// and file:// are accepted")


def _inside_root(uri: str, parts, file_root: Path | None) -> Path:
    if file_root is None:
        raise InvalidRequestError("file:// URIs are disabled on this server (no file root set)")
    if parts.netloc not in ("", "localhost"):
        raise InvalidRequestError(f"file:// URI must not name a host: {uri!r}")
    root = Path(file_root).resolve()
    path = Path(unquote(parts.path)).resolve()
    if path != root and root not in path.parents:
        raise InvalidRequestError(f"{uri!r} is outside the allowed folder")
    return path
