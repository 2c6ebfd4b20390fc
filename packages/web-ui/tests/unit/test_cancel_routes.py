"""Cancel from the page and the API: the job ends cancelled and its files go."""

from shared_types.keys import source_key
from shared_types.models import JobStatus

from .conftest import add_job


def test_the_cancel_button_stops_a_running_job_and_frees_its_source(client, backend, token):
    job = add_job(backend, status=JobStatus.CHUNKING_COMPLETE, total_segments=3)
    backend.input_storage.put_bytes(source_key(job.job_id), b"video")
    assert 'id="cancel-job"' in client.get(f"/jobs/{job.job_id}").text
    r = client.post(f"/jobs/{job.job_id}/cancel", data={"csrf_token": token},
                    follow_redirects=False)
    assert r.status_code == 303
    assert backend.jobs.get(job.job_id).status == JobStatus.CANCELLED
    assert not backend.input_storage.exists(source_key(job.job_id))
    page = client.get(f"/jobs/{job.job_id}").text
    assert 'id="cancelled"' in page
    assert 'id="cancel-job"' not in page
    assert job.job_id in client.get("/jobs").text


def test_cancel_without_the_form_token_changes_nothing(client, backend, token):
    job = add_job(backend, status=JobStatus.CHUNKING_IN_PROGRESS)
    r = client.post(f"/jobs/{job.job_id}/cancel", data={}, follow_redirects=False)
    assert r.status_code == 403
    assert backend.jobs.get(job.job_id).status == JobStatus.CHUNKING_IN_PROGRESS


def test_the_api_cancels_once(client, backend):
    job = add_job(backend)
    r = client.post(f"/api/jobs/{job.job_id}/cancel", json={})
    assert r.status_code == 200
    assert r.json()["status"] == "cancelled"
    assert client.post(f"/api/jobs/{job.job_id}/cancel", json={}).status_code == 409
