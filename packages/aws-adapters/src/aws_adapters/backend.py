"""Wire every port on AWS from BackendSettings (one client per service)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shared_types.ports import Backend
from shared_types.settings import BackendSettings

from aws_adapters.clients import make_client
from aws_adapters.dynamo_completions import DynamoSegmentCompletionStore
from aws_adapters.dynamo_heartbeats import DynamoSegmentHeartbeatStore
from aws_adapters.dynamo_jobs import DynamoJobStore
from aws_adapters.dynamo_reassembly import DynamoReassemblyLock
from aws_adapters.dynamo_segment_status import DynamoSegmentStatusStore
from aws_adapters.s3_storage import S3ObjectStorage
from aws_adapters.sqs_queue import SqsQueue

QUEUE_URL_FIELDS = {
    "chunking": "chunking_queue_url",
    "video-worker": "video_worker_queue_url",
    "segment-output": "segment_output_queue_url",
    "reassembly": "reassembly_queue_url",
}


def queue_name(name: str) -> str:
    """The SQS queue name of a pipeline queue (``stereo-spot-<name>``)."""
    return f"stereo-spot-{name}"


def build_queue(settings: BackendSettings, name: str, *, client: Any = None) -> SqsQueue:
    """The queue ``name`` (one of QUEUE_NAMES): its URL from settings, else
    looked up by the name ``stereo-spot-<name>``. Raises AwsNotFoundError."""
    client = client or make_client("sqs", region=settings.aws_region,
                                   endpoint_url=settings.aws_endpoint_url)
    url = getattr(settings, QUEUE_URL_FIELDS[name])
    if url:
        return SqsQueue(url, name=name, client=client)
    return SqsQueue.from_name(queue_name(name), name=name, client=client)


def build_backend(settings: BackendSettings, *,
                  client: Callable[[str], Any] | None = None) -> Backend:
    """Every port on DynamoDB, SQS and S3, named by ``settings``; ``client``
    makes the boto3 client of a service (default: :func:`make_client` with the
    process's credentials; tests pass other credentials here).

    Raises AwsNotFoundError when a queue URL is not set and no queue
    ``stereo-spot-<name>`` exists, AwsTransientError when AWS is unreachable.
    """
    def default_client(service: str) -> Any:
        return make_client(service, region=settings.aws_region,
                           endpoint_url=settings.aws_endpoint_url)

    client = client or default_client

    ddb, sqs, s3 = client("dynamodb"), client("sqs"), client("s3")
    return Backend(
        jobs=DynamoJobStore(settings.jobs_table, client=ddb),
        completions=DynamoSegmentCompletionStore(settings.segment_completions_table, client=ddb),
        segment_status=DynamoSegmentStatusStore(settings.segment_status_table, client=ddb),
        reassembly=DynamoReassemblyLock(settings.reassembly_table, client=ddb),
        chunking_queue=build_queue(settings, "chunking", client=sqs),
        video_queue=build_queue(settings, "video-worker", client=sqs),
        segment_output_queue=build_queue(settings, "segment-output", client=sqs),
        reassembly_queue=build_queue(settings, "reassembly", client=sqs),
        input_storage=S3ObjectStorage(settings.input_bucket, client=s3),
        output_storage=S3ObjectStorage(settings.output_bucket, client=s3),
        heartbeats=DynamoSegmentHeartbeatStore(settings.segment_status_table, client=ddb),
    )
