"""A SageMaker async endpoint and the S3 locations it answers in.

The video-worker's SageMaker inference backend (``video_worker.sagemaker_backend``)
decides what to invoke and how long to wait; this module makes the AWS calls.
Its wiring (``video_worker.bootstrap``) builds both with :func:`sagemaker_async`.
"""

from __future__ import annotations

from typing import Any, NamedTuple
from urllib.parse import urlparse

from shared_types.errors import ObjectNotFoundError

from aws_adapters.clients import make_client
from aws_adapters.errors import AwsPermanentError, translated


class Invocation(NamedTuple):
    """Where one async invocation will answer."""

    inference_id: str
    output_uri: str
    failure_uri: str  # "" when the endpoint has no failure location


class SageMakerAsyncEndpoint:
    """``InvokeEndpointAsync`` on one endpoint."""

    def __init__(self, name: str, client: Any) -> None:
        self.name, self._client = name, client

    def invoke(self, input_uri: str, inference_id: str, timeout_s: int) -> Invocation:
        """Start one invocation whose request JSON is at ``input_uri``. Raises
        AwsTransientError (throttled, unreachable) / AwsPermanentError (refused)."""
        with translated(f"invoke SageMaker endpoint {self.name}"):
            response = self._client.invoke_endpoint_async(
                EndpointName=self.name, InputLocation=input_uri,
                ContentType="application/json", InferenceId=inference_id,
                InvocationTimeoutSeconds=timeout_s)
        return Invocation(response.get("InferenceId", inference_id), response["OutputLocation"],
                          response.get("FailureLocation", ""))


class S3LocationReader:
    """Reads ``s3://bucket/key`` locations; None while the object does not exist."""

    def __init__(self, s3_client: Any) -> None:
        self._s3 = s3_client

    def __call__(self, uri: str) -> bytes | None:
        """The object's bytes, or None if absent. Raises AwsPermanentError for a
        location that is not in S3, AwsTransientError / AwsPermanentError otherwise."""
        parsed = urlparse(uri)
        if parsed.scheme != "s3" or not parsed.netloc:
            raise AwsPermanentError(f"not an S3 location: {uri!r}")
        try:
            with translated(f"read {uri}"):
                obj = self._s3.get_object(Bucket=parsed.netloc, Key=parsed.path.lstrip("/"))
                return obj["Body"].read()
        except ObjectNotFoundError:
            return None


def sagemaker_async(endpoint: str, *, region: str, endpoint_url: str | None,
                    runtime_endpoint_url: str | None) -> tuple[SageMakerAsyncEndpoint,
                                                               S3LocationReader]:
    """The endpoint and the reader of its answers, on real boto3 clients
    (``runtime_endpoint_url`` for sagemaker-runtime, else ``endpoint_url``)."""
    runtime = make_client("sagemaker-runtime", region=region,
                          endpoint_url=runtime_endpoint_url or endpoint_url)
    return (SageMakerAsyncEndpoint(endpoint, runtime),
            S3LocationReader(make_client("s3", region=region, endpoint_url=endpoint_url)))
