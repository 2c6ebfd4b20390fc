import json

import pytest

from video_worker.envelope import error_message, parse_result_envelope
from video_worker.errors import InferenceUnavailableError

KEY = "jobs/j/segments/0.mp4"


def envelope(*blocks, schema="1.0"):
    return json.dumps({"schema": schema, "blocks": list(blocks)})


def test_reads_the_segment_output_and_metrics_blocks():
    body = envelope(
        {"type": "segment_output", "data": {"output_uri": "s3://o/" + KEY, "frames": 48,
                                            "duration_s": 2.0, "depth_model": "heuristic"}},
        {"type": "metrics", "data": {"SegmentConversionDurationSeconds": 3.5, "fps": 13.7}},
        {"type": "something-new", "data": {"x": 1}},
    )
    result = parse_result_envelope(body, KEY)
    assert (result.output_key, result.frames, result.duration_s, result.fps) == (KEY, 48, 2.0,
                                                                                 13.7)
    assert result.depth_model == "heuristic"
    assert result.metrics["SegmentConversionDurationSeconds"] == 3.5


@pytest.mark.parametrize("body", [
    "not json", "[]", json.dumps({"schema": "1.0"}),
    envelope({"type": "metrics", "data": {}}),
    envelope({"type": "segment_output", "data": {}}, schema="2.0"),
    envelope({"type": "segment_output"}),
    envelope({"type": "segment_output", "data": {"frames": "many"}}),
])
def test_unreadable_answers_are_transient(body):
    with pytest.raises(InferenceUnavailableError):
        parse_result_envelope(body, KEY)


@pytest.mark.parametrize("body,expected", [
    (json.dumps({"error": {"code": "invalid_input", "message": "no video stream"}}),
     "invalid_input: no video stream"),
    (json.dumps({"detail": "Not Found"}), "Not Found"),
    (json.dumps({"error": "boom"}), "boom"),
    (b"<html>Bad Gateway</html>", "<html>Bad Gateway</html>"),
    (b"", "HTTP 502"),
])
def test_error_message_finds_the_reason(body, expected):
    assert error_message(body, fallback="HTTP 502") == expected
