import pytest
from fastapi.testclient import TestClient
from shared_types.errors import TransientStoreError
from shared_types.testing.memory import MemoryStorage

from stereo_inference.server import create_app
from stereo_inference.settings import InferenceSettings

from .conftest import read_video


class UnreachableStorage(MemoryStorage):
    def get_file(self, key, path):
        raise TransientStoreError("S3 is unreachable")


@pytest.fixture
def buckets():
    return {"in": MemoryStorage("in"), "out": MemoryStorage("out")}


@pytest.fixture
def client(tmp_path, buckets):
    settings = InferenceSettings(file_root=tmp_path, models_dir=tmp_path / "models",
                                 work_dir=tmp_path)
    app = create_app(settings, storage_factory=lambda bucket: buckets[bucket])
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def invoke(client, **body):
    return client.post("/invocations", json={"mode": "half-sbs", **body})


def test_ping_answers(client):
    assert client.get("/ping").json() == {"status": "ok"}


def test_s3_in_and_out_returns_the_block_envelope(client, buckets, clip, tmp_path):
    buckets["in"].put_file("segments/j1/00000_00001_half-sbs.mp4", clip)
    resp = invoke(client, input_uri="s3://in/segments/j1/00000_00001_half-sbs.mp4",
                  output_uri="s3://out/jobs/j1/segments/0.mp4",
                  params={"divergence": 2.5, "crf": 23})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["schema"] == "1.0"
    assert [b["type"] for b in body["blocks"]] == ["segment_output", "metrics"]
    output = body["blocks"][0]["data"]
    assert output["output_uri"] == "s3://out/jobs/j1/segments/0.mp4"
    assert (output["frames"], output["width"], output["height"]) == (24, 160, 96)
    assert output["depth_state"]["model"] == "heuristic"
    metrics = body["blocks"][1]["data"]
    assert set(metrics["values"]) == {"SegmentConversionDurationSeconds",
                                      "ConversionSecondsPerMb"}
    assert metrics["dimensions"]["SegmentSizeBucket"] == "0-5"
    written = tmp_path / "written.mp4"
    buckets["out"].get_file("jobs/j1/segments/0.mp4", written)
    assert read_video(written)["frames"] == 24
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("stereo-inference-")] == []


def test_the_legacy_s3_field_names_are_accepted(client, buckets, clip):
    buckets["in"].put_file("a.mp4", clip)
    resp = client.post("/invocations", json={"s3_input_uri": "s3://in/a.mp4",
                                             "s3_output_uri": "s3://out/b.mp4", "mode": "tb"})
    assert resp.status_code == 200, resp.text
    assert buckets["out"].exists("b.mp4")


def test_file_uris_under_the_root_work(client, clip, tmp_path):
    source = tmp_path / "in.mp4"
    source.write_bytes(clip.read_bytes())
    resp = invoke(client, input_uri=f"file://{source}", output_uri=f"file://{tmp_path}/o/x.mp4")
    assert resp.status_code == 200, resp.text
    assert read_video(tmp_path / "o" / "x.mp4")["frames"] == 24


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"input_uri": "s3://in/a.mp4", "output_uri": "s3://out/b.mp4", "mode": "vr"},
         "invalid_request"),
        ({"input_uri": "http://x/a.mp4", "output_uri": "s3://out/b.mp4"}, "invalid_input"),
        ({"input_uri": "file:///etc/passwd", "output_uri": "s3://out/b.mp4"}, "invalid_input"),
        ({"input_uri": "s3://in/a.mp4", "output_uri": "s3://out/b.mp4",
          "params": {"divergence": 99}}, "invalid_request"),
        ({"output_uri": "s3://out/b.mp4"}, "invalid_request"),
    ],
)
def test_bad_requests_are_4xx_with_a_reason(client, body, code):
    resp = invoke(client, **body)
    assert resp.status_code == 400
    assert resp.json()["error"]["code"] == code
    assert resp.json()["error"]["message"]


def test_a_file_that_is_not_a_video_is_a_400(client, buckets):
    buckets["in"].put_bytes("a.mp4", b"this is not a video" * 100)
    resp = invoke(client, input_uri="s3://in/a.mp4", output_uri="s3://out/b.mp4")
    assert resp.status_code == 400 and "not a readable video" in resp.json()["error"]["message"]
    assert not buckets["out"].exists("b.mp4")


def test_a_missing_input_is_a_404(client):
    resp = invoke(client, input_uri="s3://in/nope.mp4", output_uri="s3://out/b.mp4")
    assert resp.status_code == 404 and resp.json()["error"]["code"] == "input_not_found"


def test_a_missing_model_is_a_422(client, buckets, clip):
    buckets["in"].put_file("a.mp4", clip)
    resp = invoke(client, input_uri="s3://in/a.mp4", output_uri="s3://out/b.mp4",
                  params={"depth_model": "depth-anything-v2-large"})
    assert resp.status_code == 422
    assert "models download depth-anything-v2-large" in resp.json()["error"]["message"]


def test_an_unreachable_store_is_a_503(tmp_path):
    app = create_app(InferenceSettings(work_dir=tmp_path),
                     storage_factory=lambda bucket: UnreachableStorage(bucket))
    with TestClient(app, raise_server_exceptions=False) as c:
        resp = invoke(c, input_uri="s3://in/a.mp4", output_uri="s3://out/b.mp4")
    assert resp.status_code == 503 and resp.json()["error"]["code"] == "transient"
