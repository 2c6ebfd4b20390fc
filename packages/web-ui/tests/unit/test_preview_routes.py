"""Preview before converting all, from the page (forms) and the API."""

import json

from shared_types.keys import final_key, source_key
from shared_types.models import ConversionParams, JobStatus, JobUpdate
from shared_types.preview import parse_chunking_body

from .conftest import add_job


def held(backend, *, read=True):
    job = add_job(backend, status=JobStatus.AWAITING_CONFIRMATION, title="Film",
                  params=ConversionParams(divergence=2.0, convergence=0.5, crf=23))
    backend.input_storage.put_bytes(source_key(job.job_id), b"video")
    if read:
        job = backend.jobs.update(job.job_id, JobUpdate(thumbnails=12, source_duration_s=120.0,
                                                        source_etag="e1"))
    return job


def sent(backend):
    return [parse_chunking_body(m.body)[0] for m in backend.chunking_queue.receive(max_messages=50)]


def test_the_form_creates_a_held_job_that_takes_its_upload(client, backend, token):
    r = client.post("/jobs", data={"csrf_token": token, "mode": "sbs", "preview": "true"},
                    follow_redirects=False)
    job = backend.jobs.get(r.headers["location"].rsplit("/", 1)[1])
    assert job.status == JobStatus.AWAITING_CONFIRMATION
    page = client.get(f"/jobs/{job.job_id}").text
    assert 'id="upload-form"' in page and 'id="preview"' not in page
    assert 'id="preview-reading"' in page  # polls for the strip once the upload is done
    started = client.post(f"/api/jobs/{job.job_id}/uploads",
                          json={"file_name": "film.mp4", "size": 1000})
    assert started.status_code == 201, started.text


def test_a_held_job_being_read_says_so_and_a_read_one_shows_its_strip(client, backend):
    job = held(backend, read=False)  # uploaded, strip coming
    page = client.get(f"/jobs/{job.job_id}").text
    assert 'id="preview-reading"' in page and 'id="upload-form"' not in page
    assert "making its thumbnails" in page
    job = held(backend)
    page = client.get(f"/jobs/{job.job_id}").text
    assert page.count("/thumbs/") == 12 and 'id="preview-at"' in page
    assert 'max="119.9"' in page and 'id="convert-whole"' in page


def test_the_api_starts_a_clip_with_the_chosen_settings_and_keeps_the_others(client, backend):
    job = held(backend)
    r = client.post(f"/api/jobs/{job.job_id}/preview",
                    json={"start_s": 115.0, "divergence": 4.5, "convergence": 0.1})
    assert r.status_code == 201, r.text
    clip = r.json()
    assert (clip["parent_job_id"], clip["clip_start_s"], clip["clip_duration_s"]) == (
        job.job_id, 110.0, 10.0)
    assert (clip["params"]["divergence"], clip["params"]["convergence"],
            clip["params"]["crf"]) == (4.5, 0.1, 23)
    [message] = sent(backend)
    assert message.clip_job_id == clip["job_id"]
    assert backend.jobs.get(job.job_id).preview_job_id == clip["job_id"]
    # clips live on their parent's page, not in the job lists
    assert clip["job_id"] not in {i["job_id"] for i in client.get("/api/jobs").json()["items"]}


def test_a_finished_clip_plays_on_the_parent_page(client, backend):
    job = held(backend)
    clip = client.post(f"/api/jobs/{job.job_id}/preview",
                       json={"start_s": 3.0, "divergence": 3.0, "convergence": 0.4}).json()
    assert 'id="preview-result" hidden' in client.get(f"/jobs/{job.job_id}").text
    backend.output_storage.put_bytes(final_key(clip["job_id"]), b"mp4")
    backend.jobs.update(clip["job_id"], JobUpdate(status=JobStatus.COMPLETED,
                                                  final_key=final_key(clip["job_id"])))
    page = client.get(f"/jobs/{job.job_id}").text
    assert 'id="preview-result" hidden' not in page
    assert 'id="preview-player"' in page and final_key(clip["job_id"]).split("/")[-1] in page
    assert 'value="3.0"' in page and 'value="0.4"' in page  # the clip's settings come back


