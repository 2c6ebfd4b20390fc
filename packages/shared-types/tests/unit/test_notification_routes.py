from shared_types.keys import final_key, output_segment_key, segment_key, source_key
from shared_types.notification_routes import NOTIFICATION_ROUTES
from shared_types.ports import QUEUE_NAMES
from shared_types.settings import BackendSettings


def routed(bucket, key):
    return [r.queue for r in NOTIFICATION_ROUTES if r.matches(bucket, key)]


def test_each_key_the_pipeline_writes_reaches_exactly_its_consumer():
    assert routed("input", source_key("job-1")) == ["chunking"]
    assert routed("input", segment_key("job-1", 0, 3, "sbs")) == ["video-worker"]
    assert routed("output", output_segment_key("job-1", 2)) == ["segment-output"]
    assert routed("output", final_key("job-1")) == ["segment-output"]


def test_other_objects_raise_no_event():
    assert routed("input", "input/job-1/notes.txt") == []
    assert routed("output", source_key("job-1")) == []  # right key, wrong bucket


def test_routes_name_pipeline_queues_and_configured_buckets():
    settings = BackendSettings(input_bucket="in-b", output_bucket="out-b")
    assert {r.queue for r in NOTIFICATION_ROUTES} <= set(QUEUE_NAMES)
    assert [r.bucket_name(settings) for r in NOTIFICATION_ROUTES] == ["in-b", "in-b", "out-b"]
