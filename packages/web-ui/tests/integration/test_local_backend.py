"""The app on the real local backend (SQLite + folders + signed /storage), with a
real video uploaded through the presigned URL."""

from __future__ import annotations

import html
import json
import re
from urllib.parse import quote, urlsplit

import pytest
from fastapi.testclient import TestClient
from shared_types.disk_room import ROOM_FACTOR, room_reserved
from shared_types.events import parse_s3_event_body
from shared_types.keys import final_key, source_key
from shared_types.models import JobError, JobStatus, JobUpdate
from shared_types.segment_retention import release_segments
from stereo_media.testing.media import make_video

from web_ui.app import create_app
from web_ui.settings import WebSettings


def make_settings(tmp_path, **overrides) -> WebSettings:
    return WebSettings(data_dir=tmp_path / "data", public_base_url="http://testserver",
                       signing_secret="integration-secret-0123456789", sse_poll_s=0.01,
                       **overrides)


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    return make_video(tmp_path_factory.mktemp("media") / "clip.mp4", seconds=1.0)


@pytest.fixture
def app(tmp_path):
    return create_app(make_settings(tmp_path))


@pytest.fixture
def client(app):
    return TestClient(app)


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def create(client, mode="sbs", title="Clip"):
    r = client.post("/api/jobs", json={"mode": mode, "title": title})
    assert r.status_code == 201
    return r.json()


def post_form(client, body, data):
    """Send the source as an HTML form to the presigned POST the API returned."""
    return client.post(path_of(body["upload_url"]), data=body["upload_fields"],
                       files={"file": ("clip.mp4", data, "video/mp4")}, follow_redirects=False)


def test_upload_through_the_presigned_post_reaches_the_chunking_queue(client, app, video):
    body = create(client)
    data = video.read_bytes()
    r = post_form(client, body, data)
    assert r.status_code == 204, r.text
    backend = app.state.backend
    assert backend.input_storage.head(source_key(body["job_id"])).size == len(data)
    [message] = backend.chunking_queue.receive()
    [record] = parse_s3_event_body(message.body)
    assert record.key == source_key(body["job_id"])
    page = client.get(f"/jobs/{body['job_id']}")
    assert "Uploaded, waiting to be split" in page.text


def test_an_upload_over_the_advertised_limit_is_refused_by_storage(tmp_path, video):
    app = create_app(make_settings(tmp_path, max_upload_bytes=1000))
    client = TestClient(app)
    body = create(client)
    assert body["max_upload_bytes"] == 1000
    r = post_form(client, body, video.read_bytes())
    assert r.status_code == 400 and r.text.startswith("EntityTooLarge")
    assert not app.state.backend.input_storage.exists(source_key(body["job_id"]))
    assert post_form(client, body, b"x" * 1000).status_code == 204


def test_an_upload_form_cannot_write_another_key(client, app, video):
    body = create(client)
    other = {**body["upload_fields"], "key": f"input/{'0' * 8}{body['job_id'][8:]}/source.mp4"}
    assert post_form(client, {**body, "upload_fields": other}, b"x").status_code == 403


def test_the_job_page_form_uploads_without_javascript_and_comes_back(client, app, video):
    job_id = create(client)["job_id"]
    page = client.get(f"/jobs/{job_id}").text
    page = page[page.index('<form id="upload-form"'):]
    page = page[:page.index("</form>")]
    action = re.search(r'action="([^"]+)"', page)[1]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    fields = {name: html.unescape(value) for name, value in fields.items()}
    r = client.post(path_of(action), data=fields,
                    files={"file": ("clip.mp4", video.read_bytes(), "video/mp4")},
                    follow_redirects=False)
    assert r.status_code == 303, r.text
    assert r.headers["location"].startswith(f"http://testserver/jobs/{job_id}?")
    assert client.get(r.headers["location"]).status_code == 200
    assert app.state.backend.input_storage.exists(source_key(job_id))
    csp = client.get(f"/jobs/{job_id}").headers["content-security-policy"]
    assert "form-action 'self' http://testserver;" in csp


