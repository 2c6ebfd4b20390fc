"""POST /storage/{bucket}: a presigned POST form, its signed policy enforced as S3 does."""

import base64
import json

import pytest
from shared_types.events import parse_s3_event_body
from shared_types.models import now

from .conftest import path_of

KEY = "input/job-1/source.mp4"
DATA = bytes(range(256)) * 40  # 10,240 bytes


def _post(client, req, data=DATA, *, fields=None, name="file"):
    return client.post(path_of(req.url), data=fields if fields is not None else req.fields,
                       files={name: ("clip.mp4", data, "video/mp4")}, follow_redirects=False)


def test_a_form_upload_within_the_cap_stores_the_object_and_raises_its_event(client, backend):
    req = backend.input_storage.presign_post(KEY, max_bytes=len(DATA))
    resp = _post(client, req)
    assert resp.status_code == 204, resp.text
    assert backend.input_storage.get_bytes(KEY) == DATA
    [msg] = backend.chunking_queue.receive(visibility_s=30)
    [record] = parse_s3_event_body(msg.body)
    assert (record.key, record.size) == (KEY, len(DATA))


def test_a_file_one_byte_over_the_signed_cap_is_refused_by_the_storage(client, backend,
                                                                      settings):
    req = backend.input_storage.presign_post(KEY, max_bytes=len(DATA) - 1)
    resp = _post(client, req)
    assert resp.status_code == 400
    assert resp.text.startswith("EntityTooLarge")
    assert not backend.input_storage.exists(KEY)
    assert backend.chunking_queue.stats().visible == 0
    assert list((settings.data_dir / "tmp").iterdir()) == []


def test_an_empty_file_is_under_the_range(client, backend):
    req = backend.input_storage.presign_post(KEY, max_bytes=100)
    resp = _post(client, req, b"")
    assert resp.status_code == 400 and resp.text.startswith("EntityTooSmall")
    assert not backend.input_storage.exists(KEY)


def _reencoded(policy_b64, change):
    doc = json.loads(base64.b64decode(policy_b64))
    change(doc)
    return base64.b64encode(json.dumps(doc).encode()).decode()


@pytest.mark.parametrize("tamper", [
    # a bigger cap in the policy: the signature no longer matches
    lambda f: {**f, "policy": _reencoded(
        f["policy"], lambda d: d["conditions"].__setitem__(2, ["content-length-range", 1, 10**9]))},
    lambda f: {**f, "key": "input/job-2/source.mp4"},          # another key than signed
    lambda f: {**f, "x-stereo-signature": "0" * 64},           # a forged signature
    lambda f: {k: v for k, v in f.items() if k != "policy"},   # no policy at all
    lambda f: {**f, "acl": "public-read"},                     # a field no condition names
    lambda f: {**f, "Content-Type": "text/html"},              # another content type
])
def test_a_form_that_breaks_its_policy_is_forbidden(client, backend, tamper):
    req = backend.input_storage.presign_post(KEY, max_bytes=len(DATA) * 2,
                                             content_type="video/mp4")
    resp = _post(client, req, fields=tamper(dict(req.fields)))
    assert resp.status_code == 403, resp.text
    assert not backend.input_storage.exists(KEY)


def test_an_expired_policy_is_forbidden(client, backend):
    req = backend.input_storage.presign_post(KEY, max_bytes=len(DATA), expires_s=-5)
    assert req.expires_at < now()
    resp = _post(client, req)
    assert resp.status_code == 403 and "expired" in resp.text
    assert not backend.input_storage.exists(KEY)


def test_a_form_without_its_file_field_stores_nothing(client, backend):
    req = backend.input_storage.presign_post(KEY, max_bytes=len(DATA))
    resp = _post(client, req, name="document")
    assert resp.status_code == 403 and "no file field" in resp.text
    assert not backend.input_storage.exists(KEY)


def test_a_second_source_for_the_same_job_is_refused(client, backend):
    req = backend.input_storage.presign_post(KEY, max_bytes=len(DATA))
    assert _post(client, req).status_code == 204
    again = _post(client, req, b"another video")
    assert again.status_code == 409
    assert backend.input_storage.get_bytes(KEY) == DATA


def test_success_redirect_answers_303_to_the_page_with_the_key(client, backend):
    req = backend.input_storage.presign_post(KEY, max_bytes=len(DATA),
                                             success_redirect="http://app.test/jobs/job-1?x=1")
    resp = _post(client, req)
    assert resp.status_code == 303, resp.text
    location = resp.headers["location"]
    assert location.startswith("http://app.test/jobs/job-1?x=1&bucket=")
    assert "key=input%2Fjob-1%2Fsource.mp4" in location


def test_a_post_to_an_unknown_bucket_is_forbidden(client, backend):
    req = backend.input_storage.presign_post(KEY, max_bytes=len(DATA))
    resp = client.post(path_of(req.url).replace(backend.input_storage.bucket, "nope"),
                       data=req.fields, files={"file": ("a", b"x")})
    assert resp.status_code == 403
