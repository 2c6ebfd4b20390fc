"""Two users behind the load balancer's sign-in: each sees and acts on only
their own jobs (another's answers 404, as a job that never was); admins see
every job; a request without a valid signed identity is refused."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from shared_types.keys import source_key
from shared_types.models import Job, JobStatus, JobUpdate, OutputMode, new_job_id

from web_ui.app import create_app
from web_ui.csrf import COOKIE_NAME
from web_ui.fake_alb import FakeAlb


@pytest.fixture(scope="module")
def alb():
    return FakeAlb()


@pytest.fixture
def alb_settings(settings, alb):
    return settings.model_copy(update={"identity": "alb", "alb_arn": alb.signer_arn,
                                       "alb_region": "us-east-1"})


@pytest.fixture
def app(alb_settings, backend, alb):
    return create_app(alb_settings, backend, alb_keys=alb)


def signed_in(app, alb, sub, **kwargs) -> TestClient:
    client = TestClient(app, headers=alb.headers(sub, **kwargs))
    client.get("/")  # the CSRF cookie, as a browser gets it
    return client


def own_job(backend, owner, status=JobStatus.CREATED, **changes) -> Job:
    job = Job(job_id=new_job_id(), mode=OutputMode.SBS, owner=owner, title=f"{owner}'s film")
    backend.jobs.create(job)
    if status != JobStatus.CREATED or changes:
        job = backend.jobs.update(job.job_id, JobUpdate(status=status, **changes))
    return job


PREVIEW = {"start_s": 1, "divergence": 2.0, "convergence": 0.5}


def reads(job_id: str) -> list[str]:
    return [f"/jobs/{job_id}", f"/jobs/{job_id}/events", f"/jobs/{job_id}/play",
            f"/jobs/{job_id}/poster", f"/api/jobs/{job_id}", f"/api/jobs/{job_id}/playback",
            f"/api/jobs/{job_id}/uploads/0123abcd"]


def test_a_user_lists_only_their_own_jobs(app, alb, backend):
    mine = own_job(backend, "alice", JobStatus.COMPLETED, final_key="jobs/x/final.mp4")
    theirs = own_job(backend, "bob", JobStatus.COMPLETED, final_key="jobs/y/final.mp4")
    alice = signed_in(app, alb, "alice")
    listed = [item["job_id"] for item in alice.get("/api/jobs").json()["items"]]
    assert listed == [mine.job_id]
    for page in ("/", "/jobs"):
        html = alice.get(page).text
        assert mine.job_id in html
        assert theirs.job_id not in html


def test_another_users_job_does_not_exist_for_reads(app, alb, backend):
    job = own_job(backend, "alice", JobStatus.COMPLETED, final_key="jobs/x/final.mp4")
    bob = signed_in(app, alb, "bob")
    for url in reads(job.job_id):
        assert bob.get(url, follow_redirects=False).status_code == 404, url
    alice = signed_in(app, alb, "alice")
    for url in reads(job.job_id)[:-1]:  # (the last names an upload that is not there)
        assert alice.get(url, follow_redirects=False).status_code in (200, 307), url


def test_another_users_job_cannot_be_acted_on(app, alb, backend):
    held = own_job(backend, "alice", JobStatus.AWAITING_CONFIRMATION, source_duration_s=60.0)
    failed = own_job(backend, "alice", JobStatus.FAILED)
    running = own_job(backend, "alice", JobStatus.CHUNKING_IN_PROGRESS)
    waiting = own_job(backend, "alice")
    bob = signed_in(app, alb, "bob")
    form = {"csrf_token": bob.cookies[COOKIE_NAME]}
    posts = [
        (f"/jobs/{running.job_id}/cancel", form), (f"/jobs/{failed.job_id}/retry", form),
        (f"/jobs/{failed.job_id}/delete", form),
        (f"/jobs/{held.job_id}/preview", {**form, "start_s": "1", "divergence": "2",
                                          "convergence": "0.5"}),
        (f"/jobs/{held.job_id}/convert", {**form, "divergence": "2", "convergence": "0.5"}),
    ]
    for url, data in posts:
        assert bob.post(url, data=data, follow_redirects=False).status_code == 404, url
    api = [
        (f"/api/jobs/{running.job_id}/cancel", {}),
        (f"/api/jobs/{held.job_id}/preview", PREVIEW),
        (f"/api/jobs/{held.job_id}/convert", PREVIEW),
        (f"/api/jobs/{waiting.job_id}/uploads", {"file_name": "x.mp4", "size": 10}),
        (f"/api/jobs/{waiting.job_id}/uploads/form", {"file_name": "x.mp4", "size": 10}),
        (f"/api/jobs/{waiting.job_id}/uploads/0123abcd/parts", {"part_numbers": [1]}),
        (f"/api/jobs/{waiting.job_id}/uploads/0123abcd/complete", {}),
    ]
    for url, body in api:
        assert bob.post(url, json=body).status_code == 404, url
    assert bob.delete(f"/api/jobs/{waiting.job_id}/uploads/0123abcd").status_code == 404
    r = bob.post(f"/jobs/{waiting.job_id}/depth", data=form,
                 files={"file": ("depth.mkv", b"not read", "video/x-matroska")})
    assert r.status_code == 404  # an imported depth video for her job
    assert list(backend.input_storage.list(f"input/{waiting.job_id}/")) == []
    assert backend.jobs.get(running.job_id).status == JobStatus.CHUNKING_IN_PROGRESS
    assert backend.jobs.get(failed.job_id).status == JobStatus.FAILED
    assert backend.jobs.get(held.job_id).preview_job_id is None
    assert backend.input_storage.open_uploads(source_key(waiting.job_id)) == []
    # the owner may: the same requests are not refused for them
    alice = signed_in(app, alb, "alice")
    r = alice.post(f"/jobs/{running.job_id}/cancel",
                   data={"csrf_token": alice.cookies[COOKIE_NAME]}, follow_redirects=False)
    assert r.status_code == 303
    assert alice.post(f"/api/jobs/{waiting.job_id}/uploads",
                      json={"file_name": "x.mp4", "size": 10}).status_code == 201


def test_a_job_belongs_to_the_user_who_created_it(app, alb, backend):
    alice = signed_in(app, alb, "alice")
    job_id = alice.post("/api/jobs", json={"mode": "sbs"}).json()["job_id"]
    r = alice.post("/jobs", data={"mode": "sbs", "csrf_token": alice.cookies[COOKIE_NAME]},
                   follow_redirects=False)
    form_job_id = r.headers["location"].rsplit("/", 1)[1]
    assert backend.jobs.get(job_id).owner == backend.jobs.get(form_job_id).owner == "alice"


def test_a_preview_clip_belongs_to_its_parents_owner(app, alb, backend):
    held = own_job(backend, "alice", JobStatus.AWAITING_CONFIRMATION, source_duration_s=60.0,
                   thumbnails=12, source_etag="e1")
    backend.input_storage.put_bytes(source_key(held.job_id), b"video")
    alice = signed_in(app, alb, "alice")
    r = alice.post(f"/api/jobs/{held.job_id}/preview", json=PREVIEW)
    assert r.status_code == 201, r.text
    clip = r.json()
    assert backend.jobs.get(clip["job_id"]).owner == "alice"
    bob = signed_in(app, alb, "bob")
    assert bob.get(f"/api/jobs/{clip['job_id']}").status_code == 404


def test_an_admin_sees_and_acts_on_every_job(app, alb, backend):
    job = own_job(backend, "alice", JobStatus.CHUNKING_IN_PROGRESS)
    legacy = own_job(backend, None)  # created before users existed
    admin = signed_in(app, alb, "root", groups=["admins"])
    listed = {item["job_id"] for item in admin.get("/api/jobs").json()["items"]}
    assert {job.job_id, legacy.job_id} <= listed
    assert admin.post(f"/api/jobs/{job.job_id}/cancel", json={}).status_code == 200
    # the group is what makes an admin: another group does not
    other = signed_in(app, alb, "carol", groups=["editors"])
    assert other.get(f"/api/jobs/{legacy.job_id}").status_code == 404


@pytest.mark.parametrize("headers", [
    {}, {"x-amzn-oidc-identity": "alice"}, {"x-amzn-oidc-data": "forged.token.value"},
])
def test_without_a_valid_signed_identity_nothing_answers(app, backend, headers):
    job = own_job(backend, "alice")
    client = TestClient(app, headers=headers)
    for url in ("/", "/jobs", "/api/jobs", f"/jobs/{job.job_id}"):
        assert client.get(url).status_code == 401, url
    assert client.get("/healthz").status_code == 200  # the balancer's health check


def test_an_identity_signed_for_another_load_balancer_is_refused(app, alb, backend):
    client = TestClient(app, headers=alb.headers("alice", signer_arn="arn:aws:other"))
    assert client.get("/api/jobs").status_code == 401


def test_locally_there_is_one_user_who_needs_no_sign_in(client, backend):
    job = own_job(backend, "someone-from-before")
    assert client.get(f"/api/jobs/{job.job_id}").status_code == 200
    job_id = client.post("/api/jobs", json={"mode": "sbs"}).json()["job_id"]
    assert backend.jobs.get(job_id).owner == "local"
