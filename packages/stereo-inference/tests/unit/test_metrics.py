import pytest
from botocore.exceptions import ClientError

from stereo_inference.errors import EngineTransientError
from stereo_inference.metrics import CloudWatchMetrics, LogMetrics, size_bucket


@pytest.mark.parametrize(
    ("size", "bucket"), [(1_000_000, "0-5"), (6_000_000, "5-20"), (30e6, "20-50"), (80e6, "50+")]
)
def test_segments_fall_into_size_buckets(size, bucket):
    assert size_bucket(int(size)) == bucket


def test_log_metrics_report_duration_and_seconds_per_mb(caplog):
    caplog.set_level("INFO")
    published = LogMetrics(cloud="local").record_segment(10.0, 4_000_000)
    assert published["values"] == {
        "SegmentConversionDurationSeconds": 10.0, "ConversionSecondsPerMb": 2.5,
    }
    assert published["dimensions"] == {"Cloud": "local", "SegmentSizeBucket": "0-5"}
    assert "ConversionSecondsPerMb" in caplog.text


class FakeCloudWatch:
    def __init__(self, fail=False):
        self.calls, self.fail = [], fail

    def put_metric_data(self, **kwargs):
        if self.fail:
            raise ClientError({"Error": {"Code": "Throttling", "Message": "slow down"}},
                              "PutMetricData")
        self.calls.append(kwargs)


def test_cloudwatch_metrics_put_both_metrics_with_dimensions():
    client = FakeCloudWatch()
    CloudWatchMetrics("StereoSpot/Conversion", client=client).record_segment(30.0, 25_000_000)
    (call,) = client.calls
    assert call["Namespace"] == "StereoSpot/Conversion"
    names = {m["MetricName"] for m in call["MetricData"]}
    assert names == {"SegmentConversionDurationSeconds", "ConversionSecondsPerMb"}
    dims = call["MetricData"][0]["Dimensions"]
    assert {"Name": "SegmentSizeBucket", "Value": "20-50"} in dims


def test_a_cloudwatch_failure_is_transient():
    with pytest.raises(EngineTransientError):
        CloudWatchMetrics("ns", client=FakeCloudWatch(fail=True)).record_segment(1.0, 1)
