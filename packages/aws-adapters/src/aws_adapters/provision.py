"""Create the data plane (buckets, queues + DLQs, tables, S3 notifications).

For tests and local runs against moto or moto_server; production uses the
Terraform module ``aws-infra/modules/data-plane``, which this mirrors. Every
step is idempotent, so running it twice is harmless.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from shared_types.data_plane import DATA_PLANE, TableSpec
from shared_types.notification_routes import NOTIFICATION_ROUTES
from shared_types.ports import QUEUE_NAMES
from shared_types.settings import BackendSettings

from aws_adapters.backend import QUEUE_URL_FIELDS, queue_name
from aws_adapters.clients import make_client
from aws_adapters.errors import error_code, translated

log = logging.getLogger(__name__)

_EXISTS = {"BucketAlreadyOwnedByYou", "ResourceInUseException", "QueueAlreadyExists"}


def _ignoring_exists(call: Any, what: str, **kwargs: Any) -> Any:
    from botocore.exceptions import ClientError

    with translated(what):
        try:
            return call(**kwargs)
        except ClientError as exc:
            if error_code(exc) in _EXISTS:
                log.info("%s: already exists", what)
                return None
            raise


def _create_bucket(s3: Any, bucket: str, region: str) -> None:
    kwargs: dict[str, Any] = {"Bucket": bucket}
    if region != "us-east-1":
        kwargs["CreateBucketConfiguration"] = {"LocationConstraint": region}
    _ignoring_exists(s3.create_bucket, f"create bucket {bucket}", **kwargs)


def _queue_policy(queue_arn: str) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Sid": "AllowS3Notifications", "Effect": "Allow",
        "Principal": {"Service": "s3.amazonaws.com"}, "Action": "sqs:SendMessage",
        "Resource": queue_arn}]})


def _create_queue(sqs: Any, name: str, visibility_s: int, max_receives: int) -> tuple[str, str]:
    """Create ``name`` and ``name-dlq`` with a redrive policy; (url, arn)."""
    with translated(f"create queue {name}"):
        dlq_url = sqs.create_queue(QueueName=f"{name}-dlq", Attributes={
            "MessageRetentionPeriod": str(DATA_PLANE.dlq_retention_s)})["QueueUrl"]
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])[
            "Attributes"]["QueueArn"]
        url = sqs.create_queue(QueueName=name, Attributes={
            "VisibilityTimeout": str(visibility_s),
            "MessageRetentionPeriod": str(DATA_PLANE.message_retention_s),
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn,
                                         "maxReceiveCount": str(max_receives)})})["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])[
            "Attributes"]["QueueArn"]
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": _queue_policy(arn)})
    return url, arn


def _create_table(ddb: Any, name: str, spec: TableSpec) -> None:
    """Create ``name`` with the keys, indexes and TTL of ``spec`` (range keys numeric)."""
    attrs = {spec.hash_key: "S"}
    keys = [{"AttributeName": spec.hash_key, "KeyType": "HASH"}]
    if spec.range_key:
        attrs[spec.range_key] = "N"
        keys.append({"AttributeName": spec.range_key, "KeyType": "RANGE"})
    gsis = []
    for index, gsi in spec.indexes.items():
        attrs.setdefault(gsi.hash_key, "S")
        attrs.setdefault(gsi.range_key, "N")
        gsis.append({"IndexName": index, "Projection": {"ProjectionType": "ALL"},
                     "KeySchema": [{"AttributeName": gsi.hash_key, "KeyType": "HASH"},
                                   {"AttributeName": gsi.range_key, "KeyType": "RANGE"}]})
    kwargs: dict[str, Any] = {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": a, "AttributeType": t}
                                 for a, t in attrs.items()],
        "KeySchema": keys,
    }
    if gsis:
        kwargs["GlobalSecondaryIndexes"] = gsis
    created = _ignoring_exists(ddb.create_table, f"create table {name}", **kwargs)
    if created is not None:
        with translated(f"wait for table {name}"):
            ddb.get_waiter("table_exists").wait(TableName=name,
                                                WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    if spec.ttl_attribute:
        with translated(f"enable TTL on {name}"):
            ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
                "Enabled": True, "AttributeName": spec.ttl_attribute})


def table_names(settings: BackendSettings) -> dict[str, str]:
    """Each table of data_plane.json by the name ``settings`` gives it."""
    return {"jobs": settings.jobs_table,
            "segment-completions": settings.segment_completions_table,
            "segment-status": settings.segment_status_table,
            "reassembly-triggered": settings.reassembly_table}


def create_data_plane(settings: BackendSettings, *,
                      max_receives: int = DATA_PLANE.max_receives) -> BackendSettings:
    """Create everything ``settings`` names and return the settings with every
    queue URL filled in. Queues are ``stereo-spot-<name>`` (or the name in a
    configured URL), each with a ``-dlq`` and ``max_receives`` before
    dead-lettering. Raises AwsPermanentError / AwsTransientError."""
    region, endpoint = settings.aws_region, settings.aws_endpoint_url
    s3 = make_client("s3", region=region, endpoint_url=endpoint)
    sqs = make_client("sqs", region=region, endpoint_url=endpoint)
    ddb = make_client("dynamodb", region=region, endpoint_url=endpoint)

    for bucket in {settings.input_bucket, settings.output_bucket}:
        _create_bucket(s3, bucket, region)

    urls: dict[str, str] = {}
    arns: dict[str, str] = {}
    for name in QUEUE_NAMES:
        configured = getattr(settings, QUEUE_URL_FIELDS[name])
        sqs_name = configured.rstrip("/").rsplit("/", 1)[-1] if configured else queue_name(name)
        urls[name], arns[name] = _create_queue(sqs, sqs_name, DATA_PLANE.queues[name].visibility_s,
                                                  max_receives)

    for table, name in table_names(settings).items():
        _create_table(ddb, name, DATA_PLANE.tables[table])

    routes: dict[str, list[dict]] = {}
    for route in NOTIFICATION_ROUTES:
        prefix, suffix = route.prefix, route.suffix
        routes.setdefault(route.bucket_name(settings), []).append({
            "Id": f"{route.queue}-{prefix.strip('/')}", "QueueArn": arns[route.queue],
            "Events": ["s3:ObjectCreated:*"],
            "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": prefix},
                                               {"Name": "suffix", "Value": suffix}]}}})
    for bucket, queues in routes.items():
        with translated(f"configure notifications of bucket {bucket}"):
            s3.put_bucket_notification_configuration(
                Bucket=bucket, NotificationConfiguration={"QueueConfigurations": queues})

    return settings.model_copy(update={QUEUE_URL_FIELDS[n]: urls[n] for n in QUEUE_NAMES})
