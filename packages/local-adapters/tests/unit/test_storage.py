"""Key validation of the filesystem storage (pure string checks)."""

import pytest
from shared_types.errors import InvalidKeyError, PermanentError

from local_adapters.storage import content_type_for, validate_key


@pytest.mark.parametrize("key", [
    "input/job/source.mp4", "jobs/j/segments/0.mp4", "a", "dir/with space/x+y.mp4",
    "..hidden/..name", "a/.b",
])
def test_safe_keys_are_accepted(key):
    assert validate_key(key) == key


@pytest.mark.parametrize("key", [
    "", "/etc/passwd", "../secret", "a/../../b", "a/./b", "a//b", "a/", "a\\b",
    "a\x00b", "a\nb", "x" * 1025,
])
def test_unsafe_keys_raise_a_permanent_invalid_key_error(key):
    with pytest.raises(InvalidKeyError) as info:
        validate_key(key)
    assert isinstance(info.value, PermanentError)


def test_content_type_comes_from_the_extension():
    assert content_type_for("jobs/j/final.mp4") == "video/mp4"
    assert content_type_for("blob") == "application/octet-stream"
