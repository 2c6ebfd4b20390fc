"""A small metrics port for per-segment conversion figures.

``SegmentConversionDurationSeconds`` and ``ConversionSecondsPerMb`` with the
dimensions ``Cloud`` and ``SegmentSizeBucket``: CloudWatch in AWS, a log line
locally.
"""

from __future__ import annotations

import logging
from typing import Protocol

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
    """Metrics through CloudWatch ``PutMetricData`` (boto3 is imported lazily)."""

    def __init__(self, namespace: str, *, cloud: str = "aws", region: str | None = None,
                 endpoint_url: str | None = None, client=None) -> None:
        if client is None:
            import boto3

            client = boto3.client("cloudwatch", region_name=region, endpoint_url=endpoint_url)
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
            self.client.put_metric_data(Namespace=self.namespace, MetricData=data)
        except Exception as exc:  # botocore errors: the metric is lost, the segment is not
            raise EngineTransientError(f"CloudWatch rejected the metrics: {exc}") from exc
        return {"values": values, "dimensions": dims}
