"""Multipart upload rules shared by every ObjectStorage: how a file is cut into
parts, and when a set of received parts may become one object.

S3's own rules (parts 1..10000, all but the last at least 5 MiB) are checked
on every backend, so an upload that completes locally also completes on S3.
"""

from __future__ import annotations

from collections.abc import Sequence

from shared_types.errors import InvalidUploadError, UploadTooLargeError
from shared_types.models import MAX_PARTS, MIN_PART_BYTES, UploadedPart

MIB = 1024 * 1024


def part_size_for(size: int, preferred: int) -> int:
    """The part size for a file of ``size`` bytes: ``preferred`` (at least 5 MiB),
    grown in whole MiB when the file would need more than 10000 parts.
    Raises ValueError for a negative size."""
    if size < 0:
        raise ValueError(f"negative file size {size}")
    part = max(preferred, MIN_PART_BYTES)
    needed = -(-size // MAX_PARTS)
    if needed > part:
        part = -(-needed // MIB) * MIB
    return part


def part_count(size: int, part_size: int) -> int:
    """How many parts a file of ``size`` bytes needs (an empty file still has one)."""
    return max(1, -(-size // part_size))


def checked_total(parts: Sequence[UploadedPart], max_bytes: int | None) -> int:
    """The size of the object ``parts`` make, after checking they can make one.

    Raises InvalidUploadError when there are no parts, a part number is
    missing, or a part other than the last is under 5 MiB; UploadTooLargeError
    when the total is over ``max_bytes``.
    """
    if not parts:
        raise InvalidUploadError("nothing was uploaded")
    numbers = [p.part_number for p in parts]
    if numbers != list(range(1, len(parts) + 1)):
        missing = sorted(set(range(1, max(numbers) + 1)) - set(numbers))
        raise InvalidUploadError(f"parts {missing[:10]} are missing")
    for part in parts[:-1]:
        if part.size < MIN_PART_BYTES:
            raise InvalidUploadError(
                f"part {part.part_number} has {part.size} bytes; parts before the last "
                f"need at least {MIN_PART_BYTES}")
    total = sum(p.size for p in parts)
    if max_bytes is not None and total > max_bytes:
        raise UploadTooLargeError(f"the upload is {total} bytes, over the {max_bytes}-byte limit")
    return total
