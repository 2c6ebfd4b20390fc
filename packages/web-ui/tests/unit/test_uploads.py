"""The upload API on the in-memory backend: the one-request form (its signed
cap), and the resumable multipart upload: start, part URLs, state, complete
(one source per job, cap checked on what storage holds), abort."""

import pytest
from shared_types.keys import source_key
from shared_types.models import JobStatus
from shared_types.upload_policy import decode_policy, size_range

from web_ui.uploads import single_request_cap, title_from_file_name, upload_form

from .conftest import add_job


@pytest.fixture
def roomy(settings, backend):
    """A client whose cap (100 MB) takes files of several 16-MiB parts."""
    from fastapi.testclient import TestClient

    from web_ui.app import create_app
    return TestClient(create_app(settings.model_copy(update={"max_upload_bytes": 10**8}),
                                 backend))


def base(job):
    return f"/api/jobs/{job.job_id}/uploads"


def start(client, job, size, name="holiday.mp4"):
    r = client.post(base(job), json={"file_name": name, "size": size})
    assert r.status_code == 201, r.text
    return r.json()


def send(client, backend, job, upload_id, parts):
    urls = client.post(f"{base(job)}/{upload_id}/parts",
                       json={"part_numbers": list(parts)}).json()["urls"]
    for number, data in parts.items():
        backend.input_storage.put_part(urls[str(number)], data)


def test_an_upload_in_parts_becomes_the_source_and_names_the_job(client, backend):
    job = add_job(backend)
    plan = start(client, job, 3)
    assert (plan["part_size"], plan["part_count"]) == (16 * 1024 * 1024, 1)
    assert backend.jobs.get(job.job_id).title == "holiday"
    send(client, backend, job, plan["upload_id"], {1: b"abc"})
    state = client.get(f"{base(job)}/{plan['upload_id']}").json()
    assert [(p["part_number"], p["size"]) for p in state["parts"]] == [(1, 3)]
    r = client.post(f"{base(job)}/{plan['upload_id']}/complete", json={})
    assert r.status_code == 200
    assert r.json() == {"size": 3}
    assert backend.input_storage.get_bytes(source_key(job.job_id)) == b"abc"


def test_a_small_file_gets_a_form_whose_signed_policy_caps_it_at_its_size(client, backend):
    job = add_job(backend)
    r = client.post(f"{base(job)}/form", json={"file_name": "beach.mov", "size": 1000})
    assert r.status_code == 200, r.text
    form = r.json()
    assert form["method"] == "POST"
    assert form["fields"]["key"] == source_key(job.job_id)
    assert size_range(decode_policy(form["fields"]["policy"])) == (1, 1000)
    assert backend.jobs.get(job.job_id).title == "beach"


def test_a_form_is_refused_for_a_file_over_the_cap(client, backend, settings):
    job = add_job(backend)
    r = client.post(f"{base(job)}/form",
                    json={"file_name": "big.mp4", "size": settings.max_upload_bytes + 1})
    assert r.status_code == 413


def test_one_request_never_carries_more_than_s3_allows(backend):
    job = add_job(backend)
    form = upload_form(backend, job, max_bytes=20 * 1024**3, expires_s=60,
                       redirect="http://testserver/jobs/x")
    assert single_request_cap(20 * 1024**3) == 5 * 1024**3 == form.max_bytes
    assert form.fields["success_action_redirect"] == "http://testserver/jobs/x"


def test_no_form_once_the_job_has_its_video(client, backend):
    job = add_job(backend, status=JobStatus.CHUNKING_IN_PROGRESS)
    r = client.post(f"{base(job)}/form", json={"file_name": "a.mp4", "size": 10})
    assert r.status_code == 409


def test_a_job_takes_one_upload_at_a_time(client, backend):
    job = add_job(backend)
    first = start(client, job, 5)
    r = client.post(base(job), json={"file_name": "again.mp4", "size": 5})
    assert r.status_code == 409
    assert "already has an upload in progress" in r.json()["detail"]
    assert backend.input_storage.open_uploads(source_key(job.job_id)) == [first["upload_id"]]
    send(client, backend, job, first["upload_id"], {1: b"first"})
    assert client.post(f"{base(job)}/{first['upload_id']}/complete", json={}).status_code == 200
    assert client.post(base(job), json={"file_name": "x.mp4", "size": 5}).status_code == 409
    assert backend.input_storage.get_bytes(source_key(job.job_id)) == b"first"


def test_complete_aborts_every_other_upload_to_the_source(client, backend):
    job = add_job(backend)
    key = source_key(job.job_id)
    plan = start(client, job, 3)
    stray = backend.input_storage.start_multipart(key)  # opened past the API (a race)
    send(client, backend, job, plan["upload_id"], {1: b"abc"})
    assert client.post(f"{base(job)}/{plan['upload_id']}/complete", json={}).status_code == 200
    assert backend.input_storage.open_uploads(key) == []
    assert stray not in backend.input_storage.open_uploads(key)


