"""gather-analytics on moto's CloudWatch: the inference server's metrics become
daily history rows, appended once."""

from __future__ import annotations

import datetime as dt

import boto3
import moto
import pytest

from stereo_spot_deploy.analytics import NAMESPACE, append_history, gather


@pytest.fixture
def cloudwatch(monkeypatch):
    for name, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                        ("AWS_DEFAULT_REGION", "us-east-1")):
        monkeypatch.setenv(name, value)
    with moto.mock_aws():
        yield boto3.client("cloudwatch", region_name="us-east-1")


def publish(client, duration, per_mb, bucket, at):
    dims = [{"Name": "Cloud", "Value": "aws"}, {"Name": "SegmentSizeBucket", "Value": bucket}]
    client.put_metric_data(Namespace=NAMESPACE, MetricData=[
        {"MetricName": "SegmentConversionDurationSeconds", "Value": duration,
         "Unit": "Seconds", "Dimensions": dims, "Timestamp": at},
        {"MetricName": "ConversionSecondsPerMb", "Value": per_mb, "Unit": "None",
         "Dimensions": dims, "Timestamp": at}])


def test_metrics_become_daily_rows_appended_once(cloudwatch, tmp_path):
    now = dt.datetime.now(dt.UTC)
    publish(cloudwatch, 10.0, 2.0, "5-20", now - dt.timedelta(minutes=5))
    publish(cloudwatch, 20.0, 4.0, "5-20", now - dt.timedelta(minutes=4))
    publish(cloudwatch, 3.0, 1.5, "0-5", now - dt.timedelta(minutes=3))

    rows = gather(cloudwatch, days=2, instance_type="ml.g5.xlarge", now=now)
    by_bucket = {r.size_bucket: r for r in rows}
    assert set(by_bucket) == {"0-5", "5-20"}
    assert by_bucket["5-20"].avg_duration_s == 15.0
    assert by_bucket["5-20"].seconds_per_mb == 3.0
    assert by_bucket["5-20"].segments == 2
    assert by_bucket["5-20"].instance_type == "ml.g5.xlarge"

    history = tmp_path / "analytics" / "analytics_history.md"
    assert append_history(history, rows) == 2
    assert append_history(history, rows) == 0
    text = history.read_text()
    assert "| aws | aws | ml.g5.xlarge | 5-20 | 2 | 15.00 | 3.000 |" in text
    assert text.count("| 0-5 |") == 1


def test_the_command_writes_the_history_file(cloudwatch, tmp_path, capsys):
    from stereo_spot_deploy.analytics import main

    publish(cloudwatch, 8.0, 2.0, "0-5", dt.datetime.now(dt.UTC) - dt.timedelta(minutes=2))
    out = tmp_path / "analytics_history.md"
    assert main(["--out", str(out), "--region", "us-east-1", "--instance-type", "cpu"]) == 0
    assert "| aws | aws | cpu | 0-5 | 1 | 8.00 | 2.000 |" in out.read_text()
    assert "1 new" in capsys.readouterr().out
