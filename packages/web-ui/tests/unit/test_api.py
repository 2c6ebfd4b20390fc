from shared_types.models import JobError, JobStatus
from shared_types.upload_policy import decode_policy, size_range

from .conftest import add_job


def test_create_job_returns_the_id_and_a_scoped_upload_url(client, backend, settings):
    r = client.post("/api/jobs", json={"mode": "tb", "params": {"divergence": 1.0}})
    assert r.status_code == 201
    body = r.json()
    job = backend.jobs.get(body["job_id"])
    assert job.mode == "tb"
    assert job.params.divergence == 1.0
    assert body["upload_method"] == "POST"
    assert body["upload_fields"]["key"] == f"input/{body['job_id']}/source.mp4"
    assert body["max_upload_bytes"] == settings.max_upload_bytes
    policy = decode_policy(body["upload_fields"]["policy"])
    assert size_range(policy) == (1, settings.max_upload_bytes)


def test_create_job_takes_the_container_and_the_download_is_named_for_it(client, backend):
    body = client.post("/api/jobs", json={"mode": "half-sbs", "container": "mkv",
                                          "title": "Trip"}).json()
    job = backend.jobs.get(body["job_id"])
    assert job.container == "mkv"
    assert client.get(f"/api/jobs/{job.job_id}").json()["container"] == "mkv"
    assert client.post("/api/jobs", json={"mode": "sbs", "container": "avi"}).status_code == 422


def test_create_job_validates_the_body(client):
    assert client.post("/api/jobs", json={"mode": "4d"}).status_code == 422
    r = client.post("/api/jobs", json={"mode": "sbs", "params": {"divergence": -1}})
    assert r.status_code == 422
    assert client.post("/api/jobs", json={"mode": "sbs", "extra": 1}).status_code == 422


def test_create_job_must_be_json(client):
    r = client.post("/api/jobs", content='{"mode": "sbs"}',
                    headers={"content-type": "text/plain"})
    assert r.status_code == 403
    assert r.json() == {"detail": "API requests must be application/json."}


def test_get_job_returns_status_progress_and_error(client, backend):
    err = JobError(code="x", message="why it failed", stage="reassembly")
    job = add_job(backend, status=JobStatus.FAILED, error=err, total_segments=4)
    body = client.get(f"/api/jobs/{job.job_id}").json()
    assert body["status"] == "failed"
    assert body["error"]["message"] == "why it failed"
    assert body["progress"]["segments_total"] == 4


def test_get_unknown_job_is_a_json_404(client):
    r = client.get("/api/jobs/not-a-uuid")
    assert r.status_code == 404
    assert r.json() == {"detail": "No such job."}


def test_list_jobs_includes_every_group(client, backend):
    a = add_job(backend)
    b = add_job(backend, status=JobStatus.COMPLETED, completed_at=1.0)
    ids = [i["job_id"] for i in client.get("/api/jobs").json()["items"]]
    assert sorted(ids) == sorted([a.job_id, b.job_id])


def test_playback_urls_of_a_completed_job(client, backend):
    job = add_job(backend, status=JobStatus.COMPLETED, title="z")
    body = client.get(f"/api/jobs/{job.job_id}/playback").json()
    assert body["download_name"] == "z_LRF_Full_SBS.mp4"


def test_openapi_documents_the_api(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/jobs", "/api/jobs/{job_id}"} <= set(paths)
    assert "post" in paths["/api/jobs"]


def test_the_api_carries_the_layout_and_encoding_params(client, backend):
    body = client.post("/api/jobs", json={"mode": "vr180", "params": {
        "codec": "x265", "pix_fmt": "yuv420p10le", "bitrate_kbps": 8000, "max_fps": 30}}).json()
    params = backend.jobs.get(body["job_id"]).params
    assert (params.codec.value, params.pix_fmt.value, params.bitrate_kbps, params.max_fps) == (
        "x265", "yuv420p10le", 8000, 30)
    crossed = client.post("/api/jobs", json={"mode": "tb", "params": {"cross_eyed": True}})
    assert crossed.status_code == 422  # cross-eyed is for side-by-side only
    assert client.post("/api/jobs", json={"mode": "half-sbs", "params": {
        "cross_eyed": True}}).status_code == 201


def test_a_control_iw3_lacks_is_refused_at_creation_with_the_reason(client):
    asked = client.post("/api/jobs", json={"mode": "sbs", "params": {
        "depth_model": "iw3", "floating_window": True}})
    assert asked.status_code == 422
    assert "floating window is not available with the iw3 depth" in asked.text
    # negative controls: the same control with the engine's own depth is taken, and
    # iw3 without it is not refused for a control
    assert client.post("/api/jobs", json={"mode": "sbs", "params": {
        "floating_window": True}}).status_code == 201
    plain = client.post("/api/jobs", json={"mode": "sbs", "params": {"depth_model": "iw3"}})
    assert "is not available with the iw3" not in plain.text


def test_the_api_carries_the_part_to_convert(client, backend):
    body = client.post("/api/jobs", json={"mode": "sbs", "params": {
        "start_s": 5, "end_s": 9.5}}).json()
    params = backend.jobs.get(body["job_id"]).params
    assert (params.start_s, params.end_s) == (5.0, 9.5)
    refused = client.post("/api/jobs", json={"mode": "sbs", "params": {
        "start_s": 9.5, "end_s": 5}})
    assert refused.status_code == 422
    assert "must come after the start" in refused.text
