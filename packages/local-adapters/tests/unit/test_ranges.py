"""HTTP Range parsing for GET of local objects."""

import pytest

from local_adapters.storage_app import RangeNotSatisfiableError, parse_range


@pytest.mark.parametrize(("header", "span"), [
    (None, None), ("", None), ("bytes=0-0", (0, 0)), ("bytes=2-5", (2, 5)),
    ("bytes=5-", (5, 9)), ("bytes=-3", (7, 9)), ("bytes=-50", (0, 9)), ("bytes=8-100", (8, 9)),
    ("bytes=0-1,4-5", None),
])
def test_ranges_of_a_ten_byte_object(header, span):
    assert parse_range(header, 10) == span


@pytest.mark.parametrize("header", [
    "bytes=10-", "bytes=5-2", "bytes=-", "bytes=-0", "items=0-1", "bytes=a-b", "bytes 0-1",
    "bytes=" + "9" * 5000 + "-", "bytes=0-" + "9" * 5000,
])
def test_unsatisfiable_or_malformed_ranges_raise(header):
    with pytest.raises(RangeNotSatisfiableError):
        parse_range(header, 10)
