"""The http backend against a real inference server over a real socket."""

import shutil
import socket
from pathlib import Path
from urllib.parse import urlparse

import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from shared_types.keys import parse_segment_key, segment_key
from shared_types.models import ConversionParams, OutputMode
from shared_types.testing.serving import serve_in_thread

from video_worker.errors import InferenceRejectedError, InferenceUnavailableError
from video_worker.http_backend import HttpInferenceBackend


def inference_server_app(root: Path) -> FastAPI:
    """A tiny server with the engine's HTTP contract: copies file:// input to output."""
    app = FastAPI()

    @app.post("/invocations")
    def invocations(request: dict):
        if request["params"]["crf"] == 51:  # the test's way to ask for a server fault
            return JSONResponse({"error": {"code": "internal", "message": "GPU fell off"}}, 503)
        source = Path(urlparse(request["input_uri"]).path)
        if not source.is_file() or not str(source).startswith(str(root)):
            return JSONResponse({"error": {"code": "invalid_input",
                                           "message": f"no such input {source.name}"}}, 422)
        target = Path(urlparse(request["output_uri"]).path)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        return {"schema": "1.0", "blocks": [
            {"type": "segment_output", "data": {"output_uri": request["output_uri"],
                                                "frames": 24}},
            {"type": "metrics", "data": {"SegmentConversionDurationSeconds": 0.01}}]}

    return app


@pytest.fixture
def server_url(settings):
    with serve_in_thread(inference_server_app(Path(settings.data_dir).resolve()),
                         lifespan="auto") as url:
        yield url


def make(local_backend, url):
    return HttpInferenceBackend(url, local_backend.input_storage, local_backend.output_storage,
                                timeout_s=30)


def test_the_server_writes_the_output_and_its_event_reaches_the_queue(local_backend,
                                                                      server_url):
    key = segment_key("job-h", 0, 1, OutputMode.SBS)
    local_backend.input_storage.put_bytes(key, b"segment")
    backend = make(local_backend, server_url)
    out = "jobs/job-h/segments/0.mp4"
    result = backend.convert(parse_segment_key(local_backend.input_storage.bucket, key), out,
                             ConversionParams())
    backend.close()
    assert result.frames == 24
    assert result.metrics["SegmentConversionDurationSeconds"] == 0.01
    assert local_backend.output_storage.get_bytes(out) == b"segment"


def test_a_rejected_segment_is_permanent_with_the_servers_reason(local_backend, server_url):
    key = segment_key("job-h", 0, 1, OutputMode.SBS)  # never uploaded
    backend = make(local_backend, server_url)
    with pytest.raises(InferenceRejectedError, match="no such input"):
        backend.convert(parse_segment_key("input", key), "jobs/job-h/segments/0.mp4",
                        ConversionParams())
    backend.close()


def test_a_server_fault_and_a_dead_server_are_transient(local_backend, server_url):
    payload = parse_segment_key("input", segment_key("job-h", 0, 1, OutputMode.SBS))
    backend = make(local_backend, server_url)
    with pytest.raises(InferenceUnavailableError, match="GPU fell off"):
        backend.convert(payload, "jobs/job-h/segments/0.mp4", ConversionParams(crf=51))
    backend.close()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    backend = make(local_backend, dead)
    with pytest.raises(InferenceUnavailableError, match="unreachable"):
        backend.convert(payload, "jobs/job-h/segments/0.mp4", ConversionParams())
    backend.close()
