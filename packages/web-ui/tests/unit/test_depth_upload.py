"""Importing a depth video from the web UI: stored before the source, refused after."""

from shared_types.keys import depth_video_key, source_key
from shared_types.models import ConversionParams, JobStatus

from .conftest import add_job


def _send(client, token, job_id, name="depth.mkv", data=b"grey16"):
    return client.post(f"/jobs/{job_id}/depth", data={"csrf_token": token},
                       files={"file": (name, data, "video/x-matroska")})


def test_a_depth_video_sent_before_the_source_is_stored(client, backend, token):
    job = add_job(backend)
    r = _send(client, token, job.job_id)
    assert r.status_code == 204
    assert backend.input_storage.get_bytes(depth_video_key(job.job_id)) == b"grey16"


def test_a_depth_video_after_the_source_or_not_a_video_is_refused(client, backend, token):
    job = add_job(backend)
    assert _send(client, token, job.job_id, name="notes.txt").status_code == 400
    assert _send(client, token, job.job_id, data=b"").status_code == 400
    backend.input_storage.put_bytes(source_key(job.job_id), b"video")
    assert _send(client, token, job.job_id).status_code == 409
    assert not backend.input_storage.exists(depth_video_key(job.job_id))
    assert client.post(f"/jobs/{job.job_id}/depth",  # negative: no CSRF token, no write
                       files={"file": ("d.mkv", b"x")}).status_code == 403


def test_a_job_with_imported_depth_offers_no_preview_clip(client, backend, token):
    job = add_job(backend, status=JobStatus.AWAITING_CONFIRMATION, source_duration_s=30.0)
    backend.input_storage.put_bytes(depth_video_key(job.job_id), b"grey16")
    r = client.post(f"/api/jobs/{job.job_id}/preview",
                    json={"start_s": 1.0, "divergence": 2.0, "convergence": 0.5})
    assert r.status_code == 409
    assert "imported depth" in r.text


def test_a_depth_video_is_refused_for_a_job_that_converts_a_part(client, backend, token):
    job = add_job(backend, params=ConversionParams(start_s=5.0))
    r = _send(client, token, job.job_id)
    assert r.status_code == 400 and "start or end time" in r.text
    assert not backend.input_storage.exists(depth_video_key(job.job_id))
