"""Against a real moto_server over HTTP: S3 notifications into SQS, presigned URLs."""

from __future__ import annotations

import base64
import json

import httpx
import pytest
from shared_types.events import parse_s3_event_body
from shared_types.settings import BackendSettings

from aws_adapters import build_backend
from aws_adapters.provision import create_data_plane
from aws_adapters.testing.moto_server import reset_moto_server


@pytest.fixture
def server_backend(moto_server_url):
    reset_moto_server(moto_server_url)
    settings = create_data_plane(BackendSettings(backend="aws",
                                                 aws_endpoint_url=moto_server_url))
    return build_backend(settings)


def next_records(queue):
    """Records of the next S3 event on ``queue``, acknowledging test events."""
    for _ in range(5):
        for msg in queue.receive(max_messages=1, wait_s=2, visibility_s=30):
            queue.delete(msg)
            records = parse_s3_event_body(msg.body)
            if records:
                return records
    raise AssertionError(f"no S3 event arrived on {queue.name}")


@pytest.mark.parametrize("key", ["input/job-1/source.mp4", "input/my movie+cut (1)/source.mp4"])
def test_a_presigned_put_raises_an_event_naming_bucket_and_key(server_backend, key):
    req = server_backend.input_storage.presign_put(key, content_type="video/mp4")
    resp = httpx.put(req.url, content=b"fake mp4 bytes", headers=req.headers)
    assert resp.status_code == 200, resp.text
    [record] = next_records(server_backend.chunking_queue)
    assert (record.bucket, record.key) == (server_backend.input_storage.bucket, key)
    assert record.size == len(b"fake mp4 bytes")
    assert server_backend.input_storage.head(key).content_type == "video/mp4"


def test_segment_and_output_writes_route_to_their_queues(server_backend):
    server_backend.input_storage.put_bytes("segments/j1/00000_00001_sbs.mp4", b"seg")
    server_backend.output_storage.put_bytes("jobs/j1/segments/0.mp4", b"out")
    server_backend.input_storage.put_bytes("elsewhere/ignored.mp4", b"x")
    [seg] = next_records(server_backend.video_queue)
    [out] = next_records(server_backend.segment_output_queue)
    assert seg.key == "segments/j1/00000_00001_sbs.mp4"
    assert (out.bucket, out.key) == ("stereo-spot-output", "jobs/j1/segments/0.mp4")
    stray = [r for m in server_backend.chunking_queue.receive(max_messages=10, wait_s=1)
             for r in parse_s3_event_body(m.body)]
    assert stray == []  # neither a segment nor an unrelated key starts a chunking job


def test_presigned_get_serves_ranges_and_names_the_download(server_backend):
    storage = server_backend.output_storage
    storage.put_bytes("jobs/j1/final.mp4", b"0123456789", content_type="video/mp4")
    url = storage.presign_get("jobs/j1/final.mp4", download_name='My "film"_LRF_Full_SBS.mp4')
    resp = httpx.get(url, headers={"Range": "bytes=2-5"})
    assert resp.status_code == 206
    assert resp.content == b"2345"
    disposition = resp.headers["content-disposition"]
    assert disposition.startswith("attachment;")
    assert "_LRF_Full_SBS.mp4" in disposition
    assert httpx.get(storage.presign_get("jobs/j1/final.mp4")).content == b"0123456789"


def test_a_presigned_post_uploads_with_its_form_fields(server_backend):
    storage = server_backend.input_storage
    req = storage.presign_post("input/j2/source.mp4", max_bytes=1000, content_type="video/mp4")
    assert req.method == "POST"
    assert req.max_bytes == 1000
    resp = httpx.post(req.url, data=req.fields, files={"file": ("source.mp4", b"small")})
    assert resp.status_code in (200, 201, 204), resp.text
    assert storage.get_bytes("input/j2/source.mp4") == b"small"
    policy = json.loads(base64.b64decode(req.fields["policy"]))
    assert ["content-length-range", 1, 1000] in policy["conditions"]


def test_a_presigned_post_redirects_to_the_page_it_names(server_backend):
    storage = server_backend.input_storage
    req = storage.presign_post("input/j3/source.mp4", max_bytes=1000,
                               success_redirect="http://app.test/jobs/j3")
    assert req.fields["success_action_redirect"] == "http://app.test/jobs/j3"
    resp = httpx.post(req.url, data=req.fields, files={"file": ("source.mp4", b"small")})
    assert resp.status_code == 303, resp.text
    assert resp.headers["location"].startswith("http://app.test/jobs/j3?")
    assert "key=input%2Fj3%2Fsource.mp4" in resp.headers["location"]


def test_moto_does_not_enforce_the_post_policy_so_the_cap_lives_in_the_signed_policy(
        server_backend):
    # S3 answers 400 EntityTooLarge here; moto 5.2.5 stores the object (its POST
    # handler evaluates no policy). The enforcement is tested on the local
    # backend, which evaluates the same policy document.
    storage = server_backend.input_storage
    req = storage.presign_post("input/j4/source.mp4", max_bytes=4)
    resp = httpx.post(req.url, data=req.fields, files={"file": ("source.mp4", b"over the cap")})
    assert resp.status_code == 204
    policy = json.loads(base64.b64decode(req.fields["policy"]))
    assert ["content-length-range", 1, 4] in policy["conditions"]


def test_queues_resolve_by_name_when_no_url_is_configured(server_backend, moto_server_url):
    backend = build_backend(BackendSettings(backend="aws", aws_endpoint_url=moto_server_url))
    backend.reassembly_queue.send(json.dumps({"job_id": "j1"}))
    [msg] = server_backend.reassembly_queue.receive(wait_s=1)
    assert json.loads(msg.body) == {"job_id": "j1"}
    assert backend.reassembly_queue.name == "reassembly"
