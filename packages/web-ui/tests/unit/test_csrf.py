import pytest

from web_ui.csrf import COOKIE_NAME

from .conftest import add_job


def test_a_form_post_without_the_token_is_refused(client, backend):
    client.get("/")
    r = client.post("/jobs", data={"mode": "sbs"})
    assert r.status_code == 403
    assert backend.jobs.list_in_progress() == []


def test_a_form_post_with_a_wrong_token_is_refused(client, token):
    r = client.post("/jobs", data={"mode": "sbs", "csrf_token": token + "x"})
    assert r.status_code == 403


def test_a_token_without_its_cookie_is_refused(client, token):
    client.cookies.clear()
    assert client.post("/jobs", data={"mode": "sbs", "csrf_token": token}).status_code == 403


@pytest.mark.parametrize("headers", [
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},
    {"Origin": "https://evil.example"},
    {"Origin": "null"},
])
def test_cross_site_form_posts_are_refused_even_with_a_token(client, backend, token, headers):
    job = add_job(backend)
    r = client.post(f"/jobs/{job.job_id}/delete", data={"csrf_token": token}, headers=headers)
    assert r.status_code == 403
    assert backend.jobs.get(job.job_id) is not None


@pytest.mark.parametrize("headers", [
    {"Sec-Fetch-Site": "same-origin", "Origin": "http://testserver"},
    {"Origin": "http://127.0.0.1:8000"},  # the configured public base URL
    {},
])
def test_same_origin_posts_pass(client, token, headers):
    r = client.post("/jobs", data={"mode": "sbs", "csrf_token": token}, headers=headers,
                    follow_redirects=False)
    assert r.status_code == 303


def test_cross_site_api_calls_are_refused(client):
    r = client.post("/api/jobs", json={"mode": "sbs"}, headers={"Origin": "https://evil.example"})
    assert r.status_code == 403


def test_the_token_cookie_is_httponly_and_strict(client):
    r = client.get("/")
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(COOKIE_NAME)
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie or "samesite=strict" in cookie.lower()
    # An existing token is reused, not reset on every page.
    assert "set-cookie" not in client.get("/jobs").headers
