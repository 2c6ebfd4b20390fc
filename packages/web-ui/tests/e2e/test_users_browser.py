"""Two people in real Chromium behind a stand-in for the load balancer's
sign-in (each browser context sends its own signed ``x-amzn-oidc-data``, as
the ALB adds it): each sees and acts on only their own jobs."""

from __future__ import annotations

import threading

import pytest
from shared_types.keys import source_key
from shared_types.models import JobStatus
from shared_types.testing.serving import free_port, serve_in_thread
from stereo_media.testing.media import make_video

from web_ui.app import create_app
from web_ui.fake_alb import FakeAlb

from .conftest import VIEWPORT, drive_pipeline, web_settings


@pytest.fixture
def signed_in_server(tmp_path):
    alb = FakeAlb()
    port = free_port()
    settings = web_settings(tmp_path, port, identity="alb", alb_arn=alb.signer_arn,
                            alb_region="us-east-1")
    app = create_app(settings, alb_keys=alb)
    with serve_in_thread(app, port) as base:
        yield base, app.state.backend, alb


def person(browser, alb, sub):
    context = browser.new_context(viewport=VIEWPORT, extra_http_headers=alb.headers(sub))
    return context.new_page()


def create_job(page, base, title):
    page.goto(base + "/")
    page.fill("input[name=title]", title)
    page.click("#create-job")
    page.wait_for_url("**/jobs/*")
    return page.url.rsplit("/", 1)[1]


FETCH_STATUS = "async (url) => (await fetch(url)).status"
# Bob posts to a job's action with his own page's CSRF token (a real form post).
POST_FORM = """async ([url, token]) => {
  const body = new URLSearchParams({csrf_token: token});
  return (await fetch(url, {method: 'POST', body, redirect: 'manual'})).status;
}"""


def test_two_people_see_and_act_on_only_their_own_jobs(signed_in_server, browser, tmp_path):
    base, backend, alb = signed_in_server
    alice, bob = person(browser, alb, "alice"), person(browser, alb, "bob")

    alice_job = create_job(alice, base, "Alice's holiday")
    stop = threading.Event()
    driver = threading.Thread(target=drive_pipeline, daemon=True, args=(
        backend, alice_job, make_video(tmp_path / "final.mp4"), stop))
    driver.start()
    try:
        alice.set_input_files("#file", str(make_video(tmp_path / "film.mp4", seconds=1)))
        alice.click("#upload-button")
        alice.wait_for_selector("#download", timeout=60_000)
    finally:
        stop.set()
        driver.join(timeout=30)
    assert backend.jobs.get(alice_job).status == JobStatus.COMPLETED
    assert backend.jobs.get(alice_job).owner == "alice"
    bob_job = create_job(bob, base, "Bob's concert")

    # lists: each sees their own only
    for page, mine, theirs, title in ((alice, alice_job, bob_job, "Bob's concert"),
                                      (bob, bob_job, alice_job, "Alice's holiday")):
        page.goto(base + "/jobs")
        html = page.content()
        assert mine in html and theirs not in html and title not in html
    # Bob reaching Alice's job by its id: the page, its stream, playback, poster, events
    response = bob.goto(f"{base}/jobs/{alice_job}")
    assert response.status == 404
    assert "Alice's holiday" not in bob.content()
    bob.goto(base + "/jobs")
    for path in (f"/jobs/{alice_job}/play", f"/jobs/{alice_job}/poster",
                 f"/jobs/{alice_job}/events", f"/api/jobs/{alice_job}",
                 f"/api/jobs/{alice_job}/playback"):
        assert bob.evaluate(FETCH_STATUS, base + path) == 404, path
    # ... and acting on it: delete, with a CSRF token that is valid for Bob
    bob.goto(f"{base}/jobs/{bob_job}")
    token = bob.input_value("input[name=csrf_token] >> nth=0")
    assert bob.evaluate(POST_FORM, [f"{base}/jobs/{alice_job}/delete", token]) == 404
    assert backend.jobs.get(alice_job).status == JobStatus.COMPLETED
    # Alice still plays her own, and cannot upload into Bob's
    alice.goto(f"{base}/jobs/{alice_job}")
    alice.wait_for_selector("#download")
    assert alice.evaluate(FETCH_STATUS, f"{base}/jobs/{bob_job}") == 404
    assert not backend.input_storage.exists(source_key(bob_job))
    # Bob's delete of his own job works with the same kind of request
    bob.goto(f"{base}/jobs/{bob_job}")
    bob.click("#delete")
    bob.wait_for_url("**/jobs")
    assert backend.jobs.get(bob_job) is None
