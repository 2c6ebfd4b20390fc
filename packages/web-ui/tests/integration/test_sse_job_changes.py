"""A job page's progress stream, on the real local backend, sees its job's
status change when it happens: the change rings the stream's doorbell ear
(``Backend.job_changes``) and the stream reads again instead of sleeping out
its poll. Each wait's own answer tells a ring (True) from a poll that ran out
(False), so nothing here depends on how fast the machine is."""

from __future__ import annotations

import dataclasses
import threading

import pytest
from fastapi.testclient import TestClient
from local_adapters import build_backend
from local_adapters.doorbell import Ear
from shared_types import job_changes
from shared_types.job_changes import UNANNOUNCED
from shared_types.models import Job, JobStatus, JobUpdate, OutputMode, new_job_id
from shared_types.testing.change_waits import RecordedWaits

from web_ui.app import create_app
from web_ui.settings import WebSettings

from ..unit.sse_parse import parse_events


def settings_for(tmp_path, poll_s: float) -> WebSettings:
    return WebSettings(data_dir=tmp_path / "data", public_base_url="http://testserver",
                       signing_secret="integration-secret-0123456789", sse_poll_s=poll_s)


def stream_until_done(app, settings, waits: RecordedWaits) -> list[dict]:
    """A job converting; the stream opened; once it waits, another handle on
    the same data folder (as a worker process) marks the job completed."""
    job = Job(job_id=new_job_id(), mode=OutputMode.SBS, status=JobStatus.CHUNKING_COMPLETE,
              total_segments=2)
    app.state.backend.jobs.create(job)

    def complete() -> None:
        waits.asleep()
        build_backend(settings).jobs.update(job.job_id, JobUpdate(status=JobStatus.COMPLETED))

    worker = threading.Thread(target=complete, daemon=True)
    worker.start()
    text = TestClient(app).get(f"/jobs/{job.job_id}/events").text
    worker.join(60)
    return [e for e in parse_events(text) if e["event"] != "ping"]


def test_a_stream_is_told_when_its_job_completes(tmp_path, monkeypatch):
    waits = RecordedWaits(monkeypatch, Ear, "wait_async")
    settings = settings_for(tmp_path, poll_s=60)  # the longest poll settings allow
    events = stream_until_done(create_app(settings), settings, waits)
    assert [e["event"] for e in events] == ["progress", "progress", "done"]
    assert events[-1]["json"] == {"status": "completed"}
    assert waits.answers == [True]  # rung, not a poll run out


def test_on_a_backend_that_tells_nothing_the_stream_polls(tmp_path, monkeypatch):
    """Negative control: the same job and change, the app given the backend
    without its job changes (as on AWS): the change is seen when a poll ends."""
    waits = RecordedWaits(monkeypatch, job_changes._Sleeper, "wait_async")
    settings = settings_for(tmp_path, poll_s=0.3)
    quiet = dataclasses.replace(build_backend(settings), job_changes=UNANNOUNCED)
    events = stream_until_done(create_app(settings, quiet), settings, waits)
    assert [e["event"] for e in events][-1] == "done"
    assert waits.answers and not any(waits.answers)


@pytest.mark.parametrize("status", [JobStatus.FAILED, JobStatus.CANCELLED])
def test_any_end_rings(tmp_path, monkeypatch, status):
    waits = RecordedWaits(monkeypatch, Ear, "wait_async")
    settings = settings_for(tmp_path, poll_s=60)
    app = create_app(settings)
    job = Job(job_id=new_job_id(), mode=OutputMode.SBS, status=JobStatus.CREATED)
    app.state.backend.jobs.create(job)

    def end() -> None:
        waits.asleep()
        build_backend(settings).jobs.update(job.job_id, JobUpdate(status=status))

    threading.Thread(target=end, daemon=True).start()
    events = parse_events(TestClient(app).get(f"/jobs/{job.job_id}/events").text)
    assert events[-1]["json"] == {"status": status.value}
    assert waits.answers == [True]
