import json

import pytest

from shared_types.envelope import (
    MetricsData,
    SegmentOutputData,
    error_body,
    read_failure,
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


def test_what_the_server_says_about_a_failure_the_client_reads():
    body = json.dumps(error_body("invalid_media", "no video stream", permanent=True))
    failure = read_failure(body)
    assert (failure.code, failure.message, failure.permanent) == (
        "invalid_media", "no video stream", True)


def test_the_flag_wins_over_the_status():
    body = json.dumps(error_body("transient", "disk full", permanent=False))
    assert read_failure(body, status=400).permanent is False


@pytest.mark.parametrize("body,status,expected", [
    # a server from before the flag: classified by its code, under its old names
    (json.dumps({"error": {"code": "invalid_input", "message": "no video stream"}}), 400,
     ("invalid_media", "no video stream", True)),
    (json.dumps({"error": {"code": "model_not_installed", "message": "no weights"}}), 422,
     ("model_unavailable", "no weights", True)),
    (json.dumps({"error": {"code": "internal", "message": "bug"}}), 500,
     ("internal", "bug", False)),
    # no body of ours: the status decides, and the reason names no input fault
    (json.dumps({"detail": "Not Found"}), 404, ("inference_rejected", "Not Found", True)),
    (json.dumps({"error": "boom"}), 400, ("inference_rejected", "boom", True)),
    (b"<html>Bad Gateway</html>", 502, ("transient", "<html>Bad Gateway</html>", False)),
    (b"overloaded", 429, ("transient", "overloaded", False)),
    (b"", 502, ("transient", "HTTP 502", False)),
])
def test_a_failure_without_the_flag_is_classified_by_code_then_status(body, status, expected):
    failure = read_failure(body, status=status, fallback="HTTP 502")
    assert (failure.code, failure.message, failure.permanent) == expected


def test_a_body_that_sagemaker_wrapped_in_its_own_words_is_unwrapped():
    inner = json.dumps(error_body("invalid_media", "not a video", permanent=True))
    wrapped = f"Received client error (400) from primary with message \"{inner}\""
    escaped = wrapped.replace(inner, inner.replace('"', '\\"'))
    for body in (wrapped, escaped):
        failure = read_failure(body.encode())
        assert (failure.code, failure.permanent) == ("invalid_media", True), body
    plain = read_failure(b'Received server error (500) from primary with message "<html>"')
    assert plain.permanent is False
    assert read_failure(b"Received client error (400) from primary").permanent is True
