import pytest
from fastapi.testclient import TestClient
from shared_types.errors import TransientStoreError
from shared_types.models import ConversionParams
from shared_types.testing.memory import MemoryStorage
from stereo_media.testing.pictures import same_picture

from stereo_inference import convert_file
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


# Pictures of two conversions compared: lossless, so x264's run-to-run noise
# (its frame threads, larger on a loaded machine) cannot pass for a decision
LOSSLESS = {"crf": 0}


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


def test_a_work_dir_that_does_not_exist_yet_is_made(clip, tmp_path, buckets):
    """Not a 500 on every request (retried as transient) for a fresh volume."""
    work = tmp_path / "not" / "yet"
    app = create_app(InferenceSettings(work_dir=work, models_dir=tmp_path / "models"),
                     storage_factory=lambda bucket: buckets[bucket])
    buckets["in"].put_file("a.mp4", clip)
    with TestClient(app, raise_server_exceptions=False) as c:
        resp = invoke(c, input_uri="s3://in/a.mp4", output_uri="s3://out/b.mp4")
    assert resp.status_code == 200, resp.text
    assert work.is_dir() and not any(work.iterdir())  # and its temporary files are gone


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
        ({"input_uri": "http://x/a.mp4", "output_uri": "s3://out/b.mp4"}, "invalid_request"),
        ({"input_uri": "file:///etc/passwd", "output_uri": "s3://out/b.mp4"},
         "invalid_request"),
        ({"input_uri": "s3://in/a.mp4", "output_uri": "s3://out/b.mp4",
          "params": {"divergence": 99}}, "invalid_request"),
        ({"output_uri": "s3://out/b.mp4"}, "invalid_request"),
        ({"input_uri": "s3://in/a.mp4", "output_uri": "s3://out/b.mp4",
          "context_uri": "https://x/prev.mp4"}, "invalid_request"),
        ({"input_uri": "s3://in/a.mp4", "output_uri": "s3://out/b.mp4",
          "context_uri": "file:///etc/passwd"}, "invalid_request"),
    ],
)
def test_bad_requests_are_permanent_4xx_with_a_reason(client, body, code):
    resp = invoke(client, **body)
    assert resp.status_code == 400
    assert resp.json()["error"]["code"] == code
    assert resp.json()["error"]["message"]
    assert resp.json()["error"]["permanent"] is True


def test_a_file_that_is_not_a_video_is_a_400(client, buckets):
    buckets["in"].put_bytes("a.mp4", b"this is not a video" * 100)
    resp = invoke(client, input_uri="s3://in/a.mp4", output_uri="s3://out/b.mp4")
    assert resp.status_code == 400
    assert "not a readable video" in resp.json()["error"]["message"]
    assert resp.json()["error"]["code"] == "invalid_media"
    assert resp.json()["error"]["permanent"] is True
    assert not buckets["out"].exists("b.mp4")


def test_a_missing_input_is_a_404(client):
    resp = invoke(client, input_uri="s3://in/nope.mp4", output_uri="s3://out/b.mp4")
    assert resp.status_code == 404
    assert resp.json()["error"]["code"] == "input_not_found"
    assert resp.json()["error"]["permanent"] is True


def test_a_missing_model_is_a_422(client, buckets, clip):
    buckets["in"].put_file("a.mp4", clip)
    resp = invoke(client, input_uri="s3://in/a.mp4", output_uri="s3://out/b.mp4",
                  params={"depth_model": "depth-anything-v2-large"})
    assert resp.status_code == 422
    assert "models download depth-anything-v2-large" in resp.json()["error"]["message"]
    assert resp.json()["error"]["code"] == "model_unavailable"
    assert resp.json()["error"]["permanent"] is True


def test_an_unreachable_store_is_a_503(tmp_path):
    app = create_app(InferenceSettings(work_dir=tmp_path),
                     storage_factory=lambda bucket: UnreachableStorage(bucket))
    with TestClient(app, raise_server_exceptions=False) as c:
        resp = invoke(c, input_uri="s3://in/a.mp4", output_uri="s3://out/b.mp4")
    assert resp.status_code == 503
    assert resp.json()["error"]["code"] == "transient"
    assert resp.json()["error"]["permanent"] is False


def _first_frame_of(bucket: MemoryStorage, key: str, tmp_path) -> object:
    local = tmp_path / key.replace("/", "_")
    bucket.get_file(key, local)
    return read_video(local)["first"]


def test_a_context_uri_seeds_depth_from_the_previous_segment(client, buckets, halves, tmp_path):
    first, second = halves
    buckets["in"].put_file("segments/j/0.mp4", first)
    buckets["in"].put_file("segments/j/1.mp4", second)
    resp = invoke(client, input_uri="s3://in/segments/j/1.mp4", output_uri="s3://out/ctx.mp4",
                  context_uri="s3://in/segments/j/0.mp4", params=LOSSLESS)
    assert resp.status_code == 200, resp.text
    served = _first_frame_of(buckets["out"], "ctx.mp4", tmp_path)
    local = {name: convert_file(second, tmp_path / name, mode="half-sbs",
                                params=ConversionParams(**LOSSLESS), **kw)
             for name, kw in (("ctx.mp4", {"context_path": first}), ("plain.mp4", {}))}
    assert same_picture(served, read_video(tmp_path / "ctx.mp4")["first"])
    assert not same_picture(served, read_video(tmp_path / "plain.mp4")["first"])
    assert local["ctx.mp4"].frames == resp.json()["blocks"][0]["data"]["frames"] == 24


