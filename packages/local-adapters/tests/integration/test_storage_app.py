"""The /storage ASGI app: signatures, expiry, size cap while streaming, Range."""

import pytest
from shared_types.events import parse_s3_event_body
from starlette.testclient import TestClient

from local_adapters import build_backend
from local_adapters.storage_app import storage_app

from .conftest import path_of

KEY = "input/job-1/source.mp4"
DATA = bytes(range(256)) * 40  # 10,240 bytes


def test_presigned_put_stores_the_object_and_raises_its_event(client, backend):
    req = backend.input_storage.presign_put(KEY, max_bytes=len(DATA))
    resp = client.put(path_of(req.url), content=DATA)
    assert resp.status_code == 200, resp.text
    assert backend.input_storage.get_bytes(KEY) == DATA
    [msg] = backend.chunking_queue.receive(visibility_s=30)
    [record] = parse_s3_event_body(msg.body)
    assert (record.bucket, record.key, record.size) == (backend.input_storage.bucket, KEY,
                                                        len(DATA))


def test_put_over_the_declared_cap_is_refused_before_reading(client, backend):
    req = backend.input_storage.presign_put(KEY, max_bytes=100)
    resp = client.put(path_of(req.url), content=DATA)
    assert resp.status_code == 413
    assert "100-byte limit" in resp.text
    assert not backend.input_storage.exists(KEY)


def test_put_over_the_cap_is_stopped_while_streaming_without_content_length(
        client, backend, settings):
    req = backend.input_storage.presign_put(KEY, max_bytes=5000)

    def chunks():
        for i in range(0, len(DATA), 1000):
            yield DATA[i:i + 1000]

    resp = client.put(path_of(req.url), content=chunks())
    assert resp.status_code == 413
    assert not backend.input_storage.exists(KEY)
    assert backend.chunking_queue.stats().visible == 0
    assert list((settings.data_dir / "tmp").iterdir()) == []


@pytest.mark.parametrize("tamper", [
    lambda url: url.replace("max=100", "max=100000"),
    lambda url: url.replace("source.mp4", "other.mp4"),
    lambda url: url.replace("sig=", "sig=0"),
    lambda url: url.split("&sig=")[0],
])
def test_tampered_put_urls_are_forbidden(client, backend, tamper):
    req = backend.input_storage.presign_put(KEY, max_bytes=100)
    resp = client.put(path_of(tamper(req.url)), content=b"x")
    assert resp.status_code == 403
    assert resp.text.startswith("forbidden:")
    assert not backend.input_storage.exists(KEY)


def test_expired_urls_are_forbidden(client, backend):
    backend.input_storage.put_bytes(KEY, DATA)
    url = backend.input_storage.presign_get(KEY, expires_s=-1)
    resp = client.get(path_of(url))
    assert (resp.status_code, resp.text) == (403, "forbidden: URL expired")


def test_a_get_url_cannot_upload(client, backend):
    url = backend.input_storage.presign_get(KEY)
    assert client.put(path_of(url), content=b"x").status_code == 403


def test_get_serves_the_whole_object_as_video(client, backend):
    backend.output_storage.put_bytes("jobs/job-1/final.mp4", DATA)
    resp = client.get(path_of(backend.output_storage.presign_get("jobs/job-1/final.mp4")))
    assert resp.status_code == 200
    assert resp.content == DATA
    assert resp.headers["content-type"] == "video/mp4"
    assert resp.headers["accept-ranges"] == "bytes"
    assert "content-disposition" not in resp.headers


def test_get_with_range_returns_partial_content(client, backend):
    backend.output_storage.put_bytes("jobs/job-1/final.mp4", DATA)
    url = path_of(backend.output_storage.presign_get("jobs/job-1/final.mp4"))
    resp = client.get(url, headers={"Range": "bytes=1000-1999"})
    assert resp.status_code == 206
    assert resp.content == DATA[1000:2000]
    assert resp.headers["content-range"] == f"bytes 1000-1999/{len(DATA)}"
    tail = client.get(url, headers={"Range": "bytes=-10"})
    assert (tail.status_code, tail.content) == (206, DATA[-10:])


