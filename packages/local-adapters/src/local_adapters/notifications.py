"""Object-created notifications: route S3-shaped events to queues by key rules."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from shared_types.events import build_s3_event_body
from shared_types.models import ObjectInfo
from shared_types.ports import Queue

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class NotificationRule:
    """Send an event to ``queue`` for objects of ``bucket`` matching prefix and suffix."""

    bucket: str
    queue: Queue
    prefix: str = ""
    suffix: str = ""

    def matches(self, bucket: str, key: str) -> bool:
        """True when an object written to ``bucket/key`` should notify this rule's queue."""
        return bucket == self.bucket and key.startswith(self.prefix) and key.endswith(self.suffix)


class Notifier:
    """Sends one ``build_s3_event_body`` message per matching rule after a write."""

    def __init__(self, rules: list[NotificationRule] | None = None) -> None:
        self.rules: list[NotificationRule] = list(rules or [])

    def add(self, rule: NotificationRule) -> None:
        """Add a routing rule."""
        self.rules.append(rule)

    def object_created(self, bucket: str, info: ObjectInfo) -> int:
        """Notify every matching queue; returns how many messages were sent.

        Raises DatabaseBusyError (transient) when a queue cannot take the event;
        the object is already written, so retrying the put is safe.
        """
        sent = 0
        for rule in self.rules:
            if rule.matches(bucket, info.key):
                rule.queue.send(build_s3_event_body(
                    bucket, info.key, size=info.size, etag=info.etag,
                    sequencer=f"{int((info.last_modified or 0) * 1e9):016X}"))
                log.debug("bucket=%s key=%s notified queue=%s", bucket, info.key,
                          rule.queue.name)
                sent += 1
        return sent
