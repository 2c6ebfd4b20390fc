"""The SageMaker backend's S3 side on moto: request upload and async answer polling."""

import json

import boto3
import pytest
from aws_adapters.sagemaker_async import S3LocationReader, SageMakerAsyncEndpoint
from botocore.stub import ANY, Stubber
from shared_types.keys import parse_segment_key, segment_key
from shared_types.models import ConversionParams, OutputMode

from video_worker.sagemaker_backend import SageMakerInferenceBackend

moto = pytest.importorskip("moto", reason="moto not installed")


@pytest.fixture
def s3(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with moto.mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        for bucket in ("stereo-in", "stereo-async"):
            client.create_bucket(Bucket=bucket)
        yield client


def test_reader_returns_none_until_the_object_exists(s3):
    read = S3LocationReader(s3)
    assert read("s3://stereo-async/out/1.out") is None
    s3.put_object(Bucket="stereo-async", Key="out/1.out", Body=b"answer")
    assert read("s3://stereo-async/out/1.out") == b"answer"


def test_a_segment_round_trip_through_s3_and_a_stubbed_endpoint(s3):
    aws = pytest.importorskip("aws_adapters.s3_storage", reason="aws-adapters not installed")
    storage = aws.S3ObjectStorage("stereo-in", client=s3)
    answer = {"schema": "1.0", "blocks": [{"type": "segment_output", "data": {"frames": 7}}]}
    s3.put_object(Bucket="stereo-async", Key="out/a.out", Body=json.dumps(answer).encode())
    runtime = boto3.client("sagemaker-runtime", region_name="us-east-1")
    with Stubber(runtime) as stub:
        stub.add_response("invoke_endpoint_async",
                          {"InferenceId": "a", "OutputLocation": "s3://stereo-async/out/a.out",
                           "FailureLocation": "s3://stereo-async/fail/a.out"},
                          {"EndpointName": "ep", "ContentType": "application/json",
                           "InputLocation": "s3://stereo-in/sagemaker-requests/job-s/0.json",
                           "InferenceId": ANY, "InvocationTimeoutSeconds": ANY})
        backend = SageMakerInferenceBackend(
            SageMakerAsyncEndpoint("ep", runtime), storage, storage,
            fetch_location=S3LocationReader(s3),
            poll_s=0.01, timeout_s=60)
        key = segment_key("job-s", 0, 1, OutputMode.ANAGLYPH)
        result = backend.convert(parse_segment_key("stereo-in", key), "jobs/job-s/segments/0.mp4",
                                 ConversionParams())
    assert result.frames == 7
    request = json.loads(s3.get_object(Bucket="stereo-in",
                                       Key="sagemaker-requests/job-s/0.json")["Body"].read())
    assert request["input_uri"] == f"s3://stereo-in/{key}"
    assert request["output_uri"] == "s3://stereo-in/jobs/job-s/segments/0.mp4"
