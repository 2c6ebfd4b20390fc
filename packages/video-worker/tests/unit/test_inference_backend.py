import json

import pytest

from video_worker.errors import InferenceUnavailableError
from video_worker.inference_backend import result_from_envelope

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
    result = result_from_envelope(body, KEY)
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
        result_from_envelope(body, KEY)
