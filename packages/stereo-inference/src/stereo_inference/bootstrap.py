"""The inference server's wiring: the only module of the engine that reaches an
adapter package. S3 storage and CloudWatch metrics come from aws-adapters,
imported only when they are used, so the engine installs without them.
"""

from __future__ import annotations

from collections.abc import Callable

from shared_types.ports import ObjectStorage

from stereo_inference.metrics import LogMetrics, Metrics, PublishedMetrics
from stereo_inference.settings import InferenceSettings

StorageFactory = Callable[[str], ObjectStorage]


def s3_storage_factory(settings: InferenceSettings) -> StorageFactory:
    """ObjectStorage per bucket from aws-adapters (imported only when S3 is used)."""

    def make(bucket: str) -> ObjectStorage:
        from aws_adapters.s3_storage import S3ObjectStorage

        return S3ObjectStorage(
            bucket, region=settings.aws_region, endpoint_url=settings.aws_endpoint_url
        )

    return make


def default_metrics(settings: InferenceSettings) -> Metrics:
    """CloudWatch (through aws-adapters) or log metrics, as configured."""
    if settings.metrics == "cloudwatch":
        from aws_adapters.cloudwatch_metrics import CloudWatchPublisher

        publisher = CloudWatchPublisher(settings.metrics_namespace, region=settings.aws_region,
                                        endpoint_url=settings.aws_endpoint_url)
        return PublishedMetrics(publisher, cloud=settings.cloud)
    return LogMetrics(cloud=settings.cloud)
