"""Queue on SQS (standard queues; dead-lettering by the queue's redrive policy).

SQS counts visibility in whole seconds: ``visibility_s`` and ``delay_s`` are
rounded up (a lease is never shorter than asked). Long polls wait at most 20 s
per call; longer waits poll again until the deadline.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import time
from typing import Any

from shared_types.errors import LeaseLostError
from shared_types.models import Message, QueueStats

from aws_adapters.clients import make_client
from aws_adapters.errors import MessageTooLargeError, NoDeadLetterQueueError, translated

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 262_144
MAX_BATCH = 10
MAX_WAIT_S = 20
MAX_VISIBILITY_S = 43_200
MAX_DELAY_S = 900
REASON_ATTRIBUTE = "dead_letter_reason"
MAX_REASON_CHARS = 1000
# How long dead_letters() hides the messages it peeks at before releasing them.
PEEK_VISIBILITY_S = 30


def _seconds(value: float, upper: int) -> int:
    return max(0, min(upper, math.ceil(value)))


def region_of(queue_url: str) -> str | None:
    """The region in an AWS queue URL (``https://sqs.<region>.amazonaws.com/...``)."""
    match = re.match(r"^https?://sqs\.([a-z0-9-]+)\.amazonaws\.com", queue_url)
    return match[1] if match else None


def _message(raw: dict[str, Any]) -> Message:
    count = int(raw.get("Attributes", {}).get("ApproximateReceiveCount", 1))
    return Message(message_id=raw["MessageId"], body=raw["Body"],
                   receipt=raw["ReceiptHandle"], receive_count=count)


def _reason(raw: dict[str, Any]) -> str | None:
    """The reason ``dead_letter`` attached to a dead letter (None: SQS's redrive)."""
    attribute = raw.get("MessageAttributes", {}).get(REASON_ATTRIBUTE)
    return attribute.get("StringValue") if attribute else None


class SqsQueue:
    """One SQS queue and (when its redrive policy names one) its dead-letter queue."""

    def __init__(self, queue_url: str, *, name: str | None = None, client: Any = None,
                 region: str | None = None, endpoint_url: str | None = None,
                 dlq_url: str | None = None) -> None:
        self.url = queue_url
        self.name = name or queue_url.rstrip("/").rsplit("/", 1)[-1]
        self._client = client or make_client(
            "sqs", region=region or region_of(queue_url), endpoint_url=endpoint_url)
        self._dlq_url = dlq_url

    @classmethod
    def from_name(cls, queue_name: str, *, name: str | None = None, client: Any = None,
                  region: str | None = None, endpoint_url: str | None = None) -> SqsQueue:
        """The queue called ``queue_name`` (GetQueueUrl). Raises AwsNotFoundError."""
        client = client or make_client("sqs", region=region, endpoint_url=endpoint_url)
        with translated(f"get url of queue {queue_name}"):
            url = client.get_queue_url(QueueName=queue_name)["QueueUrl"]
        return cls(url, name=name or queue_name, client=client)

    @property
    def dlq_url(self) -> str:
        """URL of the dead-letter queue named by the redrive policy.
        Raises NoDeadLetterQueueError when the queue has none."""
        if self._dlq_url is None:
            with translated(f"read redrive policy of {self.name}"):
                attrs = self._client.get_queue_attributes(
                    QueueUrl=self.url, AttributeNames=["RedrivePolicy"]).get("Attributes", {})
            policy = attrs.get("RedrivePolicy")
            if not policy:
                raise NoDeadLetterQueueError(f"queue {self.name} has no redrive policy (DLQ)")
            arn = json.loads(policy)["deadLetterTargetArn"]
            _, _, _, _, account, dlq_name = arn.split(":", 5)
            with translated(f"get url of dead-letter queue {dlq_name}"):
                self._dlq_url = self._client.get_queue_url(
                    QueueName=dlq_name, QueueOwnerAWSAccountId=account)["QueueUrl"]
        return self._dlq_url

    def send(self, body: str, *, delay_s: float = 0) -> str:
        """Enqueue a message; returns its message id.
        Raises MessageTooLargeError over 256 KiB."""
        size = len(body.encode("utf-8"))
        if size > MAX_BODY_BYTES:
            raise MessageTooLargeError(
                f"message of {size} bytes is over the SQS limit of {MAX_BODY_BYTES} bytes")
        with translated(f"send to {self.name}"):
            resp = self._client.send_message(QueueUrl=self.url, MessageBody=body,
                                             DelaySeconds=_seconds(delay_s, MAX_DELAY_S))
        return resp["MessageId"]

    def _receive_once(self, url: str, count: int, wait_s: int, visibility: int) -> list[dict]:
        with translated(f"receive from {self.name}"):
            resp = self._client.receive_message(
                QueueUrl=url, MaxNumberOfMessages=count, WaitTimeSeconds=wait_s,
                VisibilityTimeout=visibility, MessageSystemAttributeNames=["All"],
                MessageAttributeNames=["All"])
        return resp.get("Messages", [])

    def receive(self, *, max_messages: int = 1, wait_s: float = 0,
                visibility_s: float = 30, stop: threading.Event | None = None
                ) -> list[Message]:
        """Lease up to ``max_messages`` (batches of 10), long polling up to
        ``wait_s``; a set ``stop`` ends it between polls (one SQS long poll
        cannot be cut short). SQS moves messages past the max receive count to
        the DLQ."""
        deadline = time.monotonic() + wait_s
        visibility = _seconds(visibility_s, MAX_VISIBILITY_S)
        out: list[Message] = []
        while len(out) < max_messages and not (stop is not None and stop.is_set()):
            remaining = deadline - time.monotonic()
            wait = _seconds(remaining, MAX_WAIT_S) if not out and remaining > 0 else 0
            batch = self._receive_once(self.url, min(MAX_BATCH, max_messages - len(out)),
                                       wait, visibility)
            out.extend(_message(raw) for raw in batch)
            if not batch and (out or time.monotonic() >= deadline):
                break
        return out

    def extend(self, message: Message, visibility_s: float) -> None:
        """Keep a leased message invisible ``visibility_s`` more seconds.
        Raises LeaseLostError when SQS rejects the receipt handle."""
        with translated(f"extend message {message.message_id} on {self.name}"):
            self._client.change_message_visibility(
                QueueUrl=self.url, ReceiptHandle=message.receipt,
                VisibilityTimeout=_seconds(visibility_s, MAX_VISIBILITY_S))

    def delete(self, message: Message) -> None:
        """Acknowledge a message; a receipt SQS no longer accepts is ignored."""
        try:
            with translated(f"delete message {message.message_id} on {self.name}"):
                self._client.delete_message(QueueUrl=self.url, ReceiptHandle=message.receipt)
        except LeaseLostError:
            log.warning("queue=%s message_id=%s stale receipt, not deleted",
                        self.name, message.message_id)

    def release(self, message: Message) -> None:
        """Make a leased message visible again now (no error for a stale receipt)."""
        try:
            self.extend(message, 0)
        except LeaseLostError:
            log.warning("queue=%s message_id=%s stale receipt, not released",
                        self.name, message.message_id)

    def dead_letter(self, message: Message, reason: str) -> None:
        """Send the message to the DLQ with ``reason`` as a message attribute,
        then delete it here. Raises NoDeadLetterQueueError."""
        attributes = {
            REASON_ATTRIBUTE: {"DataType": "String",
                               "StringValue": (reason or "unspecified")[:MAX_REASON_CHARS]},
            "source_queue": {"DataType": "String", "StringValue": self.name},
            "source_message_id": {"DataType": "String", "StringValue": message.message_id},
        }
        with translated(f"dead-letter message {message.message_id} of {self.name}"):
            self._client.send_message(QueueUrl=self.dlq_url, MessageBody=message.body,
                                      MessageAttributes=attributes)
        self.delete(message)

    def _drain(self, url: str, limit: int | None, visibility: int) -> list[dict]:
        """Receive distinct messages of ``url`` until ``limit`` or none is left visible."""
        seen: dict[str, dict] = {}
        while limit is None or len(seen) < limit:
            want = MAX_BATCH if limit is None else min(MAX_BATCH, limit - len(seen))
            batch = [raw for raw in self._receive_once(url, want, 0, visibility)
                     if raw["MessageId"] not in seen]
            if not batch:
                break
            seen.update((raw["MessageId"], raw) for raw in batch)
        return list(seen.values())

    def dead_letters(self, *, limit: int = 100) -> list[Message]:
        """Peek at dead-lettered messages: receive them briefly, then make them
        visible again. Their receipts are empty (nothing to acknowledge)."""
        peeked = self._drain(self.dlq_url, limit, PEEK_VISIBILITY_S)
        for start in range(0, len(peeked), MAX_BATCH):
            entries = [{"Id": str(i), "ReceiptHandle": raw["ReceiptHandle"],
                        "VisibilityTimeout": 0}
                       for i, raw in enumerate(peeked[start:start + MAX_BATCH])]
            with translated(f"release peeked dead letters of {self.name}"):
                self._client.change_message_visibility_batch(QueueUrl=self.dlq_url,
                                                             Entries=entries)
        return [_message(raw).model_copy(update={"receipt": "", "dead_reason": _reason(raw)})
                for raw in peeked]

    def redrive(self, *, limit: int | None = None) -> int:
        """Move dead-lettered messages back to this queue (send here, then delete
        from the DLQ: at-least-once); returns how many moved."""
        moved = 0
        for raw in self._drain(self.dlq_url, limit, PEEK_VISIBILITY_S):
            with translated(f"redrive message {raw['MessageId']} to {self.name}"):
                self._client.send_message(QueueUrl=self.url, MessageBody=raw["Body"])
                self._client.delete_message(QueueUrl=self.dlq_url,
                                            ReceiptHandle=raw["ReceiptHandle"])
            moved += 1
        return moved

    def _counts(self, url: str) -> dict[str, int]:
        with translated(f"read attributes of {url}"):
            attrs = self._client.get_queue_attributes(QueueUrl=url, AttributeNames=[
                "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
                "ApproximateNumberOfMessagesDelayed"]).get("Attributes", {})
        return {k: int(v) for k, v in attrs.items()}

    def stats(self) -> QueueStats:
        """Approximate visible / in-flight (incl. delayed) / dead-letter counts."""
        main = self._counts(self.url)
        try:
            dead = self._counts(self.dlq_url)
        except NoDeadLetterQueueError:
            dead = {}
        return QueueStats(
            visible=main.get("ApproximateNumberOfMessages", 0),
            in_flight=main.get("ApproximateNumberOfMessagesNotVisible", 0)
            + main.get("ApproximateNumberOfMessagesDelayed", 0),
            dead_letters=dead.get("ApproximateNumberOfMessages", 0)
            + dead.get("ApproximateNumberOfMessagesNotVisible", 0))
