"""Metric values published to CloudWatch (``PutMetricData``).

The engine's ``MetricPublisher`` port on AWS: ``stereo_inference.bootstrap``
wires it; the engine itself never imports this package.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_adapters.clients import make_client
from aws_adapters.errors import translated


class CloudWatchPublisher:
    """Puts metric values into one CloudWatch namespace."""

    def __init__(self, namespace: str, *, region: str | None = None,
                 endpoint_url: str | None = None, client: Any = None) -> None:
        if client is None:
            client = make_client("cloudwatch", region=region, endpoint_url=endpoint_url)
        self.client, self.namespace = client, namespace

    def put(self, values: Mapping[str, float], dimensions: Mapping[str, str]) -> None:
        """One ``PutMetricData`` call: every value with every dimension, in seconds
        where the metric's name ends in Seconds. Raises AwsTransientError /
        AwsPermanentError."""
        data = [
            {
                "MetricName": name,
                "Value": value,
                "Unit": "Seconds" if name.endswith("Seconds") else "None",
                "Dimensions": [{"Name": k, "Value": v} for k, v in dimensions.items()],
            }
            for name, value in values.items()
        ]
        with translated(f"put metrics in {self.namespace}"):
            self.client.put_metric_data(Namespace=self.namespace, MetricData=data)
