"""A request the engine's server refuses fails the segment the same way over
HTTP and over SageMaker async: the real server's error bodies, fed to both."""

import httpx
import pytest
from fastapi.testclient import TestClient
from shared_types.keys import parse_segment_key, segment_key
from shared_types.models import ConversionParams, OutputMode
from shared_types.testing.memory import MemoryStorage
from stereo_inference.server import create_app
from stereo_inference.settings import InferenceSettings

from video_worker.errors import InferenceRejectedError
from video_worker.http_backend import HttpInferenceBackend
from video_worker.sagemaker_backend import classify_failure

KEY = segment_key("job-1", 0, 2, OutputMode.SBS)
OUT = "jobs/job-1/segments/0.mp4"


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "files"
    root.mkdir()
    app = create_app(InferenceSettings(file_root=root, work_dir=tmp_path))
    with TestClient(app) as client:
        yield client, root


def refusals(server):
    """(what was wrong, status, body) for each refusal the server answers with a 4xx."""
    client, root = server
    missing = {"input_uri": f"file://{root}/gone.mp4", "output_uri": f"file://{root}/o.mp4",
               "mode": "sbs"}
    invalid = {"input_uri": f"file://{root}/in.mp4", "mode": "sbs"}  # no output_uri
    for what, body in (("missing input", missing), ("invalid request", invalid)):
        answer = client.post("/invocations", json=body)
        yield what, answer.status_code, answer.content


def test_each_refusal_is_permanent_over_http_and_over_sagemaker(server):
    seen = []
    for what, status, body in refusals(server):
        seen.append((what, status))
        http = HttpInferenceBackend(
            "http://infer.test/", MemoryStorage("input"), MemoryStorage("output"),
            client=httpx.Client(transport=httpx.MockTransport(
                lambda r, s=status, b=body: httpx.Response(s, content=b))))
        with pytest.raises(InferenceRejectedError):
            http.convert(parse_segment_key("input", KEY), OUT, ConversionParams())
        assert isinstance(classify_failure(body), InferenceRejectedError), what
    assert seen == [("missing input", 404), ("invalid request", 400)]