def test_a_file_context_under_the_root_is_used(client, halves, tmp_path):
    first, second = halves
    resp = invoke(client, input_uri=f"file://{second}", output_uri=f"file://{tmp_path}/o.mp4",
                  context_uri=f"file://{first}")
    # The halves live outside this server's root: refused like any other URI.
    assert resp.status_code == 400
    assert "outside the allowed folder" in resp.text
    for half in (first, second):
        (tmp_path / half.name).write_bytes(half.read_bytes())
    resp = invoke(client, input_uri=f"file://{tmp_path / second.name}",
                  output_uri=f"file://{tmp_path}/o.mp4",
                  context_uri=f"file://{tmp_path / first.name}", params=LOSSLESS)
    assert resp.status_code == 200, resp.text
    convert_file(second, tmp_path / "ctx.mp4", mode="half-sbs", context_path=first,
                 params=ConversionParams(**LOSSLESS))
    assert same_picture(read_video(tmp_path / "o.mp4")["first"],
                        read_video(tmp_path / "ctx.mp4")["first"])


@pytest.mark.parametrize("context", ["s3://in/segments/j/gone.mp4", "file://{root}/gone.mp4"])
def test_a_missing_context_is_not_an_error(client, buckets, halves, tmp_path, context):
    _, second = halves
    buckets["in"].put_file("segments/j/1.mp4", second)
    resp = invoke(client, input_uri="s3://in/segments/j/1.mp4", output_uri="s3://out/o.mp4",
                  context_uri=context.format(root=tmp_path), params=LOSSLESS)
    assert resp.status_code == 200, resp.text
    convert_file(second, tmp_path / "plain.mp4", mode="half-sbs",
                 params=ConversionParams(**LOSSLESS))
    assert same_picture(_first_frame_of(buckets["out"], "o.mp4", tmp_path),
                        read_video(tmp_path / "plain.mp4")["first"])


def test_outside_sagemaker_invocations_need_the_shared_secret(tmp_path, buckets):
    settings = InferenceSettings(file_root=tmp_path, models_dir=tmp_path / "models",
                                 work_dir=tmp_path, inference_shared_secret="s3cr3t-of-16-chars")
    app = create_app(settings, storage_factory=lambda bucket: buckets[bucket])
    with TestClient(app, raise_server_exceptions=False) as c:
        assert c.get("/ping").status_code == 200  # health checks stay open
        assert invoke(c, input_uri="s3://in/a.mp4", output_uri="s3://out/b.mp4").status_code == 401
        wrong = c.post("/invocations", json={"mode": "half-sbs"},
                       headers={"X-StereoSpot-Secret": "guess"})
        assert wrong.status_code == 401
        right = c.post("/invocations", json={"mode": "half-sbs"},
                       headers={"X-StereoSpot-Secret": "s3cr3t-of-16-chars"})
        assert right.status_code == 400  # past the gate: the body is what is wrong
        empty = c.post("/invocations", json={"mode": "half-sbs"},
                       headers={"X-StereoSpot-Secret": ""})
        assert empty.status_code == 401


@pytest.mark.parametrize("weak", ["", "   ", "short"])
def test_an_empty_or_short_shared_secret_is_refused_not_taken_as_none(tmp_path, weak):
    """Finding 3 of #52: ``""`` made the server start and let a request with no
    header through (the gate checked ``is None`` only)."""
    with pytest.raises(ValueError, match="at least 16 characters"):
        InferenceSettings(file_root=tmp_path, inference_shared_secret=weak)


def test_an_imported_depth_video_is_fetched_and_used(client, buckets, clip, tmp_path):
    import json

    from stereo_inference.depth_export import export_depth

    depth = export_depth(clip, tmp_path / "d.mkv", depth_model="heuristic") and (
        tmp_path / "d.mkv")
    buckets["in"].put_file("segments/j1/00000_00001_half-sbs.mp4", clip)
    buckets["in"].put_file("input/j1/depth.mkv", depth)
    resp = invoke(client, input_uri="s3://in/segments/j1/00000_00001_half-sbs.mp4",
                  output_uri="s3://out/jobs/j1/segments/0.mp4",
                  depth_uri="s3://in/input/j1/depth.mkv")
    assert resp.status_code == 200, resp.text
    assert resp.json()["blocks"][0]["data"]["depth_model"] == "depth-video"
    report = json.loads(buckets["out"].get_bytes("jobs/j1/segments/0.mp4.comfort.json"))
    assert report["shots"]  # and its comfort report beside it, in the same store
    resp = invoke(client, input_uri="s3://in/segments/j1/00000_00001_half-sbs.mp4",
                  output_uri="s3://out/jobs/j1/segments/0.mp4",
                  depth_uri="s3://in/input/j1/missing.mkv")
    assert resp.status_code == 404  # negative: a depth video that is not there
