"""A small metrics port for per-segment conversion figures.

``SegmentConversionDurationSeconds`` and ``ConversionSecondsPerMb`` with the
dimensions ``Cloud`` and ``SegmentSizeBucket``: CloudWatch in AWS, a log line
locally.
"""

from __future__ import annotations

import logging
from typing import Protocol

from aws_adapters.clients import make_client
from aws_adapters.errors import translated
from shared_types.errors import StereoSpotError

from stereo_inference.errors import EngineTransientError

log = logging.getLogger(__name__)
_BUCKETS = ((5, "0-5"), (20, "5-20"), (50, "20-50"))


def size_bucket(size_bytes: int) -> str:
    """The SegmentSizeBucket dimension (MB ranges) for a segment of ``size_bytes``."""
    mb = size_bytes / 1e6
    for limit, name in _BUCKETS:
        if mb < limit:
            return name
    return "50+"


def segment_metrics(duration_s: float, size_bytes: int) -> dict[str, float]:
    """The two metric values of one converted segment."""
    mb = max(size_bytes / 1e6, 1e-6)
    return {
        "SegmentConversionDurationSeconds": round(duration_s, 3),
        "ConversionSecondsPerMb": round(duration_s / mb, 3),
    }


class Metrics(Protocol):
    def record_segment(self, duration_s: float, size_bytes: int) -> dict:
        """Publish one segment's figures; returns what was published."""


class LogMetrics:
    """Metrics as one structured log line (the local default)."""

    def __init__(self, cloud: str = "local") -> None:
        self.cloud = cloud

    def record_segment(self, duration_s: float, size_bytes: int) -> dict:
        values = segment_metrics(duration_s, size_bytes)
        dims = {"Cloud": self.cloud, "SegmentSizeBucket": size_bucket(size_bytes)}
        log.info("metrics %s %s", values, dims)
        return {"values": values, "dimensions": dims}


class CloudWatchMetrics:
    """Metrics through CloudWatch ``PutMetricData``: the client from
    ``aws_adapters.clients``, vendor errors through ``aws_adapters.errors``
    (both import boto3 only when used)."""

    def __init__(self, namespace: str, *, cloud: str = "aws", region: str | None = None,
                 endpoint_url: str | None = None, client=None) -> None:
        if client is None:
            client = make_client("cloudwatch", region=region, endpoint_url=endpoint_url)
        self.client, self.namespace, self.cloud = client, namespace, cloud

    def record_segment(self, duration_s: float, size_bytes: int) -> dict:
        values = segment_metrics(duration_s, size_bytes)
        dims = {"Cloud": self.cloud, "SegmentSizeBucket": size_bucket(size_bytes)}
        data = [
            {
                "MetricName": name,
                "Value": value,
                "Unit": "Seconds" if name.endswith("Seconds") else "None",
                "Dimensions": [{"Name": k, "Value": v} for k, v in dims.items()],
            }
            for name, value in values.items()
        ]
        try:
            with translated(f"put metrics in {self.namespace}"):
                self.client.put_metric_data(Namespace=self.namespace, MetricData=data)
        except StereoSpotError as exc:
            raise EngineTransientError(f"CloudWatch rejected the metrics: {exc}") from exc
        return {"values": values, "dimensions": dims}
