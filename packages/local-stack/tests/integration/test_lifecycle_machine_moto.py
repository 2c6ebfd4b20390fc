"""The same lifecycle state machine on the AWS adapters (DynamoDB, SQS, S3) on
in-process moto.

SQS visibility has no fake clock: where the machine lets time pass, every
message a consumer leased and did not settle is made visible again with
ChangeMessageVisibility(0) -- what the expiry of its lease does on AWS -- and
the clock the janitor and the DynamoDB reassembly lease read moves forward as
on the other backends. S3's own notifications are switched off so the machine
sends every event itself (as on memory), which lets the adversary lose a send.
"""

from __future__ import annotations

import dataclasses
import threading

import pytest
from shared_types.models import JobStatus
from shared_types.runs import STALE_RUN_WRITES

from local_stack.testing.lifecycle_machine import (
    LATE_ZOMBIE_CHUNKER,
    LOST_REASSEMBLY_TRIGGER,
    PipelineWithEnding,
    property_test,
    replay,
)
from local_stack.testing.pipeline_stand_ins import Clock, FlakyQueue

pytest.importorskip("aws_adapters", reason="aws-adapters is not installed")
pytest.importorskip("moto", reason="moto is not installed")


class LeaseExpiringQueue:
    """An SqsQueue that remembers the receipts it handed out and did not settle,
    so the machine can end their leases now (ChangeMessageVisibility to 0)."""

    def __init__(self, inner) -> None:
        self._inner, self.name = inner, inner.name
        self._leased: dict[str, object] = {}
        self._lock = threading.Lock()

    def receive(self, **kwargs):
        messages = self._inner.receive(**kwargs)
        with self._lock:
            for m in messages:
                self._leased[m.receipt] = m
        return messages

    def delete(self, message) -> None:
        self._inner.delete(message)
        self._settled(message)

    def dead_letter(self, message, reason: str) -> None:
        self._inner.dead_letter(message, reason)
        self._settled(message)

    def _settled(self, message) -> None:
        with self._lock:
            self._leased.pop(message.receipt, None)

    def expire_leases(self) -> None:
        with self._lock:
            leased, self._leased = list(self._leased.values()), {}
        for message in leased:
            try:
                self._inner.release(message)  # ChangeMessageVisibility(0)
            except Exception:  # noqa: BLE001 - deleted or redriven since: nothing to end
                pass

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


class MotoPipeline(PipelineWithEnding):
    def make_backend(self, clock: Clock):
        from aws_adapters import build_backend
        from aws_adapters.backend import QUEUE_URL_FIELDS
        from aws_adapters.clients import make_client
        from aws_adapters.dynamo_reassembly import DynamoReassemblyLock
        from aws_adapters.provision import create_data_plane
        from moto import mock_aws
        from shared_types.settings import BackendSettings

        self.moto = mock_aws()
        self.moto.start()
        settings = create_data_plane(BackendSettings(_env_file=None, backend="aws"),
                                     max_receives=5)
        s3 = make_client("s3", region=settings.aws_region)
        for bucket in {settings.input_bucket, settings.output_bucket}:
            s3.put_bucket_notification_configuration(Bucket=bucket,
                                                     NotificationConfiguration={})
        sqs = make_client("sqs", region=settings.aws_region)
        for field in QUEUE_URL_FIELDS.values():  # S3's test events of the set-up
            sqs.purge_queue(QueueUrl=getattr(settings, field))
        aws = build_backend(settings)
        self.leased = {name: LeaseExpiringQueue(aws.queue(name))
                       for name in ("chunking", "video-worker", "segment-output", "reassembly")}
        flaky = {name: FlakyQueue(q) for name, q in self.leased.items()}
        return dataclasses.replace(
            aws, reassembly=DynamoReassemblyLock(
                settings.reassembly_table, client=make_client("dynamodb",
                                                              region=settings.aws_region),
                clock=clock),
            chunking_queue=flaky["chunking"], video_queue=flaky["video-worker"],
            segment_output_queue=flaky["segment-output"],
            reassembly_queue=flaky["reassembly"])

    def expire_leases(self, seconds: float) -> None:
        super().expire_leases(seconds)
        for queue in self.leased.values():
            queue.expire_leases()

    def teardown(self) -> None:
        try:
            super().teardown()
        finally:
            if hasattr(self, "moto"):
                self.moto.stop()


test_every_job_ends_on_moto_under_an_adversary = property_test(
    MotoPipeline, examples=3, steps=18)


def test_a_trigger_whose_send_is_lost_still_ends_completed_on_moto():
    jobs = replay(*LOST_REASSEMBLY_TRIGGER, machine_class=MotoPipeline)
    assert jobs["job-0"].status == JobStatus.COMPLETED


def test_a_zombie_chunkers_late_run_is_refused_on_moto():
    stale = STALE_RUN_WRITES.count("inference")
    jobs = replay(*LATE_ZOMBIE_CHUNKER, machine_class=MotoPipeline)
    assert (jobs["job-0"].status, jobs["job-0"].run) == (JobStatus.COMPLETED, 2)
    assert STALE_RUN_WRITES.count("inference") - stale >= 2
