"""Depth model choice in the web UI and API: defaults, and refusal at job creation."""

import pytest
from fastapi.testclient import TestClient
from shared_types.testing.memory import memory_backend
from stereo_models.depth_models import CATALOG
from stereo_models.testing.hub import FakeHub, serve_hub

from web_ui.app import create_app
from web_ui.csrf import COOKIE_NAME
from web_ui.settings import WebSettings

SMALL, LARGE = "depth-anything-v2-small", "depth-anything-v2-large"


def _install(models_dir, name):
    folder = models_dir / name
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    (folder / "model.safetensors").write_bytes(b"w")


def _client(tmp_path, **overrides):
    settings = WebSettings(serve_storage=False, data_dir=tmp_path, models_dir=tmp_path / "models",
                           public_base_url="http://127.0.0.1:8000", allowed_hosts=["testserver"],
                           **overrides)
    backend = memory_backend()
    return TestClient(create_app(settings, backend)), backend


@pytest.mark.parametrize("auto_download", [False, True])
def test_an_api_job_for_a_model_that_cannot_run_is_refused_at_creation(tmp_path, auto_download):
    # downloads on, but the hub does not answer (a closed port): refused too
    client, backend = _client(tmp_path, model_auto_download=auto_download,
                              hub_endpoint="http://127.0.0.1:9")
    r = client.post("/api/jobs", json={"mode": "sbs", "params": {"depth_model": SMALL}})
    assert r.status_code == 422
    assert f"stereo-spot models download {SMALL}" in r.json()["detail"]
    assert backend.jobs.list_in_progress() == []


def test_an_installed_model_or_a_reachable_hub_lets_the_job_through(tmp_path):
    client, backend = _client(tmp_path, model_auto_download=False)
    _install(tmp_path / "models", SMALL)
    r = client.post("/api/jobs", json={"mode": "sbs", "params": {"depth_model": SMALL}})
    assert r.status_code == 201
    hub = FakeHub(repos={CATALOG[LARGE].repo: {"config.json": b"{}"}})
    with serve_hub(hub):
        client, _ = _client(tmp_path, model_auto_download=True, hub_endpoint=hub.url)
        r = client.post("/api/jobs", json={"mode": "sbs", "params": {"depth_model": LARGE}})
    assert r.status_code == 201


def test_the_api_defaults_to_the_best_installed_model(tmp_path):
    client, backend = _client(tmp_path)
    r = client.post("/api/jobs", json={"mode": "sbs"})
    assert backend.jobs.get(r.json()["job_id"]).params.depth_model == "heuristic"
    _install(tmp_path / "models", SMALL)
    r = client.post("/api/jobs", json={"mode": "sbs", "params": {"divergence": 1.0}})
    assert backend.jobs.get(r.json()["job_id"]).params.depth_model == SMALL


def test_the_form_refuses_a_missing_model_with_the_command_to_run(tmp_path):
    client, backend = _client(tmp_path, model_auto_download=False)
    client.get("/")
    r = client.post("/jobs", data={"mode": "sbs", "depth_model": SMALL,
                                   "csrf_token": client.cookies[COOKIE_NAME]},
                    follow_redirects=False)
    assert r.status_code == 422
    assert r.template.name == "error.html"
    assert f"stereo-spot models download {SMALL}" in r.text
    assert backend.jobs.list_in_progress() == []


def test_the_form_lists_installed_models_first_with_the_default_selected(tmp_path):
    client, _ = _client(tmp_path, model_auto_download=False)
    _install(tmp_path / "models", SMALL)
    page = client.get("/").text
    start = page.index('name="depth_model"')
    select = page[start:page.index("</select>", start)]
    options = [o.split('"')[1] for o in select.split("<option value=")[1:]]
    assert options[:2] == [SMALL, "heuristic"]
    assert f'value="{SMALL}" selected' in select
    assert "(default)" in select
    assert f"{LARGE} (not installed)" in select


def _offered(client) -> list[str]:
    page = client.get("/").text
    start = page.index('name="depth_model"')
    select = page[start:page.index("</select>", start)]
    return [o.split('"')[1] for o in select.split("<option value=")[1:]]


def _post_iw3(client):
    return client.post("/jobs", data={"mode": "sbs", "depth_model": "iw3",
                                      "csrf_token": client.cookies[COOKIE_NAME]},
                       follow_redirects=False)


def test_iw3_is_neither_offered_nor_accepted_where_its_package_is_missing(tmp_path):
    client, backend = _client(tmp_path)
    assert "iw3" not in _offered(client)
    r = _post_iw3(client)
    assert r.status_code == 422
    assert "installed only in the GPU image" in r.text
    assert backend.jobs.list_in_progress() == []


def test_iw3_is_offered_where_its_package_imports_or_on_aws(tmp_path, monkeypatch):
    client, _ = _client(tmp_path, backend="aws")  # converted by the GPU image
    assert "iw3" in _offered(client)
    assert _post_iw3(client).status_code == 303
    (tmp_path / "site" / "iw3").mkdir(parents=True)
    (tmp_path / "site" / "iw3" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    client, _ = _client(tmp_path)
    assert "iw3" in _offered(client)
    assert _post_iw3(client).status_code == 303


def test_a_model_that_is_never_downloaded_says_it_is_not_installed(tmp_path):
    video = "video-depth-anything-small"  # its hub files are not pinned (the original .pth)
    client, _ = _client(tmp_path, model_auto_download=True)
    page = client.get("/").text
    assert f"{video} (not installed)" in page
    assert f"{SMALL} (to download" in page  # the control: a pinned model
