import pytest
from botocore.exceptions import ClientError

from aws_adapters.cloudwatch_metrics import CloudWatchPublisher
from aws_adapters.errors import AwsPermanentError, AwsTransientError


class FakeCloudWatch:
    def __init__(self, code: str | None = None):
        self.calls, self.code = [], code

    def put_metric_data(self, **kwargs):
        if self.code:
            raise ClientError({"Error": {"Code": self.code, "Message": "no"}}, "PutMetricData")
        self.calls.append(kwargs)


def test_every_value_is_put_with_every_dimension_in_its_unit():
    client = FakeCloudWatch()
    CloudWatchPublisher("StereoSpot/Conversion", client=client).put(
        {"SegmentConversionDurationSeconds": 30.0, "ConversionSecondsPerMb": 1.2},
        {"Cloud": "aws", "SegmentSizeBucket": "20-50"})
    (call,) = client.calls
    assert call["Namespace"] == "StereoSpot/Conversion"
    units = {m["MetricName"]: m["Unit"] for m in call["MetricData"]}
    assert units == {"SegmentConversionDurationSeconds": "Seconds",
                     "ConversionSecondsPerMb": "None"}
    assert {"Name": "SegmentSizeBucket", "Value": "20-50"} in call["MetricData"][0]["Dimensions"]


@pytest.mark.parametrize(("code", "error"), [("Throttling", AwsTransientError),
                                             ("AccessDenied", AwsPermanentError)])
def test_cloudwatch_errors_are_ours(code, error):
    with pytest.raises(error, match="put metrics in ns"):
        CloudWatchPublisher("ns", client=FakeCloudWatch(code)).put({"x": 1.0}, {})