def test_part_urls_are_only_for_the_parts_the_declared_size_needs(client, backend):
    job = add_job(backend)
    plan = start(client, job, 1)  # one byte declared: one part
    url = f"{base(job)}/{plan['upload_id']}/parts"
    assert client.post(url, json={"part_numbers": [2]}).status_code == 400
    assert client.post(url, json={"part_numbers": [10_000]}).status_code == 400
    [part_url] = client.post(url, json={"part_numbers": [1]}).json()["urls"].values()
    with pytest.raises(ValueError, match="signed for 1 bytes"):  # S3: SignatureDoesNotMatch
        backend.input_storage.put_part(part_url, b"x" * 6 * 1024 * 1024)


def test_each_part_url_is_signed_with_the_length_of_its_part(roomy, backend, settings):
    job = add_job(backend)
    size = 2 * settings.upload_part_bytes + 7
    plan = start(roomy, job, size)
    assert plan["part_count"] == 3
    urls = roomy.post(f"{base(job)}/{plan['upload_id']}/parts",
                       json={"part_numbers": [1, 3]}).json()["urls"]
    assert f"length={settings.upload_part_bytes}" in urls["1"]
    assert urls["3"].endswith("length=7")


def test_a_title_given_by_the_person_is_kept(client, backend):
    job = add_job(backend, title="My film")
    start(client, job, 10)
    assert backend.jobs.get(job.job_id).title == "My film"


def test_a_file_over_the_cap_is_refused_at_start(client, backend, settings):
    job = add_job(backend)
    r = client.post(base(job), json={"file_name": "x.mp4", "size": settings.max_upload_bytes + 1})
    assert r.status_code == 413


def test_more_bytes_than_declared_are_refused_at_complete_and_freed(client, backend):
    job = add_job(backend)
    plan = start(client, job, 10)  # a client that lies about the size
    # a storage that did not bind the part's length (an unsigned URL)
    unbound = backend.input_storage.presign_part(source_key(job.job_id), plan["upload_id"], 1)
    backend.input_storage.put_part(unbound, b"a" * 11)
    r = client.post(f"{base(job)}/{plan['upload_id']}/complete", json={})
    assert r.status_code == 413
    assert not backend.input_storage.exists(source_key(job.job_id))
    assert client.get(f"{base(job)}/{plan['upload_id']}").status_code == 404


def test_an_incomplete_upload_is_refused_and_kept_for_resuming(roomy, backend):
    job = add_job(backend)
    plan = start(roomy, job, 16 * 1024 * 1024 + 3)
    send(roomy, backend, job, plan["upload_id"], {2: b"end"})
    r = roomy.post(f"{base(job)}/{plan['upload_id']}/complete", json={})
    assert r.status_code == 400
    assert "missing" in r.json()["detail"]
    assert roomy.get(f"{base(job)}/{plan['upload_id']}").status_code == 200


def test_abort_frees_the_upload(client, backend):
    job = add_job(backend)
    plan = start(client, job, 10)
    assert client.delete(f"{base(job)}/{plan['upload_id']}").status_code == 204
    assert client.get(f"{base(job)}/{plan['upload_id']}").status_code == 404


def test_a_job_past_created_takes_no_upload(client, backend):
    job = add_job(backend, status=JobStatus.CHUNKING_IN_PROGRESS)
    r = client.post(base(job), json={"file_name": "x.mp4", "size": 10})
    assert r.status_code == 409


def test_upload_calls_must_be_json_and_same_site(client, backend):
    job = add_job(backend)
    r = client.post(base(job), content='{"file_name": "x.mp4", "size": 10}',
                    headers={"content-type": "text/plain"})
    assert r.status_code == 403
    plan = start(client, job, 10)
    r = client.delete(f"{base(job)}/{plan['upload_id']}", headers={"origin": "https://evil.example"})
    assert r.status_code == 403
    assert client.get(f"{base(job)}/{plan['upload_id']}").status_code == 200


def test_part_numbers_are_bounded(client, backend):
    job = add_job(backend)
    plan = start(client, job, 10)
    url = f"{base(job)}/{plan['upload_id']}/parts"
    assert client.post(url, json={"part_numbers": [0]}).status_code == 400
    assert client.post(url, json={"part_numbers": list(range(1, 52))}).status_code == 422


@pytest.mark.parametrize(("name", "title"), [
    ("holiday.mp4", "holiday"), ("C:\\\\films\\\\trip 2024.mov", "trip 2024"),
    ("../../etc/passwd", "passwd"), (".mp4", ".mp4"), ("a\x00b.mkv", "ab"),
])
def test_the_title_is_the_file_name_without_folder_or_extension(name, title):
    assert title_from_file_name(name) == title
