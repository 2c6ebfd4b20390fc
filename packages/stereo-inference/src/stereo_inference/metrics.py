"""A small metrics port for per-segment conversion figures.

``SegmentConversionDurationSeconds`` and ``ConversionSecondsPerMb`` with the
dimensions ``Cloud`` and ``SegmentSizeBucket``: a log line locally; in AWS a
:class:`MetricPublisher` (aws-adapters' CloudWatch publisher, chosen by
``stereo_inference.bootstrap``) publishes them.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Protocol

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


class MetricPublisher(Protocol):
    def put(self, values: Mapping[str, float], dimensions: Mapping[str, str]) -> None:
        """Publish ``values`` (metric name -> value) with ``dimensions``. Raises a
        StereoSpotError (transient or permanent) when they cannot be published."""


class PublishedMetrics:
    """Metrics handed to a :class:`MetricPublisher` (CloudWatch in AWS)."""

    def __init__(self, publisher: MetricPublisher, *, cloud: str = "aws") -> None:
        self.publisher, self.cloud = publisher, cloud

    def record_segment(self, duration_s: float, size_bytes: int) -> dict:
        values = segment_metrics(duration_s, size_bytes)
        dims = {"Cloud": self.cloud, "SegmentSizeBucket": size_bucket(size_bytes)}
        try:
            self.publisher.put(values, dims)
        except StereoSpotError as exc:
            # a conversion that worked must not fail for good on its figures
            raise EngineTransientError(f"the metrics were not published: {exc}") from exc
        return {"values": values, "dimensions": dims}
