"""Webhook signing, URL checks and delivery bookkeeping (a real local receiver)."""

import http.server
import threading

import pytest
from shared_types.models import Job, JobStatus, OutputMode, new_job_id

from web_ui import webhooks
from web_ui.errors import BadRequestError

from .conftest import add_job


class Answer(http.server.BaseHTTPRequestHandler):
    status = 500
    calls = 0

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        Answer.calls += 1
        self.send_response(Answer.status)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def receiver():
    Answer.calls = 0
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    server.shutdown()
    server.server_close()


def test_a_failed_delivery_is_retried_and_a_2xx_is_recorded_once(backend, receiver):
    job = Job(job_id=new_job_id(), mode=OutputMode.SBS, status=JobStatus.FAILED,
              webhook_url=receiver)
    backend.jobs.create(job)
    add_job(backend, status=JobStatus.FAILED)  # no webhook: never called
    Answer.status = 500
    assert webhooks.deliver_due(backend, b"s", timeout_s=5) == 0
    assert backend.jobs.get(job.job_id).notified_at is None
    Answer.status = 204
    assert webhooks.deliver_due(backend, b"s", timeout_s=5) == 1
    assert webhooks.deliver_due(backend, b"s", timeout_s=5) == 0
    assert Answer.calls == 2
    assert backend.jobs.get(job.job_id).notified_at is not None


def test_signatures_depend_on_secret_time_and_body():
    assert webhooks.sign(b"k", b"{}", 1) != webhooks.sign(b"other", b"{}", 1)
    assert webhooks.sign(b"k", b"{}", 1) != webhooks.sign(b"k", b"{}", 2)
    assert webhooks.sign(b"k", b"{}", 1).startswith("t=1,v1=")


@pytest.mark.parametrize("bad", ["ftp://x/y", "javascript:alert(1)", "http://a b"])
def test_only_http_urls_are_accepted(bad):
    with pytest.raises(BadRequestError):
        webhooks.form_url(bad)
    assert webhooks.form_url("  ") is None
