import json

import pytest

from shared_types.envelope import (
    MetricsData,
    SegmentOutputData,
    error_body,
    error_message,
    read_result_envelope,
    result_envelope,
)
from shared_types.errors import MalformedResponseError, TransientError
from shared_types.models import OutputMode


def test_what_the_server_writes_the_client_reads():
    output = SegmentOutputData(output_uri="s3://o/k", mode=OutputMode.SBS, frames=48,
                               duration_s=2.0, width=64, height=32, depth_model="heuristic",
                               elapsed_s=1.0, fps=48.0)
    body = json.dumps(result_envelope(output, MetricsData(values={"fps": 48.0},
                                                          dimensions={"mode": "sbs"})))
    blocks = read_result_envelope(body)
    assert blocks.segment["frames"] == 48
    assert blocks.segment["output_uri"] == "s3://o/k"
    assert blocks.metrics == {"values": {"fps": 48.0}, "dimensions": {"mode": "sbs"}}


@pytest.mark.parametrize("body", ["not json", "[]", json.dumps({"schema": "2.0", "blocks": []})])
def test_an_unreadable_body_is_a_transient_malformed_response(body):
    with pytest.raises(MalformedResponseError) as caught:
        read_result_envelope(body)
    assert isinstance(caught.value, TransientError)


def test_the_error_body_names_its_code():
    body = json.dumps(error_body("input_not_found", "no such object"))
    assert error_message(body, fallback="?") == "input_not_found: no such object"


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
