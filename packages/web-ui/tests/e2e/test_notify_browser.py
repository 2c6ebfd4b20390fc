"""When a job ends: a browser notification (permission granted in the test's
context) and the job's webhook, received by a real HTTP server here and
checked against its HMAC signature."""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import pytest
from shared_types.keys import final_key
from shared_types.models import JobStatus, JobUpdate, now
from shared_types.testing.http_receiver import http_receiver
from stereo_media.testing.media import make_video

from web_ui.webhooks import SIGNATURE_HEADER

from .conftest import VIEWPORT, screenshot

SECRET = "webhook-test-secret"
RECORD_NOTIFICATIONS = """(() => {
  const Original = window.Notification;
  if (!Original) { return; }
  class Recorded extends Original {
    constructor(title, options) {
      const seen = JSON.parse(sessionStorage.getItem('notifications') || '[]');
      seen.push({title, body: options && options.body});
      sessionStorage.setItem('notifications', JSON.stringify(seen));
      super(title, options);
    }
  }
  window.Notification = Recorded;
})();"""


@pytest.fixture
def receiver():
    """(the webhook's URL, what it received)."""
    with http_receiver(204, path="/hooks/stereo") as served:
        yield served


def valid_signature(headers: dict, body: bytes, secret: str) -> bool:
    fields = dict(part.split("=", 1) for part in headers[SIGNATURE_HEADER.lower()].split(","))
    url = f"http://{headers['host']}/hooks/stereo"  # the receiver's own URL is signed too
    expected = hmac.new(secret.encode(), f"{fields['t']}.{url}.".encode() + body,
                        hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, fields["v2"])


@pytest.mark.parametrize("server", [{"webhook_secret": SECRET, "webhook_poll_s": 0.2,
                                     "webhook_allow_http": True, "webhook_allow_private": True}],
                         indirect=True)
def test_a_finished_job_notifies_the_browser_and_calls_its_signed_webhook(
        server, browser, receiver, tmp_path):
    base, backend = server
    url, received = receiver
    context = browser.new_context(viewport=VIEWPORT, permissions=["notifications"])
    context.add_init_script(RECORD_NOTIFICATIONS)
    page = context.new_page()
    page.goto(base + "/")
    page.fill("input[name=title]", "Beach")
    page.fill("input[name=webhook_url]", url)
    page.click("#create-job")
    page.wait_for_url("**/jobs/*")
    job_id = page.url.rsplit("/", 1)[1]
    assert backend.jobs.get(job_id).webhook_url == url
    assert page.evaluate("() => Notification.permission") == "granted"

    key = final_key(job_id)
    backend.output_storage.put_file(key, make_video(tmp_path / "f.mp4"), content_type="video/mp4")
    backend.jobs.update(job_id, JobUpdate(status=JobStatus.CHUNKING_COMPLETE, total_segments=1))
    backend.jobs.update(job_id, JobUpdate(status=JobStatus.COMPLETED, final_key=key,
                                          completed_at=now()))

    page.wait_for_selector("#player", timeout=30_000)  # the page reloaded after 'done'
    shown = json.loads(page.evaluate("() => sessionStorage.getItem('notifications')") or "[]")
    assert shown == [{"title": "StereoSpot: Your 3D video is ready", "body": "Beach"}]
    screenshot(page, "job-completed-notified")

    assert received.arrived.wait(30), "the webhook was never called"
    headers, body = received.requests[0].headers, received.requests[0].body
    assert valid_signature(headers, body, SECRET)
    assert not valid_signature(headers, body, "another-secret")  # negative control
    sent = json.loads(body)
    assert (sent["job_id"], sent["status"], sent["title"]) == (job_id, "completed", "Beach")
    deadline = time.monotonic() + 30
    while backend.jobs.get(job_id).notified_at is None:
        assert time.monotonic() < deadline, "delivery was not recorded"
        time.sleep(0.05)
    assert len(received.requests) == 1
