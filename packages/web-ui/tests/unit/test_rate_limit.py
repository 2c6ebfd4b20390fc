"""The per-client rate limit and the cap on one client's bytes in flight."""

import pytest
from fastapi.testclient import TestClient

from web_ui.app import create_app
from web_ui.errors import NotAllowedError
from web_ui.rate_limit import RateLimiter

from .conftest import add_job


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_a_client_gets_its_burst_then_its_rate():
    clock = Clock()
    limiter = RateLimiter(2.0, 3, clock=clock)
    for _ in range(3):
        limiter.take("a")
    with pytest.raises(NotAllowedError, match="try again in 1 s"):
        limiter.take("a")
    limiter.take("b")  # another client is not slowed by the first
    clock.now += 0.5  # one request's worth at 2/s
    limiter.take("a")
    with pytest.raises(NotAllowedError):
        limiter.take("a")


def test_a_client_over_its_rate_is_answered_429(settings, backend):
    client = TestClient(create_app(settings.model_copy(update={"client_request_burst": 3,
                                                               "client_requests_per_s": 0.001}),
                                   backend))
    codes = [client.post("/api/jobs", json={"mode": "sbs"}).status_code for _ in range(5)]
    assert codes == [201, 201, 201, 429, 429]
    job = add_job(backend)
    r = client.post(f"/api/jobs/{job.job_id}/uploads", json={"file_name": "a.mp4", "size": 9})
    assert r.status_code == 429
    assert "Too many requests" in r.json()["detail"]


def test_one_clients_declared_bytes_in_flight_are_capped(settings, backend):
    client = TestClient(create_app(settings.model_copy(update={"max_bytes_in_flight": 1000}),
                                   backend))
    first, second, third = (client.post("/api/jobs", json={"mode": "sbs"}).json()["job_id"]
                            for _ in range(3))
    start = "/api/jobs/{}/uploads"
    assert client.post(start.format(first), json={"file_name": "a", "size": 600}).status_code \
        == 201
    r = client.post(start.format(second) + "/form", json={"file_name": "b", "size": 600})
    assert r.status_code == 429
    assert "over the 1000-byte limit" in r.json()["detail"]
    assert client.post(start.format(third), json={"file_name": "c", "size": 400}).status_code \
        == 201
