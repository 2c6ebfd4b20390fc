"""The models page: what is installed, the default, and downloads with progress."""

import time

from fastapi.testclient import TestClient
from shared_types.testing.memory import memory_backend
from stereo_models.depth_models import CATALOG
from stereo_models.testing.hub import FakeHub, serve_hub

from web_ui.app import create_app
from web_ui.csrf import COOKIE_NAME
from web_ui.settings import WebSettings

NAME = "distill-any-depth-small"
WEIGHTS = b"w" * 300_000


def _client(tmp_path, endpoint):
    settings = WebSettings(serve_storage=False, data_dir=tmp_path, models_dir=tmp_path / "models",
                           public_base_url="http://127.0.0.1:8000", hub_endpoint=endpoint,
                           allowed_hosts=["testserver"])
    client = TestClient(create_app(settings, memory_backend()))
    client.get("/")
    return client


def _download(client, name):
    return client.post(f"/models/{name}/download",
                       data={"csrf_token": client.cookies[COOKIE_NAME]}, follow_redirects=False)


def _wait_until(client, name, status, timeout_s=60.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = client.app.state.model_downloads.states().get(name)
        if state and state.status == status:
            return state
        time.sleep(0.05)
    raise AssertionError(f"{name} never reached {status}: {state}")


def test_the_page_lists_every_model_with_its_licence_and_the_default(tmp_path):
    page = _client(tmp_path, None).get("/models")
    assert page.status_code == 200
    assert page.template.name == "models.html"
    rows = page.context["rows"]
    assert {r["name"] for r in rows} == set(CATALOG)
    assert not any(r["installed"] or r["is_default"] for r in rows)
    assert "CC-BY-NC" in next(r for r in rows if r["name"] == "depth-anything-v2-base")["licence"]
    assert page.context["heuristic_default"]
    assert 'href="/models"' in page.text


def test_a_download_from_the_page_installs_the_model_and_reports_progress(tmp_path):
    files = {"config.json": b"{}", "model.safetensors": WEIGHTS}
    with serve_hub(FakeHub(repos={CATALOG[NAME].repo: files})) as hub:
        client = _client(tmp_path, hub.url)
        r = _download(client, NAME)
        assert r.status_code == 303
        assert r.headers["location"] == "/models"
        state = _wait_until(client, NAME, "done")
    assert state.done_bytes == state.total_bytes == len(WEIGHTS) + 2
    models = client.get("/api/models").json()
    assert models[0]["name"] == NAME
    assert models[0]["installed"]
    assert models[0]["is_default"]
    page = client.get("/models")
    assert f"{NAME} <strong>(default)</strong>" in page.text
    # the job form now picks it by default
    assert f'value="{NAME}" selected' in client.get("/").text


def test_a_failed_download_says_why_and_can_be_retried(tmp_path):
    pinned = "depth-anything-v2-small"  # a model the catalogue pins, which this hub lacks
    with serve_hub(FakeHub(repos={})) as hub:
        client = _client(tmp_path, hub.url)
        _download(client, pinned)
        state = _wait_until(client, pinned, "failed")
    assert "failed" in state.error
    page = client.get("/models").text
    assert "failed: downloading" in page
    assert f'action="/models/{pinned}/download"' in page


def test_unknown_models_and_missing_tokens_are_refused(tmp_path):
    client = _client(tmp_path, None)
    assert _download(client, "midas").status_code == 404
    r = client.post(f"/models/{NAME}/download", data={}, follow_redirects=False)
    assert r.status_code in (400, 403)
    assert client.app.state.model_downloads.states() == {}
