"""S3 object-created events: parse what S3 (or the local backend) sends to a queue.

The local backend builds the same JSON with :func:`build_s3_event_body`, so
workers have one parsing path for both backends.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TypeVar
from urllib.parse import quote_plus, unquote_plus

from shared_types.errors import MalformedMessageError
from shared_types.models import S3EventRecord, now

T = TypeVar("T")


def parse_s3_event_body(body: str) -> list[S3EventRecord]:
    """Records of an S3 event notification message.

    Returns [] for ``s3:TestEvent``. Keys are URL-decoded (``unquote_plus``).
    Raises MalformedMessageError for anything that is not an S3 event.
    """
    try:
        doc = json.loads(body)
    except (TypeError, ValueError) as exc:
        raise MalformedMessageError(f"message body is not JSON: {exc}") from exc
    if not isinstance(doc, dict):
        raise MalformedMessageError("message body is not a JSON object")
    if doc.get("Event") == "s3:TestEvent":
        return []
    records = doc.get("Records")
    if not isinstance(records, list):
        raise MalformedMessageError("message has no Records list")
    out: list[S3EventRecord] = []
    for raw in records:
        try:
            s3 = raw["s3"]
            obj = s3["object"]
            key = obj["key"]
            bucket = s3["bucket"]["name"]
            if not isinstance(key, str) or not isinstance(bucket, str):
                raise TypeError("bucket and key must be strings")
            size = obj.get("size")
            out.append(
                S3EventRecord(
                    bucket=bucket,
                    key=unquote_plus(key),
                    size=int(size) if size is not None else None,
                    etag=obj.get("eTag") or obj.get("etag"),
                    sequencer=obj.get("sequencer"),
                    event_name=str(raw.get("eventName", "ObjectCreated:Put")),
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise MalformedMessageError(f"malformed S3 event record: {exc!r}") from exc
    return out


def created_objects(
    body: str, parse: Callable[[str, str], T | None]
) -> tuple[list[T], list[S3EventRecord]]:
    """What ``parse(bucket, key)`` makes of each object-created record of an S3
    event body, and the created records it returned None for (the caller logs
    them); other events (removals) are dropped. Raises MalformedMessageError
    for a body that is not an S3 event."""
    parsed: list[T] = []
    ignored: list[S3EventRecord] = []
    for record in parse_s3_event_body(body):
        if not record.event_name.startswith("ObjectCreated"):
            continue
        item = parse(record.bucket, record.key)
        if item is None:
            ignored.append(record)
        else:
            parsed.append(item)
    return parsed, ignored


def build_s3_event_body(
    bucket: str,
    key: str,
    *,
    size: int,
    etag: str | None = None,
    sequencer: str | None = None,
    event_name: str = "ObjectCreated:Put",
) -> str:
    """The JSON body S3 would send for one object-created event."""
    record = {
        "eventVersion": "2.1",
        "eventSource": "aws:s3",
        "eventTime": f"{now():.3f}",
        "eventName": event_name,
        "s3": {
            "bucket": {"name": bucket},
            "object": {
                "key": quote_plus(key, safe="/"),
                "size": size,
                "eTag": etag,
                "sequencer": sequencer,
            },
        },
    }
    return json.dumps({"Records": [record]})


def s3_test_event_body(bucket: str) -> str:
    """The body of the ``s3:TestEvent`` S3 sends when a notification is configured."""
    return json.dumps({"Service": "Amazon S3", "Event": "s3:TestEvent", "Bucket": bucket})
