"""create_data_plane builds what the adapters and the S3 routes need (moto in-process)."""

from __future__ import annotations

import json

import boto3
import pytest
from shared_types.settings import BackendSettings

from aws_adapters.errors import AwsNotFoundError
from aws_adapters.provision import create_data_plane


def test_queues_have_dlqs_with_the_max_receive_count(aws_settings):
    sqs = boto3.client("sqs", region_name="us-east-1")
    attrs = sqs.get_queue_attributes(QueueUrl=aws_settings.chunking_queue_url,
                                     AttributeNames=["RedrivePolicy"])["Attributes"]
    policy = json.loads(attrs["RedrivePolicy"])
    assert int(policy["maxReceiveCount"]) == 3
    assert policy["deadLetterTargetArn"].endswith(":stereo-spot-chunking-dlq")


def test_tables_have_the_list_indexes_and_ttl(aws_settings):
    ddb = boto3.client("dynamodb", region_name="us-east-1")
    table = ddb.describe_table(TableName=aws_settings.jobs_table)["Table"]
    assert {i["IndexName"] for i in table["GlobalSecondaryIndexes"]} == {
        "status-created_at", "status-completed_at"}
    ttl = ddb.describe_time_to_live(TableName=aws_settings.reassembly_table)
    assert ttl["TimeToLiveDescription"]["AttributeName"] == "ttl"


def test_notifications_route_each_prefix_to_its_queue(aws_settings):
    s3 = boto3.client("s3", region_name="us-east-1")
    routes = s3.get_bucket_notification_configuration(Bucket=aws_settings.input_bucket)
    filters = {tuple(r["Value"] for r in q["Filter"]["Key"]["FilterRules"]): q["QueueArn"]
               for q in routes["QueueConfigurations"]}
    assert filters[("input/", "/source.mp4")].endswith(":stereo-spot-chunking")
    assert filters[("segments/", ".mp4")].endswith(":stereo-spot-video-worker")


def test_running_it_again_is_harmless(aws_settings):
    again = create_data_plane(BackendSettings(backend="aws"), max_receives=3)
    assert again.reassembly_queue_url == aws_settings.reassembly_queue_url


def test_a_missing_table_is_a_clear_not_found(backend, aws_settings):
    ddb = boto3.client("dynamodb", region_name="us-east-1")
    ddb.delete_table(TableName=aws_settings.jobs_table)
    with pytest.raises(AwsNotFoundError, match="get stereo-spot-jobs"):
        backend.jobs.get("j1")
