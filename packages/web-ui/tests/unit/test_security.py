import base64

import pytest
from fastapi.testclient import TestClient

from web_ui.app import create_app
from web_ui.security import credentials_match
from web_ui.settings import WebSettings


def basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.fixture
def locked(settings, backend):
    s = WebSettings(**{**settings.model_dump(), "basic_auth_user": "me",
                       "basic_auth_password": "pw"})
    return TestClient(create_app(s, backend))


@pytest.mark.parametrize("path", ["/", "/healthz", "/static/app.css", "/api/jobs", "/nope"])
def test_every_response_carries_security_headers(client, path):
    r = client.get(path)
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]


def test_a_declared_body_over_the_cap_is_refused_before_reading(client, settings, token):
    r = client.post("/jobs", content=b"x" * (settings.max_body_bytes + 1),
                    headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413


def test_a_streamed_body_over_the_cap_is_refused(client, settings):
    def chunks():
        for _ in range(settings.max_body_bytes // 1024 + 2):
            yield b"x" * 1024

    r = client.post("/api/jobs", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_basic_auth_guards_pages_when_configured(locked):
    r = locked.get("/")
    assert r.status_code == 401
    assert r.headers["www-authenticate"].startswith("Basic")
    assert r.headers["x-content-type-options"] == "nosniff"
    assert locked.get("/", headers={"Authorization": basic("me", "wrong")}).status_code == 401
    assert locked.get("/", headers={"Authorization": basic("me", "pw")}).status_code == 200


def test_health_checks_pass_without_credentials(locked):
    assert locked.get("/healthz").status_code == 200


def test_no_auth_when_not_configured(client):
    assert client.get("/").status_code == 200


@pytest.mark.parametrize(("header", "ok"), [
    (basic("me", "pw"), True),
    (basic("me", "pw:extra"), False),
    (basic("you", "pw"), False),
    ("Basic !!!notbase64", False),
    ("Bearer abc", False),
    (None, False),
    ("Basic " + base64.b64encode(b"mepw").decode(), False),
])
def test_credentials_match(header, ok):
    assert credentials_match(header, "me", "pw") is ok


def loopback_app(backend, tmp_path, **kw):
    s = WebSettings(_env_file=None, data_dir=tmp_path, serve_storage=False, host="127.0.0.1",
                    public_base_url="http://127.0.0.1:8000", **kw)
    return TestClient(create_app(s, backend), base_url="http://127.0.0.1:8000")


@pytest.mark.parametrize("host", ["evil.example", "rebound.attacker.test:8000"])
def test_a_loopback_ui_refuses_a_foreign_host_header(backend, tmp_path, host):
    client = loopback_app(backend, tmp_path)
    assert client.get("/api/jobs", headers={"host": host}).status_code == 400
    # negative control: the same request under its own name is answered
    assert client.get("/api/jobs").status_code == 200
    assert client.get("/api/jobs", headers={"host": "localhost:8000"}).status_code == 200


def test_a_ui_bound_to_every_interface_answers_any_host(backend, tmp_path):
    s = WebSettings(_env_file=None, data_dir=tmp_path, serve_storage=False, host="0.0.0.0")
    client = TestClient(create_app(s, backend))
    assert client.get("/healthz", headers={"host": "10.0.3.7:8000"}).status_code == 200


def test_extra_allowed_hosts_are_accepted(backend, tmp_path):
    client = loopback_app(backend, tmp_path, allowed_hosts=["stereo.lan"])
    assert client.get("/healthz", headers={"host": "stereo.lan"}).status_code == 200
