"""The ``Content-Disposition`` a download is saved under, for every store.

S3 puts it in a presigned URL (``ResponseContentDisposition``), the local
store's app in its response; both take it from here, so a file name means the
same header on either backend.
"""

from __future__ import annotations

import re
from urllib.parse import quote

# control characters (CR/LF would split the header), quotes, backslashes, path
# and parameter separators never reach it
_UNSAFE = re.compile(r'[\x00-\x1f\x7f"\\/;]')


def content_disposition(download_name: str) -> str:
    """An ``attachment`` header value saving as ``download_name`` (RFC 6266: an
    ASCII fallback, then the UTF-8 ``filename*`` that browsers prefer)."""
    clean = _UNSAFE.sub("_", download_name).strip() or "download"
    ascii_name = clean.encode("ascii", "replace").decode().replace("?", "_")
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(clean, safe='')}"
