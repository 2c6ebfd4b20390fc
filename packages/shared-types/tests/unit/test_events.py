"""S3 event parsing: test events, URL-encoded keys, several records, malformed bodies."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared_types.errors import MalformedMessageError, PermanentError
from shared_types.events import (
    build_s3_event_body,
    created_objects,
    parse_s3_event_body,
    s3_test_event_body,
)


def record(bucket: str, key: str, size: int = 1) -> dict:
    return {"eventName": "ObjectCreated:Put",
            "s3": {"bucket": {"name": bucket}, "object": {"key": key, "size": size}}}


def test_s3_test_event_has_no_records():
    assert parse_s3_event_body(s3_test_event_body("bucket")) == []


def test_keys_are_url_decoded_with_unquote_plus():
    body = json.dumps({"Records": [record("in", "input/my+video%28final%29+%2B1.mp4")]})
    [rec] = parse_s3_event_body(body)
    assert rec.key == "input/my video(final) +1.mp4"


def test_several_records_in_one_message_are_all_returned_in_order():
    body = json.dumps({"Records": [record("in", "a.mp4", 1), record("out", "b.mp4", 2)]})
    recs = parse_s3_event_body(body)
    assert [(r.bucket, r.key, r.size) for r in recs] == [("in", "a.mp4", 1), ("out", "b.mp4", 2)]


def test_etag_and_sequencer_are_kept():
    body = build_s3_event_body("in", "k.mp4", size=5, etag="abc", sequencer="0A")
    [rec] = parse_s3_event_body(body)
    assert (rec.etag, rec.sequencer, rec.size, rec.event_name) == (
        "abc", "0A", 5, "ObjectCreated:Put")


@given(st.text(min_size=1, max_size=40).filter(lambda k: "\x00" not in k),
       st.integers(0, 2**40))
def test_build_then_parse_round_trips_any_key(key, size):
    [rec] = parse_s3_event_body(build_s3_event_body("bucket", key, size=size))
    assert (rec.bucket, rec.key, rec.size) == ("bucket", key, size)


@pytest.mark.parametrize("body", [
    "",
    "not json",
    "[]",
    "42",
    "null",
    json.dumps({"Records": "nope"}),
    json.dumps({"Event": "s3:ObjectCreated"}),
    json.dumps({"Records": [{"s3": {}}]}),
    json.dumps({"Records": [{"s3": {"bucket": {"name": "b"}, "object": {}}}]}),
    json.dumps({"Records": [{"s3": {"bucket": {"name": 3}, "object": {"key": "k"}}}]}),
    json.dumps({"Records": [record("b", "k", size="big")]}),
    json.dumps({"Records": ["string record"]}),
])
def test_malformed_bodies_raise_a_permanent_malformed_message_error(body):
    with pytest.raises(MalformedMessageError) as info:
        parse_s3_event_body(body)
    assert isinstance(info.value, PermanentError)
    assert str(info.value)



def test_created_objects_parses_creations_and_hands_back_what_it_did_not_recognise():
    records = [json.loads(build_s3_event_body("b", key, size=1, event_name=name))["Records"][0]
               for key, name in (("segments/j/a.mp4", "ObjectCreated:Put"),
                                 ("notes.txt", "ObjectCreated:Put"),
                                 ("segments/j/c.mp4", "ObjectRemoved:Delete"))]
    parsed, ignored = created_objects(
        json.dumps({"Records": records}),
        lambda bucket, key: key if key.startswith("segments/") else None)
    assert parsed == ["segments/j/a.mp4"]
    assert [r.key for r in ignored] == ["notes.txt"]
