"""Byte counts as people read them: the one wording every message and page
uses (an upload's limit, a full disk's free space, a file that is too large).

Units are binary, labelled the way file managers and ``df -h`` show them
(1 GB here is 1024^3 bytes), so a limit set as ``20 * 1024**3`` reads "20.0 GB"
and a disk-full sentence agrees with what ``df -h`` says. web-ui's page script
(``humanSize`` in app.js) follows the same rule.
"""

from __future__ import annotations

_UNITS = (("TB", 1024 ** 4), ("GB", 1024 ** 3), ("MB", 1024 ** 2), ("KB", 1024))


def size_words(num_bytes: int) -> str:
    """``1.2 GB``, ``340.0 MB``, ``12.0 KB``, ``12 bytes``."""
    for unit, scale in _UNITS:
        if num_bytes >= scale:
            return f"{num_bytes / scale:.1f} {unit}"
    return f"{num_bytes} bytes"