def test_unsatisfiable_range_is_416_with_the_size(client, backend):
    backend.output_storage.put_bytes("jobs/job-1/final.mp4", DATA)
    url = path_of(backend.output_storage.presign_get("jobs/job-1/final.mp4"))
    resp = client.get(url, headers={"Range": f"bytes={len(DATA)}-"})
    assert resp.status_code == 416
    assert resp.headers["content-range"] == f"bytes */{len(DATA)}"


@pytest.mark.parametrize("spec", ["9" * 5000 + "-", "0-" + "9" * 5000, "-" + "9" * 5000])
def test_a_range_with_thousands_of_digits_is_416_not_a_server_error(client, backend, spec):
    backend.output_storage.put_bytes("jobs/job-1/final.mp4", DATA)
    url = path_of(backend.output_storage.presign_get("jobs/job-1/final.mp4"))
    resp = client.get(url, headers={"Range": f"bytes={spec}"})
    assert resp.status_code == 416
    ok = client.get(url, headers={"Range": "bytes=0-0"})  # negative control
    assert ok.status_code == 206


def test_a_download_name_with_cr_lf_cannot_inject_a_header(client, backend):
    backend.output_storage.put_bytes("jobs/job-1/final.mp4", DATA)
    url = backend.output_storage.presign_get(
        "jobs/job-1/final.mp4", download_name="clip\r\nSet-Cookie: x=1\r\n.mp4")
    resp = client.get(path_of(url))
    assert resp.status_code == 200
    assert "set-cookie" not in resp.headers
    value = resp.headers["content-disposition"]
    assert "\r" not in value
    assert "\n" not in value
    assert value.startswith('attachment; filename="clip__Set-Cookie: x=1__.mp4"')


def test_download_name_makes_an_attachment(client, backend):
    backend.output_storage.put_bytes("jobs/job-1/final.mp4", DATA)
    url = backend.output_storage.presign_get("jobs/job-1/final.mp4",
                                             download_name="clip_LRF_Full_SBS.mp4")
    resp = client.get(path_of(url))
    assert resp.headers["content-disposition"].startswith(
        'attachment; filename="clip_LRF_Full_SBS.mp4"')


def test_head_reports_size_without_a_body(client, backend):
    backend.output_storage.put_bytes("jobs/job-1/final.mp4", DATA)
    resp = client.head(path_of(backend.output_storage.presign_get("jobs/job-1/final.mp4")))
    assert resp.status_code == 200
    assert resp.headers["content-length"] == str(len(DATA))
    assert resp.content == b""


def test_missing_object_is_404_and_unknown_bucket_403(client, backend):
    resp = client.get(path_of(backend.output_storage.presign_get("jobs/job-1/final.mp4")))
    assert resp.status_code == 404
    url = path_of(backend.output_storage.presign_get("jobs/job-1/final.mp4"))
    assert client.get(url.replace("/stereo-spot-output/", "/nope/")).status_code == 403


def test_storage_app_builds_its_own_backend_from_settings(settings):
    backend = build_backend(settings)
    backend.output_storage.put_bytes("jobs/j/final.mp4", b"abc")
    with TestClient(storage_app(settings)) as client:
        resp = client.get(path_of(backend.output_storage.presign_get("jobs/j/final.mp4")))
    assert resp.content == b"abc"


def test_a_second_upload_to_a_jobs_source_is_refused_and_the_first_kept(client, backend):
    req = backend.input_storage.presign_put(KEY, max_bytes=len(DATA))
    assert client.put(path_of(req.url), content=DATA).status_code == 200
    events = backend.chunking_queue.stats().visible
    second = client.put(path_of(req.url), content=b"another video")  # the URL reused
    assert second.status_code == 409
    assert "already has its video" in second.text
    assert backend.input_storage.get_bytes(KEY) == DATA
    assert backend.chunking_queue.stats().visible == events  # no second chunking run


def test_other_keys_may_still_be_overwritten(client, backend):
    # negative control: only a job's source is write-once
    key = "input/job-1/notes.bin"
    req = backend.input_storage.presign_put(key, max_bytes=100)
    assert client.put(path_of(req.url), content=b"one").status_code == 200
    assert client.put(path_of(req.url), content=b"two").status_code == 200
    assert backend.input_storage.get_bytes(key) == b"two"
