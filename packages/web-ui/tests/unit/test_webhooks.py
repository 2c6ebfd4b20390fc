"""Webhook signing, URL checks, retries and the delivery pool (real local receivers)."""

import hashlib
import hmac
import json

import pytest
from shared_types.models import Job, JobStatus, JobUpdate, OutputMode, new_job_id

from web_ui import webhooks
from web_ui.errors import BadRequestError
from web_ui.outbound import OutboundPolicy
from web_ui.webhook_pool import WebhookPool

from .conftest import add_job
from .receivers import receiver

LOCAL = OutboundPolicy(allow_http=True, allow_private=True)


def config(policy: OutboundPolicy = LOCAL, deadline_s: float = 5) -> webhooks.WebhookConfig:
    return webhooks.WebhookConfig(secret=b"s", deployment="https://stereo.example",
                                  deadline_s=deadline_s, policy=policy)


def ended_job(backend, url: str) -> Job:
    job = Job(job_id=new_job_id(), mode=OutputMode.SBS, status=JobStatus.FAILED, webhook_url=url)
    backend.jobs.create(job)
    return job


def test_a_failed_delivery_is_retried_after_a_backoff_and_a_2xx_is_recorded_once(backend):
    with receiver(status=500) as (url, seen):
        job = ended_job(backend, url)
        add_job(backend, status=JobStatus.FAILED)  # no webhook: never called
        assert [j.job_id for j in webhooks.due(backend)] == [job.job_id]
        assert not webhooks.deliver_and_record(backend, job, config())
        failed = backend.jobs.get(job.job_id)
        assert failed.webhook_attempts == 1 and failed.notified_at is None
        assert webhooks.due(backend, at=failed.updated_at + 1) == []  # backing off
        later = failed.updated_at + webhooks.retry_after(1)
        assert [j.job_id for j in webhooks.due(backend, at=later)] == [job.job_id]
    with receiver(status=204) as (url, seen):
        job = backend.jobs.get(job.job_id).model_copy(update={"webhook_url": url})
        assert webhooks.deliver_and_record(backend, job, config())
        assert backend.jobs.get(job.job_id).notified_at is not None
        assert webhooks.due(backend, at=later + 10_000) == []
        assert len(seen.requests) == 1


def test_retries_are_bounded_and_back_off():
    waits = [webhooks.retry_after(n) for n in range(1, webhooks.MAX_ATTEMPTS + 1)]
    assert waits == sorted(waits) and waits[0] < waits[-1] <= webhooks.LONGEST_RETRY_S
    assert sum(waits) < webhooks.RETRY_FOR_S  # gives up well before the 24-h window ends


def test_a_job_whose_attempts_are_used_up_is_not_due(backend):
    job = ended_job(backend, "https://hook.example/x")
    backend.jobs.update(job.job_id, JobUpdate(webhook_attempts=webhooks.MAX_ATTEMPTS - 1))
    at = backend.jobs.get(job.job_id).updated_at + webhooks.LONGEST_RETRY_S
    assert [j.job_id for j in webhooks.due(backend, at=at)] == [job.job_id]  # control
    backend.jobs.update(job.job_id, JobUpdate(webhook_attempts=webhooks.MAX_ATTEMPTS))
    assert webhooks.due(backend, at=at) == []


def test_a_private_receiver_is_refused_for_good_and_never_called(backend):
    with receiver() as (url, seen):
        job = ended_job(backend, url)
        public_only = config(OutboundPolicy(allow_http=True))
        assert not webhooks.deliver_and_record(backend, job, public_only)
        assert seen.requests == []
        assert backend.jobs.get(job.job_id).webhook_attempts == webhooks.MAX_ATTEMPTS
        assert webhooks.due(backend) == []


def test_the_body_and_a_header_name_the_deployment_and_the_signature_covers_the_url(backend):
    with receiver() as (url, seen):
        job = ended_job(backend, url)
        assert webhooks.deliver_and_record(backend, job, config())
    _, path, headers, body = seen.requests[0]
    assert json.loads(body)["deployment"] == "https://stereo.example"
    assert headers["x-stereospot-deployment"] == "https://stereo.example"
    fields = dict(p.split("=", 1) for p in headers["x-stereospot-signature"].split(","))

    def valid_for(receiver_url: str) -> bool:
        message = f"{fields['t']}.{receiver_url}.".encode() + body
        return hmac.compare_digest(hmac.new(b"s", message, hashlib.sha256).hexdigest(),
                                   fields["v2"])

    assert valid_for(url)
    assert not valid_for("https://another-receiver.example/hook")  # a replay elsewhere fails


def test_signatures_depend_on_secret_url_time_and_body():
    base = webhooks.sign(b"k", "https://a/x", b"{}", 1)
    assert base != webhooks.sign(b"other", "https://a/x", b"{}", 1)
    assert base != webhooks.sign(b"k", "https://b/x", b"{}", 1)
    assert base != webhooks.sign(b"k", "https://a/x", b"{}", 2)
    assert base != webhooks.sign(b"k", "https://a/x", b"[]", 1)
    assert base.startswith("t=1,v2=")


@pytest.mark.parametrize("bad", ["ftp://x/y", "javascript:alert(1)", "http://a.example/b"])
def test_only_https_urls_are_accepted_by_default(bad):
    with pytest.raises(BadRequestError):
        webhooks.form_url(bad, OutboundPolicy())
    assert webhooks.form_url("  ", OutboundPolicy()) is None
    assert webhooks.form_url("https://a.example/b", OutboundPolicy()) == "https://a.example/b"


def test_one_slow_receiver_delays_no_other(backend):
    """A receiver that holds its connection keeps one pool thread; another
    job's webhook is delivered meanwhile (it would wait behind it in a single
    delivery thread)."""
    pool = WebhookPool(backend, config(deadline_s=60), workers=2)
    try:
        with receiver("hold") as (slow_url, slow), receiver() as (fast_url, fast):
            ended_job(backend, slow_url)
            ended_job(backend, fast_url)
            assert pool.submit_due() == 2
            assert slow.posted.wait(30) and fast.posted.wait(30)
            assert not slow.release.is_set()  # the slow one is still held
            assert pool.submit_due() == 0  # neither is due twice
            slow.release.set()
    finally:
        pool.close()


def test_a_receiver_host_has_one_delivery_in_flight(backend):
    pool = WebhookPool(backend, config(deadline_s=60), workers=4)
    try:
        with receiver("hold") as (url, seen):
            ended_job(backend, url)
            ended_job(backend, url)
            assert pool.submit_due() == 1  # the second waits for the host
            assert seen.posted.wait(30)
            assert pool.submit_due() == 0
            seen.release.set()
    finally:
        pool.close()


@pytest.mark.parametrize("url", ["http://hooks.example/x", "ftp://hooks.example/x"])
def test_the_api_refuses_a_webhook_it_may_not_call_before_making_a_job(client, backend, url):
    r = client.post("/api/jobs", json={"mode": "sbs", "webhook_url": url})
    assert r.status_code in (400, 422), r.text
    assert backend.jobs.list_in_progress() == []
    ok = client.post("/api/jobs", json={"mode": "sbs", "webhook_url": "https://hooks.example/x"})
    assert ok.status_code == 201  # the control
