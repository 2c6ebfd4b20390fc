"""The web UI when the person leaves the depth model to it, against the local hub:
a GPU's form picks Depth-Anything-V2-Small (downloaded on first use); a CPU's
keeps the weight-free default and gives each choice's time, and a held job's
preview offers both with their time for that video; offline, the job page says
in one line that the weight-free default runs and how to install a model."""

import socket

import pytest
from fastapi.testclient import TestClient
from shared_types.keys import source_key
from shared_types.models import JobStatus, JobUpdate
from shared_types.testing.memory import memory_backend
from stereo_models.depth_models import CATALOG
from stereo_models.testing.hub import FakeHub, serve_hub

from web_ui.app import create_app
from web_ui.csrf import COOKIE_NAME
from web_ui.settings import WebSettings

SMALL = "depth-anything-v2-small"
INSTALL = f"stereo-spot models download {SMALL}"


@pytest.fixture(scope="module")
def hub():
    with serve_hub(FakeHub(repos={CATALOG[SMALL].repo: {"config.json": b"{}"}})) as served:
        yield served


@pytest.fixture
def offline():
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{closed.getsockname()[1]}"


def client_for(tmp_path, endpoint, *, gpu):
    settings = WebSettings(serve_storage=False, data_dir=tmp_path, models_dir=tmp_path / "models",
                           public_base_url="http://127.0.0.1:8000", allowed_hosts=["testserver"],
                           hub_endpoint=endpoint)
    backend = memory_backend()
    client = TestClient(create_app(settings, backend, has_gpu=lambda: gpu))
    return client, backend


def depth_select(page: str) -> str:
    start = page.index('name="depth_model"')
    return page[start:page.index("</select>", start)]


def create_from_form(client, backend, **fields):
    client.get("/")
    r = client.post("/jobs", data={"mode": "sbs", "csrf_token": client.cookies[COOKIE_NAME],
                                   **fields}, follow_redirects=False)
    assert r.status_code == 303, r.text
    return backend.jobs.get(r.headers["location"].rsplit("/", 1)[1])


def test_on_a_gpu_the_form_and_the_api_default_to_the_model_downloaded_on_first_use(
        tmp_path, hub):
    client, backend = client_for(tmp_path, hub.url, gpu=True)

    select = depth_select(client.get("/").text)
    r = client.post("/api/jobs", json={"mode": "sbs"})

    assert f'value="{SMALL}" selected>{SMALL} (default, to download)' in select
    job = backend.jobs.get(r.json()["job_id"])
    assert job.params.depth_model == SMALL
    assert job.depth_notice.startswith(f"depth: {SMALL} (downloading it for its first use")


def test_on_a_cpu_the_weight_free_default_stays_and_each_choice_says_its_time(tmp_path, hub):
    client, backend = client_for(tmp_path, hub.url, gpu=False)

    select = depth_select(client.get("/").text)
    job = create_from_form(client, backend, depth_model="heuristic")

    assert 'value="heuristic" selected>heuristic (default, about' in select
    assert "a minute of 1080p video here" in select.split(f'value="{SMALL}"')[1].split(
        "</option>")[0]
    assert job.params.depth_model == "heuristic" and job.depth_notice is None


def test_offline_the_job_page_says_in_one_line_that_the_default_runs_and_how_to_install(
        tmp_path, offline, hub):
    client, backend = client_for(tmp_path, offline, gpu=True)

    job = create_from_form(client, backend, depth_model="heuristic")
    page = client.get(f"/jobs/{job.job_id}").text

    start = page.index('id="depth-notice"')
    line = page[page.index(">", start) + 1:page.index("</p>", start)]
    assert INSTALL in line and "weight-free default" in line and "\n" not in line
    # the control: the same job where the hub answers carries no such line
    client, backend = client_for(tmp_path, hub.url, gpu=False)
    job = create_from_form(client, backend, depth_model="heuristic")
    assert 'id="depth-notice"' not in client.get(f"/jobs/{job.job_id}").text


def test_a_held_jobs_preview_offers_both_choices_with_their_time_for_this_video(
        tmp_path, hub):
    client, backend = client_for(tmp_path, hub.url, gpu=False)
    job = create_from_form(client, backend, depth_model="heuristic", preview="true")
    backend.input_storage.put_bytes(source_key(job.job_id), b"video")
    backend.jobs.update(job.job_id, JobUpdate(
        thumbnails=4, source_duration_s=60.0, source_etag="e1", source_frames=1800,
        source_width=1920, source_height=1080))

    page = client.get(f"/jobs/{job.job_id}").text
    choice = depth_select(page.split('id="preview"')[1])
    r = client.post(f"/jobs/{job.job_id}/convert", follow_redirects=False, data={
        "csrf_token": client.cookies[COOKIE_NAME], "divergence": 2.0, "convergence": 0.5,
        "depth_model": SMALL})

    assert 'value="heuristic" selected>heuristic: about' in choice
    assert f"{SMALL}: about" in choice and "for this video on this CPU" in choice
    assert r.status_code == 303, r.text
    converting = backend.jobs.get(job.job_id)
    assert converting.status != JobStatus.AWAITING_CONFIRMATION
    assert converting.params.depth_model == SMALL
