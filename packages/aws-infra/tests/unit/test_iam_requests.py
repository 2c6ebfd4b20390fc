"""Recorded AWS calls become the IAM requests AWS authorises them as."""

from __future__ import annotations

from stereo_spot_deploy.testing.iam_requests import iam_requests
from stereo_spot_deploy.testing.moto_patches import table_resource

ACCOUNT, REGION = "123456789012", "us-east-1"


def _requests(service, operation, **params):
    call = {"service": service, "operation": operation, "params": params, "region": REGION}
    return [(r.action, r.resource, r.context)
            for r in iam_requests(call, account=ACCOUNT, default_region=REGION)]


def test_s3_reads_lists_and_tagged_writes_map_to_their_iam_actions():
    assert _requests("s3", "HeadObject", Bucket="b", Key="jobs/1/final.mp4") == [
        ("s3:GetObject", "arn:aws:s3:::b/jobs/1/final.mp4", {})]
    assert _requests("s3", "ListObjectsV2", Bucket="b", Prefix="segments/j/") == [
        ("s3:ListBucket", "arn:aws:s3:::b", {"s3:prefix": "segments/j/"})]
    assert _requests("s3", "PutObject", Bucket="b", Key="k", Tagging=True) == [
        ("s3:PutObject", "arn:aws:s3:::b/k", {}), ("s3:PutObjectTagging", "arn:aws:s3:::b/k", {})]
    assert _requests("s3", "ListParts", Bucket="b", Key="k")[0][0] == "s3:ListMultipartUploadParts"
    assert _requests("s3", "UploadPart", Bucket="b", Key="k")[0][0] == "s3:PutObject"
    assert _requests("s3", "ListMultipartUploads", Bucket="b", Prefix="input/j/source.mp4") == [
        ("s3:ListBucketMultipartUploads", "arn:aws:s3:::b", {})]


def test_sqs_batches_are_their_single_actions_on_the_queue_of_the_url():
    url = "http://127.0.0.1:5000/123456789012/stereo-spot-chunking-dlq"
    assert _requests("sqs", "ChangeMessageVisibilityBatch", QueueUrl=url) == [
        ("sqs:ChangeMessageVisibility",
         "arn:aws:sqs:us-east-1:123456789012:stereo-spot-chunking-dlq", {})]
    assert _requests("sqs", "GetQueueUrl", QueueName="q")[0][1] == (
        "arn:aws:sqs:us-east-1:123456789012:q")


def test_dynamodb_index_queries_and_batch_writes_name_each_table():
    assert _requests("dynamodb", "Query", TableName="jobs", IndexName="by-status") == [
        ("dynamodb:Query", "arn:aws:dynamodb:us-east-1:123456789012:table/jobs/index/by-status",
         {})]
    assert [r[1] for r in _requests("dynamodb", "BatchWriteItem", Tables=["a", "b"])] == [
        "arn:aws:dynamodb:us-east-1:123456789012:table/a",
        "arn:aws:dynamodb:us-east-1:123456789012:table/b"]


def test_sagemaker_metrics_and_sts():
    assert _requests("sagemaker-runtime", "InvokeEndpointAsync", EndpointName="E") == [
        ("sagemaker:InvokeEndpointAsync", "arn:aws:sagemaker:us-east-1:123456789012:endpoint/e",
         {})]
    assert _requests("cloudwatch", "PutMetricData", Namespace="N") == [
        ("cloudwatch:PutMetricData", "*", {"cloudwatch:namespace": "N"})]
    assert _requests("sts", "AssumeRole") == []


def test_moto_is_told_the_table_a_dynamodb_call_names():
    index = table_resource({"TableName": "t", "IndexName": "i"}, account=ACCOUNT, region=REGION)
    assert index == "arn:aws:dynamodb:us-east-1:123456789012:table/t/index/i"
    assert table_resource({"RequestItems": {"z": [], "a": []}}, account=ACCOUNT,
                          region=REGION) == "arn:aws:dynamodb:us-east-1:123456789012:table/a"
    assert table_resource({}, account=ACCOUNT, region=REGION) == "*"