def _completed(client, app, video, title: str) -> dict:
    """A half-SBS job titled ``title`` whose final video is ``video``: its create body."""
    body = create(client, mode="half-sbs", title=title)
    backend = app.state.backend
    backend.output_storage.put_file(final_key(body["job_id"]), video, content_type="video/mp4")
    backend.jobs.update(body["job_id"], JobUpdate(
        status=JobStatus.COMPLETED, final_key=final_key(body["job_id"]), completed_at=1.0))
    return body


def test_completed_job_streams_with_ranges_and_downloads_with_its_tag(client, app, video):
    body = _completed(client, app, video, "Beach day")

    play = client.get(f"/jobs/{body['job_id']}/play", follow_redirects=False)
    assert play.status_code == 307
    part = client.get(path_of(play.headers["location"]), headers={"Range": "bytes=0-99"})
    assert part.status_code == 206
    assert len(part.content) == 100
    assert part.content == video.read_bytes()[:100]

    urls = client.get(f"/api/jobs/{body['job_id']}/playback").json()
    assert urls["download_name"] == "Beach_day_Half_SBS.mp4"
    download = client.get(path_of(urls["download_url"]))
    assert "Beach_day_Half_SBS.mp4" in download.headers["content-disposition"]
    assert download.headers["x-content-type-options"] == "nosniff"


def test_a_download_keeps_a_title_in_any_language(client, app, video):
    body = _completed(client, app, video, "日本の旅行 été")

    urls = client.get(f"/api/jobs/{body['job_id']}/playback").json()
    download = client.get(path_of(urls["download_url"]))
    disposition = download.headers["content-disposition"]
    assert "filename*=UTF-8''" + quote("日本の旅行_été_Half_SBS.mp4") in disposition


def test_retry_and_delete_on_the_local_backend(client, app, video):
    body = create(client)
    job_id = body["job_id"]
    post_form(client, body, video.read_bytes())
    backend = app.state.backend
    backend.chunking_queue.delete(backend.chunking_queue.receive()[0])
    backend.jobs.update(job_id, JobUpdate(status=JobStatus.FAILED, error=JobError(
        code="transient", message="worker crashed", stage="chunking")))
    client.get("/")
    token = client.cookies["stereo_spot_csrf"]

    r = client.post(f"/jobs/{job_id}/retry", data={"csrf_token": token}, follow_redirects=False)
    assert r.status_code == 303
    assert backend.jobs.get(job_id).status == JobStatus.CREATED
    [message] = backend.chunking_queue.receive()
    assert json.loads(message.body)["Records"][0]["s3"]["object"]["key"].endswith("source.mp4")

    backend.jobs.update(job_id, JobUpdate(status=JobStatus.FAILED, error=JobError(
        code="transient", message="worker crashed", stage="chunking")))
    release_segments(backend, job_id)  # as a failing step does
    r = client.post(f"/jobs/{job_id}/delete", data={"csrf_token": token}, follow_redirects=False)
    assert r.status_code == 303
    assert backend.jobs.get(job_id) is None
    assert not backend.input_storage.exists(source_key(job_id))
    data_dir = app.state.settings.data_dir
    assert [p for p in data_dir.rglob("*") if job_id in str(p)] == []  # no empty folder


def test_an_upload_the_disk_clearly_has_no_room_for_is_refused_before_any_byte(tmp_path):
    client = TestClient(create_app(make_settings(tmp_path, max_upload_bytes=5 * 1024 ** 4)))
    job = create(client)
    huge = 2 * 1024 ** 4  # 2 TiB: three times that is free on no test machine

    r = client.post(f"/api/jobs/{job['job_id']}/uploads",
                    json={"file_name": "film.mp4", "size": huge})

    assert r.status_code == 507, r.text
    detail = r.json()["detail"]
    assert detail.startswith("Not enough free disk space for converting this 2.0 TB video")
    assert str(tmp_path / "data") in detail
    # nothing was started: a smaller file still goes to the same job, whose size
    # now counts against the uploads that start after it (disk_room.room_reserved)
    assert client.post(f"/api/jobs/{job['job_id']}/uploads",
                       json={"file_name": "clip.mp4", "size": 1000}).status_code == 201
    backend = client.app.state.backend
    assert backend.jobs.get(job["job_id"]).source_size_bytes == 1000
    assert room_reserved(backend) == ROOM_FACTOR * 1000
    assert room_reserved(backend, besides=job["job_id"]) == 0
