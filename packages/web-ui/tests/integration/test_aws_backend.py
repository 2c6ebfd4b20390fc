"""The app wired for AWS (DynamoDB, SQS, S3) on moto: presigned S3 URLs, no
local /storage routes."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import moto
import pytest
from fastapi.testclient import TestClient
from shared_types.models import JobStatus, JobUpdate

from web_ui.app import create_app
from web_ui.settings import WebSettings


@pytest.fixture
def aws_app(monkeypatch):
    from aws_adapters.provision import create_data_plane

    for name, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                        ("AWS_SESSION_TOKEN", "testing"), ("AWS_DEFAULT_REGION", "us-east-1")):
        monkeypatch.setenv(name, value)
    with moto.mock_aws():
        provisioned = create_data_plane(WebSettings(backend="aws"))
        settings = WebSettings(**{**provisioned.model_dump(), "backend": "aws",
                                  "allowed_hosts": ["testserver"]})
        yield create_app(settings)


def test_aws_wiring_presigns_s3_and_mounts_no_local_storage(aws_app):
    client = TestClient(aws_app)
    body = client.post("/api/jobs", json={"mode": "anaglyph", "title": "Red cyan"}).json()
    upload = urlsplit(body["upload_url"])
    assert upload.path.endswith(f"input/{body['job_id']}/source.mp4")
    assert "X-Amz-Signature" in upload.query or "Signature" in upload.query
    assert client.get("/storage/stereo-spot-input/x").status_code == 404

    aws_app.state.backend.jobs.update(body["job_id"], JobUpdate(status=JobStatus.COMPLETED,
                                                                completed_at=1.0))
    urls = client.get(f"/api/jobs/{body['job_id']}/playback").json()
    disposition = parse_qs(urlsplit(urls["download_url"]).query)["response-content-disposition"]
    assert "Red_cyan_Anaglyph.mp4" in disposition[0]
    page = client.get(f"/jobs/{body['job_id']}")
    assert page.status_code == 200 and 'id="player"' in page.text
