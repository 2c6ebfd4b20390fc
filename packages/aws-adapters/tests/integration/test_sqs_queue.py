"""SQS behaviour beyond the Queue contract (moto in-process).

These use the reassembly queue: S3 routes put an s3:TestEvent in the others.
"""

from __future__ import annotations

import boto3
import pytest
from shared_types.errors import LeaseLostError

from aws_adapters.errors import MessageTooLargeError, NoDeadLetterQueueError
from aws_adapters.sqs_queue import MAX_BODY_BYTES, REASON_ATTRIBUTE, SqsQueue


def test_receive_gathers_more_than_one_sqs_batch(backend):
    queue = backend.reassembly_queue
    for i in range(13):
        queue.send(f"m{i}")
    got = queue.receive(max_messages=13, visibility_s=30)
    assert sorted(m.body for m in got) == sorted(f"m{i}" for i in range(13))


def test_dead_letter_records_the_reason_as_a_message_attribute(backend, aws_settings):
    queue = backend.reassembly_queue
    queue.send('{"Records": "nope"}')
    [msg] = queue.receive()
    queue.dead_letter(msg, "malformed S3 event record")
    raw = boto3.client("sqs", region_name="us-east-1").receive_message(
        QueueUrl=queue.dlq_url, MessageAttributeNames=["All"])["Messages"][0]
    attrs = raw["MessageAttributes"]
    assert attrs[REASON_ATTRIBUTE]["StringValue"] == "malformed S3 event record"
    assert attrs["source_message_id"]["StringValue"] == msg.message_id


def test_peeking_dead_letters_leaves_them_for_the_next_peek(backend):
    queue = backend.reassembly_queue
    for i in range(12):
        queue.send(f"d{i}")
    while True:
        batch = queue.receive(max_messages=10)
        if not batch:
            break
        for msg in batch:
            queue.dead_letter(msg, "test")
    assert len(queue.dead_letters()) == 12
    assert len(queue.dead_letters(limit=5)) == 5
    assert queue.stats().dead_letters == 12


def test_a_body_over_the_sqs_limit_is_refused_before_sending(backend):
    with pytest.raises(MessageTooLargeError, match="over the SQS limit"):
        backend.reassembly_queue.send("x" * (MAX_BODY_BYTES + 1))
    backend.reassembly_queue.send("x" * MAX_BODY_BYTES)
    [msg] = backend.reassembly_queue.receive()
    assert len(msg.body) == MAX_BODY_BYTES


def test_extend_after_delete_raises_lease_lost_and_delete_is_quiet(backend):
    queue = backend.reassembly_queue
    queue.send("x")
    [msg] = queue.receive()
    queue.delete(msg)
    queue.delete(msg)
    with pytest.raises(LeaseLostError):
        queue.extend(msg.model_copy(update={"receipt": "never-issued"}), 30)


def test_a_queue_without_redrive_policy_says_so(aws_settings):
    url = boto3.client("sqs", region_name="us-east-1").create_queue(QueueName="plain")["QueueUrl"]
    queue = SqsQueue(url)
    queue.send("x")
    [msg] = queue.receive()
    with pytest.raises(NoDeadLetterQueueError, match="no redrive policy"):
        queue.dead_letter(msg, "why")
    assert queue.stats().dead_letters == 0
    assert queue.name == "plain"