def test_the_forms_preview_then_convert_the_whole_video(client, backend, token):
    job = held(backend)
    r = client.post(f"/jobs/{job.job_id}/preview", follow_redirects=False, data={
        "csrf_token": token, "start_s": "30", "divergence": "5", "convergence": "0.3"})
    assert r.status_code == 303
    [clip_message] = sent(backend)
    assert backend.jobs.get(clip_message.clip_job_id).clip_start_s == 30.0
    r = client.post(f"/jobs/{job.job_id}/convert", follow_redirects=False, data={
        "csrf_token": token, "divergence": "5", "convergence": "0.3"})
    assert r.status_code == 303
    whole = backend.jobs.get(job.job_id)
    assert (whole.status, whole.params.divergence, whole.params.convergence,
            whole.params.crf) == (JobStatus.CREATED, 5.0, 0.3, 23)
    [record] = sent(backend)
    assert record.key == source_key(job.job_id)


def test_bad_requests_change_nothing(client, backend, token):
    job = held(backend)
    bad = client.post(f"/api/jobs/{job.job_id}/preview",
                      json={"start_s": -1, "divergence": 11, "convergence": 0.5})
    assert bad.status_code == 422
    no_token = client.post(f"/jobs/{job.job_id}/convert", follow_redirects=False,
                           data={"divergence": "2", "convergence": "0.5"})
    assert no_token.status_code == 403
    assert client.post(f"/api/jobs/{job.job_id}/convert",
                       json={"divergence": 2, "convergence": 0.5}).status_code == 200
    again = client.post(f"/api/jobs/{job.job_id}/convert", json={"divergence": 2,
                                                                  "convergence": 0.5})
    assert again.status_code == 409 and "already" in json.loads(again.text)["detail"]
    late = client.post(f"/api/jobs/{job.job_id}/preview",
                       json={"start_s": 1, "divergence": 2, "convergence": 0.5})
    assert late.status_code == 409
    assert len(sent(backend)) == 1  # only the confirmation's source event


def test_a_new_preview_replaces_the_last_and_deleting_the_video_drops_its_clip(client, backend,
                                                                              token):
    job = held(backend)
    body = {"start_s": 3.0, "divergence": 3.0, "convergence": 0.4}
    first = client.post(f"/api/jobs/{job.job_id}/preview", json=body).json()["job_id"]
    second = client.post(f"/api/jobs/{job.job_id}/preview", json=body).json()["job_id"]
    assert backend.jobs.get(first).status == JobStatus.CANCELLED  # still converting: stopped
    backend.jobs.update(second, JobUpdate(status=JobStatus.COMPLETED))
    backend.output_storage.put_bytes(final_key(second), b"mp4")
    third = client.post(f"/api/jobs/{job.job_id}/preview", json=body).json()["job_id"]
    assert backend.jobs.get(second) is None  # finished: deleted with its files
    assert not backend.output_storage.exists(final_key(second))
    client.post(f"/jobs/{job.job_id}/delete", data={"csrf_token": token})
    assert backend.jobs.get(job.job_id) is None
    assert backend.jobs.get(third).status == JobStatus.CANCELLED


def test_cancelling_a_held_video_stops_its_preview(client, backend):
    job = held(backend)
    clip = client.post(f"/api/jobs/{job.job_id}/preview",
                       json={"start_s": 1.0, "divergence": 2, "convergence": 0.5}).json()
    assert client.post(f"/api/jobs/{job.job_id}/cancel", json={}).json()["status"] == "cancelled"
    assert backend.jobs.get(clip["job_id"]).status == JobStatus.CANCELLED
    assert not backend.input_storage.exists(source_key(job.job_id))


def test_a_control_iw3_lacks_is_refused_in_a_preview_of_an_iw3_job(client, backend):
    job = held(backend)
    backend.jobs.update(job.job_id, JobUpdate(params=ConversionParams(depth_model="iw3")))
    asked = {"start_s": 1, "divergence": 2, "convergence": 0.5, "floating_window": True}
    refused = client.post(f"/api/jobs/{job.job_id}/preview", json=asked)
    assert refused.status_code == 400
    assert "floating window is not available with the iw3 depth" in refused.text
    assert sent(backend) == []  # no clip asked for
    # negative control: the same asked of a job on the engine's own depth starts a clip
    other = held(backend)
    assert client.post(f"/api/jobs/{other.job_id}/preview", json=asked).status_code == 201
