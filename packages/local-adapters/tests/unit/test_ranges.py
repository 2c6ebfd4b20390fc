"""HTTP Range parsing for GET of local objects."""

import pytest

from local_adapters.storage_app import RangeNotSatisfiableError, content_disposition, parse_range


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


def test_content_disposition_is_safe_for_any_name():
    value = content_disposition('my "3D" vidéo.mp4')
    assert value.startswith('attachment; filename="my _3D_ vid?o.mp4"')
    assert "filename*=UTF-8''my%20%223D%22%20vid%C3%A9o.mp4" in value


def test_content_disposition_drops_control_characters():
    value = content_disposition("a\r\nb\x00.mp4")
    assert value.startswith('attachment; filename="a__b_.mp4"')
    assert all(ch.isprintable() for ch in value)
