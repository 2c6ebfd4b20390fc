"""The app wired for AWS (DynamoDB, SQS, S3) on moto: presigned S3 URLs, no
local /storage routes."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import moto
import pytest
from fastapi.testclient import TestClient
from shared_types.keys import source_key
from shared_types.models import MIN_PART_BYTES, JobStatus, JobUpdate
from shared_types.upload_policy import decode_policy

from web_ui.app import create_app
from web_ui.settings import WebSettings


@pytest.fixture
def aws_app(request, monkeypatch):
    """The app on moto; indirect parametrisation overrides settings."""
    from aws_adapters.provision import create_data_plane

    for name, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                        ("AWS_SESSION_TOKEN", "testing"), ("AWS_DEFAULT_REGION", "us-east-1")):
        monkeypatch.setenv(name, value)
    with moto.mock_aws():
        provisioned = create_data_plane(WebSettings(backend="aws"))
        settings = WebSettings(**{**provisioned.model_dump(), "backend": "aws",
                                  "allowed_hosts": ["testserver"],
                                  **getattr(request, "param", {})})
        yield create_app(settings)


def test_aws_wiring_presigns_s3_and_mounts_no_local_storage(aws_app):
    client = TestClient(aws_app)
    body = client.post("/api/jobs", json={"mode": "anaglyph", "title": "Red cyan"}).json()
    assert body["upload_method"] == "POST"
    assert body["upload_fields"]["key"] == f"input/{body['job_id']}/source.mp4"
    assert "x-amz-signature" in body["upload_fields"]
    assert ["content-length-range", 1, body["max_upload_bytes"]] in decode_policy(
        body["upload_fields"]["policy"])["conditions"]
    assert client.get("/storage/stereo-spot-input/x").status_code == 404

    aws_app.state.backend.jobs.update(body["job_id"], JobUpdate(status=JobStatus.COMPLETED,
                                                                completed_at=1.0))
    urls = client.get(f"/api/jobs/{body['job_id']}/playback").json()
    disposition = parse_qs(urlsplit(urls["download_url"]).query)["response-content-disposition"]
    assert "Red_cyan_Anaglyph.mp4" in disposition[0]
    page = client.get(f"/jobs/{body['job_id']}")
    assert page.status_code == 200
    assert 'id="player"' in page.text


@pytest.mark.parametrize("aws_app", [{"upload_part_bytes": MIN_PART_BYTES}], indirect=True)
def test_a_resumable_upload_goes_to_s3_in_parts_on_presigned_urls(aws_app):
    import requests

    client = TestClient(aws_app)
    backend = aws_app.state.backend
    job_id = client.post("/api/jobs", json={"mode": "sbs"}).json()["job_id"]
    data = bytes(range(256)) * (MIN_PART_BYTES // 256) + b"the end"
    base = f"/api/jobs/{job_id}/uploads"
    plan = client.post(base, json={"file_name": "trip.mov", "size": len(data)}).json()
    assert (plan["part_size"], plan["part_count"]) == (MIN_PART_BYTES, 2)
    upload = f"{base}/{plan['upload_id']}"
    urls = client.post(f"{upload}/parts", json={"part_numbers": [1, 2]}).json()["urls"]
    assert "X-Amz-Signature" in urls["1"]
    assert "uploadId=" in urls["1"]
    assert requests.put(urls["1"], data=data[:MIN_PART_BYTES], timeout=30).status_code == 200
    # a reload: the page asks what S3 already holds and sends only the rest
    state = client.get(upload).json()
    assert [(p["part_number"], p["size"]) for p in state["parts"]] == [(1, MIN_PART_BYTES)]
    assert requests.put(urls["2"], data=data[MIN_PART_BYTES:], timeout=30).status_code == 200
    assert client.post(f"{upload}/complete", json={}).json() == {"size": len(data)}
    assert backend.input_storage.get_bytes(source_key(job_id)) == data
    assert backend.jobs.get(job_id).title == "trip"
    assert client.post(f"{upload}/complete", json={}).status_code == 409  # one source per job


@pytest.mark.parametrize("aws_app", [{"max_upload_bytes": MIN_PART_BYTES}], indirect=True)
def test_s3_parts_over_the_cap_are_refused_at_complete_and_freed(aws_app):
    import requests

    client = TestClient(aws_app)
    job_id = client.post("/api/jobs", json={"mode": "sbs"}).json()["job_id"]
    base = f"/api/jobs/{job_id}/uploads"
    plan = client.post(base, json={"file_name": "x.mp4", "size": 10}).json()  # it lies
    upload = f"{base}/{plan['upload_id']}"
    # 10 bytes need one part: no URL for a second
    assert client.post(f"{upload}/parts", json={"part_numbers": [1, 2]}).status_code == 400
    [url] = client.post(f"{upload}/parts", json={"part_numbers": [1]}).json()["urls"].values()
    assert "content-length" in url  # S3 takes exactly 10 bytes there; moto does not check
    requests.put(url, data=b"a" * MIN_PART_BYTES, timeout=30)  # moto stores it
    assert client.post(f"{upload}/complete", json={}).status_code == 413
    assert not aws_app.state.backend.input_storage.exists(source_key(job_id))
    assert client.get(upload).status_code == 404  # aborted: the parts are gone
