"""The webhook thread, on the real local backend, posts about a job when it
ends: the job's end rings its doorbell ear (``Backend.job_changes``) instead
of waiting for the next pass. Each wait's own answer tells a ring (True)
from a pass whose time ran out (False), so nothing here depends on how fast
the machine is."""

from __future__ import annotations

import dataclasses
import threading

import pytest
from local_adapters import build_backend
from local_adapters.doorbell import Ear
from shared_types import job_changes
from shared_types.job_changes import UNANNOUNCED
from shared_types.models import Job, JobStatus, JobUpdate, OutputMode, new_job_id
from shared_types.settings import BackendSettings
from shared_types.testing.change_waits import RecordedWaits
from shared_types.testing.http_receiver import Received, http_receiver

from web_ui import webhook_pool, webhooks
from web_ui.outbound import OutboundPolicy


@pytest.fixture
def receiver():
    """(the webhook's URL, what it received)."""
    with http_receiver(204, path="/hook") as served:
        yield served


def notify_on_end(backend, data_dir, receiver: tuple[str, Received], waits: RecordedWaits,
                  poll_s: float) -> list[bool]:
    """A converting job with a webhook; the notifier started; once it waits,
    another handle (a worker process) ends the job; the answers of the waits
    until the receiver got its post."""
    job = Job(job_id=new_job_id(), mode=OutputMode.SBS, status=JobStatus.REASSEMBLING,
              webhook_url=receiver[0])
    backend.jobs.create(job)
    config = webhooks.WebhookConfig(secret=b"secret", deployment="test", deadline_s=10,
                                    policy=OutboundPolicy(allow_http=True, allow_private=True))
    stop = webhook_pool.start_notifier(backend, config, poll_s=poll_s)
    try:
        waits.asleep()
        other = build_backend(BackendSettings(data_dir=data_dir))
        other.jobs.update(job.job_id, JobUpdate(status=JobStatus.COMPLETED))
        assert receiver[1].arrived.wait(120), "the job's end was never posted"
        return list(waits.answers)
    finally:
        stop.set()


def test_a_job_that_ends_is_posted_about_when_it_ends(tmp_path, receiver, monkeypatch):
    waits = RecordedWaits(monkeypatch, Ear)
    backend = build_backend(BackendSettings(data_dir=tmp_path / "data"))
    answers = notify_on_end(backend, tmp_path / "data", receiver, waits, poll_s=3600)
    assert answers == [True]  # the end rang; an hour's pass never ran out


def test_a_backend_that_tells_nothing_is_looked_at_every_pass(tmp_path, receiver, monkeypatch):
    """Negative control: the same end, the notifier given the backend without
    its job changes (as on AWS): the post waits for a pass to run out."""
    waits = RecordedWaits(monkeypatch, job_changes._Sleeper)
    backend = dataclasses.replace(build_backend(BackendSettings(data_dir=tmp_path / "data")),
                                  job_changes=UNANNOUNCED)
    answers = notify_on_end(backend, tmp_path / "data", receiver, waits, poll_s=0.3)
    assert answers and not any(answers)


def test_a_job_that_ends_before_the_notifiers_thread_runs_is_still_heard(
        tmp_path, receiver, monkeypatch):
    """The notifier listens before ``start_notifier`` returns: a job that ends
    before its thread has run at all (a loaded machine) is posted on the
    first wait, not left to the next pass an hour away. (The thread started
    listening itself before: the end rang nobody, and nothing was posted.)"""
    held: list[threading.Thread] = []
    real_start = threading.Thread.start

    def start_unless_notifier(thread: threading.Thread) -> None:
        if thread.name == "webhooks":
            held.append(thread)  # run once the job has ended
        else:
            real_start(thread)

    waits = RecordedWaits(monkeypatch, Ear)
    backend = build_backend(BackendSettings(data_dir=tmp_path / "data"))
    job = Job(job_id=new_job_id(), mode=OutputMode.SBS, status=JobStatus.REASSEMBLING,
              webhook_url=receiver[0])
    backend.jobs.create(job)
    config = webhooks.WebhookConfig(secret=b"secret", deployment="test", deadline_s=10,
                                    policy=OutboundPolicy(allow_http=True, allow_private=True))
    monkeypatch.setattr(threading.Thread, "start", start_unless_notifier)
    stop = webhook_pool.start_notifier(backend, config, poll_s=3600)
    monkeypatch.setattr(threading.Thread, "start", real_start)
    try:
        build_backend(BackendSettings(data_dir=tmp_path / "data")).jobs.update(
            job.job_id, JobUpdate(status=JobStatus.COMPLETED))
        assert len(held) == 1
        real_start(held[0])
        assert receiver[1].arrived.wait(120), "the job's end was never posted"
        assert waits.answers == [True]
    finally:
        stop.set()
