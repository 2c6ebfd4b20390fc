"""Pure helpers: DynamoDB item encoding, page cursors, keys, names, SQS rounding."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from shared_types.errors import InvalidKeyError

from aws_adapters.dynamo_jobs import decode_cursor, encode_cursor
from aws_adapters.dynamo_table import from_item, to_item
from aws_adapters.errors import AwsPermanentError
from aws_adapters.s3_storage import check_key
from aws_adapters.sqs_queue import _seconds, region_of


@given(st.one_of(st.just(0.0), st.floats(min_value=1e-6, max_value=4e9)))
def test_timestamps_round_trip_exactly(t):
    assert from_item(to_item({"t": t}))["t"] == t


def test_items_drop_none_and_keep_nested_values():
    item = to_item({"a": None, "b": 3, "c": {"d": 1.5, "e": None}, "s": "x", "f": True})
    assert "a" not in item
    assert item["b"] == {"N": "3"}
    assert from_item(item) == {"b": 3, "c": {"d": 1.5}, "s": "x", "f": True}


def test_cursors_round_trip_and_reject_garbage():
    key = {"job_id": "j1", "status": "completed", "completed_at": 12.5}
    assert decode_cursor(encode_cursor(key)) == key
    with pytest.raises(AwsPermanentError, match="invalid page cursor"):
        decode_cursor("%%%")
    with pytest.raises(AwsPermanentError):
        decode_cursor(encode_cursor({"something": "else"}))


@pytest.mark.parametrize("key", ["", "/abs", "a/../b", "a\\b", "nul\x00", "./a", "k" * 1025])
def test_unsafe_keys_are_refused(key):
    with pytest.raises(InvalidKeyError):
        check_key(key)


def test_ordinary_keys_pass_including_spaces_and_plus():
    assert check_key("input/my movie+1/source.mp4") == "input/my movie+1/source.mp4"


def test_sqs_seconds_round_up_and_clamp():
    assert (_seconds(0.2, 20), _seconds(1.0, 20), _seconds(-3, 20), _seconds(99, 20)) == (
        1, 1, 0, 20)


def test_region_is_read_from_an_aws_queue_url():
    assert region_of("https://sqs.eu-west-1.amazonaws.com/123/q") == "eu-west-1"
    assert region_of("http://127.0.0.1:5000/123/q") is None
