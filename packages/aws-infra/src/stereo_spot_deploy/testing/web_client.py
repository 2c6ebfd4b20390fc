"""web-ui driven over HTTP as the page and a browser drive it, for the deployment
harness: the jobs API, the resumable multipart upload and the presigned POST
form (their storage requests through ``presign_relay``), and the job page's
buttons with their CSRF token."""

from __future__ import annotations

import re

import requests

from stereo_spot_deploy.testing.deployment import Services, wait_for
from stereo_spot_deploy.testing.presign_relay import via_relay


def job(web: str, job_id: str) -> dict:
    resp = requests.get(f"{web}/api/jobs/{job_id}", timeout=30)
    assert resp.status_code == 200, resp.text
    return resp.json()


def wait_status(web: str, job_id: str, wanted: set[str], services: Services) -> dict:
    return wait_for(lambda: (j := job(web, job_id))["status"] in wanted and j, 300,
                    f"job {job_id} to reach {wanted}", services.logs)


def upload_in_parts(web: str, relay: str, job_id: str, data: bytes) -> None:
    """Upload a job's source as the page does: a resumable multipart upload."""
    api = f"{web}/api/jobs/{job_id}/uploads"
    plan = requests.post(api, json={"file_name": "clip.mp4", "size": len(data)}, timeout=30)
    assert plan.status_code == 201, plan.text
    upload_id, part_size = plan.json()["upload_id"], plan.json()["part_size"]
    numbers = list(range(1, plan.json()["part_count"] + 1))
    urls = requests.post(f"{api}/{upload_id}/parts", json={"part_numbers": numbers}, timeout=30)
    assert urls.status_code == 200, urls.text
    for n in numbers:
        part = data[(n - 1) * part_size:n * part_size]
        put = requests.put(via_relay(urls.json()["urls"][str(n)], relay), data=part, timeout=60)
        assert put.status_code == 200, put.text
    assert requests.get(f"{api}/{upload_id}", timeout=30).json()["parts"]
    done = requests.post(f"{api}/{upload_id}/complete", json={}, timeout=30)
    assert done.status_code == 200, done.text


def create_job(web: str, mode: str = "half-sbs") -> dict:
    resp = requests.post(f"{web}/api/jobs", json={"mode": mode, "title": "harness"}, timeout=30)
    assert resp.status_code == 201, resp.text
    return resp.json()


def form_upload(web: str, relay: str, data: bytes) -> str:
    """A job whose source goes up with the presigned POST form of POST /api/jobs
    (its policy's content-length-range checked by the relay, as S3 does)."""
    created = create_job(web)
    assert created["upload_method"] == "POST"
    upload = requests.post(via_relay(created["upload_url"], relay).split("?")[0],
                           data=created["upload_fields"], files={"file": ("clip.mp4", data)},
                           timeout=60)
    assert upload.status_code == 204, upload.text
    return created["job_id"]


def press(web: str, job_id: str, action: str) -> requests.Response:
    """Press a button of the job page (Retry, Delete) as a browser does: CSRF token + Origin."""
    session = requests.Session()
    page = session.get(f"{web}/jobs/{job_id}", timeout=30)
    assert page.status_code == 200, page.text
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert token, "the job page has no form"
    return session.post(f"{web}/jobs/{job_id}/{action}", data={"csrf_token": token[1]},
                        headers={"Origin": web}, timeout=30, allow_redirects=False)
