"""``nx run aws-infra:gather-analytics``: conversion metrics from CloudWatch into
``packages/analytics/analytics_history.md``.

The inference server publishes ``SegmentConversionDurationSeconds`` and
``ConversionSecondsPerMb`` per segment (namespace ``StereoSpot/Conversion``,
dimensions ``Cloud`` and ``SegmentSizeBucket``; ``stereo_inference.metrics``).
This reads their daily averages for the last ``--days`` days and appends one
row per day, cloud and size bucket to the history (rows already there are
kept, not repeated), with the backend and instance type they ran on.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DURATION = "SegmentConversionDurationSeconds"
PER_MB = "ConversionSecondsPerMb"
NAMESPACE = "StereoSpot/Conversion"
DAY_S = 86400
HEADER = ("| date | cloud | backend | instance type | segment size (MB) | segments "
          "| avg duration s | s per MB |\n|---|---|---|---|---|---|---|---|\n")
DEFAULT_OUT = Path(__file__).resolve().parents[4] / "packages/analytics/analytics_history.md"


@dataclass(frozen=True)
class HistoryRow:
    date: str
    cloud: str
    backend: str
    instance_type: str
    size_bucket: str
    segments: int
    avg_duration_s: float
    seconds_per_mb: float

    @property
    def key(self) -> tuple[str, str, str, str]:
        return self.date, self.cloud, self.instance_type, self.size_bucket

    def markdown(self) -> str:
        return (f"| {self.date} | {self.cloud} | {self.backend} | {self.instance_type} "
                f"| {self.size_bucket} | {self.segments} | {self.avg_duration_s:.2f} "
                f"| {self.seconds_per_mb:.3f} |\n")


def _daily(client: Any, namespace: str, metric: str, dims: list[dict], start: dt.datetime,
           end: dt.datetime) -> dict[str, tuple[float, int]]:
    resp = client.get_metric_statistics(
        Namespace=namespace, MetricName=metric, Dimensions=dims, StartTime=start, EndTime=end,
        Period=DAY_S, Statistics=["Average", "SampleCount"])
    return {p["Timestamp"].date().isoformat(): (p["Average"], int(p["SampleCount"]))
            for p in resp["Datapoints"]}


def gather(client: Any, *, namespace: str = NAMESPACE, days: int = 14, backend: str = "aws",
           instance_type: str = "unknown", now: dt.datetime | None = None) -> list[HistoryRow]:
    """Daily averages per (cloud, size bucket) over the last ``days`` days,
    oldest first. Raises botocore errors unchanged (the CLI reports them)."""
    end = now or dt.datetime.now(dt.UTC)
    start = end - dt.timedelta(days=days)
    rows = []
    seen = set()
    for page in client.get_paginator("list_metrics").paginate(Namespace=namespace,
                                                             MetricName=DURATION):
        for metric in page["Metrics"]:
            dims = sorted(metric["Dimensions"], key=lambda d: d["Name"])
            names = {d["Name"]: d["Value"] for d in dims}
            if tuple(names.items()) in seen:  # listed once per data point by some servers
                continue
            seen.add(tuple(names.items()))
            durations = _daily(client, namespace, DURATION, dims, start, end)
            per_mb = _daily(client, namespace, PER_MB, dims, start, end)
            for day, (avg, count) in durations.items():
                rows.append(HistoryRow(
                    date=day, cloud=names.get("Cloud", "?"), backend=backend,
                    instance_type=instance_type, size_bucket=names.get("SegmentSizeBucket", "?"),
                    segments=count, avg_duration_s=avg,
                    seconds_per_mb=per_mb.get(day, (float("nan"), 0))[0]))
    return sorted(rows, key=lambda r: r.key)


def append_history(path: Path, rows: list[HistoryRow]) -> int:
    """Add the rows not yet in the history file (created with its header);
    returns how many were added."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = path.read_text() if path.exists() else (
        "# Conversion analytics history\n\nDaily averages gathered from CloudWatch by "
        "`nx run aws-infra:gather-analytics`.\n\n" + HEADER)
    new = [row for row in rows if row.markdown() not in text]
    path.write_text(text + "".join(row.markdown() for row in new))
    return len(new)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--namespace", default=NAMESPACE)
    parser.add_argument("--days", type=int, default=14)
    parser.add_argument("--instance-type", default="unknown",
                        help="what the inference ran on, e.g. ml.g5.xlarge")
    parser.add_argument("--region", default=None)
    parser.add_argument("--endpoint-url", default=None)
    args = parser.parse_args(argv)
    import boto3

    client = boto3.client("cloudwatch", region_name=args.region, endpoint_url=args.endpoint_url)
    rows = gather(client, namespace=args.namespace, days=args.days,
                  instance_type=args.instance_type)
    added = append_history(args.out, rows)
    print(f"{len(rows)} daily rows from CloudWatch, {added} new, in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
