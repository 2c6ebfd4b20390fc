"""The server's default S3 wiring (aws-adapters' S3ObjectStorage) against moto."""

import boto3
import pytest
from fastapi.testclient import TestClient

from stereo_inference.server import create_app
from stereo_inference.settings import InferenceSettings

from .conftest import read_video

moto = pytest.importorskip("moto")


@pytest.fixture
def s3(monkeypatch):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with moto.mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket="seg-in")
        client.create_bucket(Bucket="seg-out")
        yield client


def test_a_segment_goes_from_s3_to_s3(s3, clip, tmp_path):
    s3.upload_file(str(clip), "seg-in", "segments/j/00000_00001_sbs.mp4")
    app = create_app(InferenceSettings(aws_region="us-east-1", work_dir=tmp_path))
    with TestClient(app) as client:
        resp = client.post("/invocations", json={
            "input_uri": "s3://seg-in/segments/j/00000_00001_sbs.mp4",
            "output_uri": "s3://seg-out/jobs/j/segments/0.mp4", "mode": "sbs"})
    assert resp.status_code == 200, resp.text
    s3.download_file("seg-out", "jobs/j/segments/0.mp4", str(tmp_path / "o.mp4"))
    assert read_video(tmp_path / "o.mp4")["size"] == (320, 96)


def test_a_missing_s3_object_is_a_404(s3, tmp_path):
    app = create_app(InferenceSettings(aws_region="us-east-1", work_dir=tmp_path))
    with TestClient(app, raise_server_exceptions=False) as client:
        resp = client.post("/invocations", json={
            "input_uri": "s3://seg-in/nope.mp4", "output_uri": "s3://seg-out/x.mp4", "mode": "sbs"})
    assert resp.status_code == 404, resp.text
