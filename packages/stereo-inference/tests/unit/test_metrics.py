import pytest
from shared_types.errors import PermanentStoreError, TransientStoreError

from stereo_inference.errors import EngineTransientError
from stereo_inference.metrics import LogMetrics, PublishedMetrics, size_bucket


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


class FakePublisher:
    def __init__(self, fail: Exception | None = None):
        self.calls, self.fail = [], fail

    def put(self, values, dimensions):
        if self.fail:
            raise self.fail
        self.calls.append((dict(values), dict(dimensions)))


def test_published_metrics_hand_both_values_and_dimensions_to_the_publisher():
    publisher = FakePublisher()
    PublishedMetrics(publisher, cloud="aws").record_segment(30.0, 25_000_000)
    ((values, dims),) = publisher.calls
    assert set(values) == {"SegmentConversionDurationSeconds", "ConversionSecondsPerMb"}
    assert dims == {"Cloud": "aws", "SegmentSizeBucket": "20-50"}


@pytest.mark.parametrize("error", [TransientStoreError("throttled"),
                                   PermanentStoreError("access denied")])
def test_a_publisher_failure_is_transient_for_the_engine(error):
    with pytest.raises(EngineTransientError, match="not published"):
        PublishedMetrics(FakePublisher(fail=error)).record_segment(1.0, 1)
