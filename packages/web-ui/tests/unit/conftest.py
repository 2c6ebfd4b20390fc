"""Fixtures for route and module tests: the app on the in-memory backend."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from shared_types.models import Job, JobStatus, JobUpdate, OutputMode, new_job_id
from shared_types.ports import Backend
from shared_types.testing.memory import memory_backend

from web_ui.app import create_app
from web_ui.csrf import COOKIE_NAME
from web_ui.settings import WebSettings

HOST = "testserver"


@pytest.fixture
def settings(tmp_path) -> WebSettings:
    return WebSettings(
        serve_storage=False, data_dir=tmp_path, sse_poll_s=0.01, sse_ping_s=30,
        public_base_url="http://127.0.0.1:8000", max_upload_bytes=10_000_000,
        allowed_hosts=[HOST],
    )


@pytest.fixture
def backend() -> Backend:
    return memory_backend()


@pytest.fixture
def client(settings, backend) -> TestClient:
    return TestClient(create_app(settings, backend))


@pytest.fixture
def token(client) -> str:
    """A CSRF token the client's cookie jar holds (as after viewing a page)."""
    client.get("/")
    return client.cookies[COOKIE_NAME]


def add_job(backend: Backend, *, status: JobStatus = JobStatus.CREATED,
            mode: OutputMode = OutputMode.SBS, title: str | None = None,
            **changes) -> Job:
    """Create a job, then move it to ``status`` with ``changes``."""
    job = Job(job_id=new_job_id(), mode=mode, title=title)
    backend.jobs.create(job)
    if status != JobStatus.CREATED or changes:
        job = backend.jobs.update(job.job_id, JobUpdate(status=status, **changes))
    return job
