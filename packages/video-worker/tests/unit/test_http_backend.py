import json

import httpx
import pytest
from shared_types.keys import parse_segment_key, segment_key
from shared_types.models import ConversionParams, OutputMode
from shared_types.testing.memory import MemoryStorage

from video_worker.errors import InferenceRejectedError, InferenceUnavailableError
from video_worker.http_backend import HttpInferenceBackend
from video_worker.request import invocation_request

KEY = segment_key("job-1", 0, 2, OutputMode.HALF_SBS)
OUT = "jobs/job-1/segments/0.mp4"
OK = {"schema": "1.0", "blocks": [{"type": "segment_output", "data": {"frames": 24}}]}


def payload():
    from shared_types.keys import parse_segment_key
    return parse_segment_key("input", KEY)


def backend_with(handler):
    client = httpx.Client(transport=httpx.MockTransport(handler))
    return HttpInferenceBackend("http://infer.test/", MemoryStorage("input"),
                                MemoryStorage("output"), client=client)


def test_posts_the_engine_contract_and_parses_the_envelope():
    seen = {}

    def handler(request):
        seen["url"] = str(request.url)
        seen["body"] = json.loads(request.content)
        return httpx.Response(200, json=OK)

    result = backend_with(handler).convert(payload(), OUT, ConversionParams(divergence=4))
    assert seen["url"] == "http://infer.test/invocations"
    assert seen["body"] == {"input_uri": f"memory://input/{KEY}",
                            "output_uri": f"memory://output/{OUT}", "mode": "half-sbs",
                            "params": ConversionParams(divergence=4).model_dump(mode="json")}
    assert result.frames == 24
    assert result.output_key == OUT


def test_a_4xx_is_permanent_with_the_servers_reason():
    body = {"error": {"code": "invalid_input", "message": "The file has no video stream."}}
    backend = backend_with(lambda r: httpx.Response(422, json=body))
    with pytest.raises(InferenceRejectedError, match="The file has no video stream"):
        backend.convert(payload(), OUT, ConversionParams())


@pytest.mark.parametrize("status", [500, 503, 429, 408])
def test_5xx_and_retryable_4xx_are_transient(status):
    backend = backend_with(lambda r: httpx.Response(status, text="overloaded"))
    with pytest.raises(InferenceUnavailableError, match="overloaded"):
        backend.convert(payload(), OUT, ConversionParams())


def test_connection_errors_are_transient():
    def handler(request):
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(InferenceUnavailableError, match="unreachable"):
        backend_with(handler).convert(payload(), OUT, ConversionParams())


def test_a_200_without_an_envelope_is_transient():
    with pytest.raises(InferenceUnavailableError):
        backend_with(lambda r: httpx.Response(200, text="ok")).convert(
            payload(), OUT, ConversionParams())


def test_the_request_names_objects_by_their_storage_uris():
    body = invocation_request(payload(), OUT, ConversionParams(), MemoryStorage("in"),
                              MemoryStorage("out"))
    assert body["input_uri"] == f"memory://in/{KEY}"
    assert body["output_uri"] == f"memory://out/{OUT}"


def test_a_later_segment_carries_the_previous_one_as_context_uri():
    later = parse_segment_key("input", segment_key("job-1", 1, 2, OutputMode.HALF_SBS))
    body = invocation_request(later, OUT, ConversionParams(), MemoryStorage("in"),
                              MemoryStorage("out"))
    assert body["context_uri"] == f"memory://in/{KEY}"
    assert "context_uri" not in invocation_request(payload(), OUT, ConversionParams(),
                                                   MemoryStorage("in"), MemoryStorage("out"))


@pytest.mark.parametrize(("seamless", "index", "expected"), [
    (True, 1, f"memory://input/{KEY}"), (True, 0, None), (False, 1, None)])
def test_the_posted_request_has_context_uri_only_when_seamless(seamless, index, expected):
    seen = {}

    def handler(request):
        seen["body"] = json.loads(request.content)
        return httpx.Response(200, json=OK)

    client = httpx.Client(transport=httpx.MockTransport(handler))
    backend = HttpInferenceBackend("http://infer.test", MemoryStorage("input"),
                                   MemoryStorage("output"), client=client, seamless=seamless)
    segment = parse_segment_key("input", segment_key("job-1", index, 2, OutputMode.HALF_SBS))
    backend.convert(segment, OUT, ConversionParams())
    assert seen["body"].get("context_uri") == expected


def test_the_shared_secret_goes_with_every_invocation():
    seen = {}

    def handler(request):
        seen["secret"] = request.headers.get("X-StereoSpot-Secret")
        return httpx.Response(200, json=OK)

    client = httpx.Client(transport=httpx.MockTransport(handler))
    backend = HttpInferenceBackend("http://infer.test", MemoryStorage("input"),
                                   MemoryStorage("output"), client=client, shared_secret="s3cr3t")
    backend.convert(payload(), OUT, ConversionParams())
    assert seen["secret"] == "s3cr3t"


def test_a_whole_video_with_an_imported_depth_video_carries_its_uri():
    from shared_types.keys import depth_video_key

    storage = MemoryStorage("in")
    whole = parse_segment_key("input", segment_key("job-1", 0, 1, OutputMode.HALF_SBS))
    assert "depth_uri" not in invocation_request(whole, OUT, ConversionParams(), storage,
                                                 MemoryStorage("out"))
    storage.put_bytes(depth_video_key("job-1"), b"depth")
    body = invocation_request(whole, OUT, ConversionParams(), storage, MemoryStorage("out"))
    assert body["depth_uri"] == "memory://in/input/job-1/depth.mkv"
