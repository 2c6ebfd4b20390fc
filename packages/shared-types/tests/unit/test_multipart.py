"""Part sizes and the completion check shared by every backend."""

import pytest

from shared_types.errors import InvalidUploadError, UploadTooLargeError
from shared_types.models import MAX_PARTS, MIN_PART_BYTES, UploadedPart
from shared_types.multipart import checked_total, part_count, part_size_for

MIB = 1024 * 1024


def test_the_preferred_part_size_is_used_but_never_under_5_mib():
    assert part_size_for(100 * MIB, 16 * MIB) == 16 * MIB
    assert part_size_for(100 * MIB, MIB) == MIN_PART_BYTES


def test_a_huge_file_gets_parts_big_enough_to_stay_under_10000_parts():
    size = 200 * 1024 * MIB
    part = part_size_for(size, 8 * MIB)
    assert part % MIB == 0
    assert part_count(size, part) <= MAX_PARTS


def test_an_empty_file_still_has_one_part():
    assert part_count(0, MIN_PART_BYTES) == 1


def parts(*sizes):
    return [UploadedPart(part_number=i + 1, size=s) for i, s in enumerate(sizes)]


def test_checked_total_adds_the_parts():
    assert checked_total(parts(MIN_PART_BYTES, 7), None) == MIN_PART_BYTES + 7


def test_checked_total_refuses_gaps_short_parts_and_oversize():
    with pytest.raises(InvalidUploadError, match="missing"):
        checked_total([UploadedPart(part_number=2, size=1)], None)
    with pytest.raises(InvalidUploadError, match="at least"):
        checked_total(parts(10, 10), None)
    with pytest.raises(UploadTooLargeError):
        checked_total(parts(MIN_PART_BYTES, 1), MIN_PART_BYTES)
    with pytest.raises(InvalidUploadError, match="nothing"):
        checked_total([], None)
