import pytest
from shared_types.keys import final_key, poster_key
from shared_types.models import AnaglyphMethod, JobError, JobStatus, OutputMode, now

from .conftest import add_job

MISSING = "a3bb189e-8bf9-3888-9912-ace4e6543002"


def test_dashboard_shows_the_create_form_and_recent_jobs(client, backend):
    job = add_job(backend, title="Recent one")
    r = client.get("/")
    assert r.status_code == 200
    assert r.template.name == "index.html"
    assert [j.job_id for j in r.context["listing"].in_progress] == [job.job_id]
    assert 'id="create-form"' in r.text
    assert "Recent one" in r.text
    assert r.context["csrf_token"] in r.text


def test_job_list_shows_each_group(client, backend):
    add_job(backend, status=JobStatus.FAILED, title="Broken")
    add_job(backend, status=JobStatus.COMPLETED, completed_at=1.0, title="Finished")
    r = client.get("/jobs")
    assert r.template.name == "jobs.html"
    assert [j.title for j in r.context["listing"].failed] == ["Broken"]
    assert [j.title for j in r.context["listing"].completed] == ["Finished"]


def test_creating_a_job_redirects_to_its_page(client, backend, token):
    r = client.post("/jobs", data={
        "mode": "anaglyph", "anaglyph_method": "gray", "divergence": "3.5",
        "convergence": "0.2", "depth_model": "heuristic", "title": "Cats",
        "csrf_token": token,
    }, follow_redirects=False)
    assert r.status_code == 303
    job_id = r.headers["location"].rsplit("/", 1)[1]
    job = backend.jobs.get(job_id)
    assert job.mode == OutputMode.ANAGLYPH
    assert job.title == "Cats"
    assert job.params.anaglyph_method == AnaglyphMethod.GRAY
    assert job.params.divergence == 3.5
    assert job.container == "mp4"  # the default file format


def test_the_form_picks_the_file_format(client, backend, token):
    r = client.post("/jobs", data={"mode": "sbs", "container": "mkv", "csrf_token": token},
                    follow_redirects=False)
    job = backend.jobs.get(r.headers["location"].rsplit("/", 1)[1])
    assert job.container == "mkv"
    r = client.post("/jobs", data={"mode": "sbs", "container": "avi", "csrf_token": token},
                    follow_redirects=False)
    assert r.status_code == 400


def test_out_of_range_form_fields_get_a_readable_400(client, backend, token):
    r = client.post("/jobs", data={"mode": "sbs", "divergence": "99", "csrf_token": token})
    assert r.status_code == 400
    assert r.template.name == "error.html"
    assert any(d.startswith("divergence:") for d in r.context["details"])
    assert backend.jobs.list_in_progress() == []


def test_an_overlong_title_is_rejected(client, token):
    r = client.post("/jobs", data={"mode": "sbs", "title": "t" * 201, "csrf_token": token})
    assert r.status_code == 400


def test_a_created_job_page_offers_a_resumable_upload(client, backend, settings):
    job = add_job(backend)
    r = client.get(f"/jobs/{job.job_id}")
    assert r.template.name == "job.html"
    assert 'id="upload-form"' in r.text
    assert "/static/uploader.js" in r.text
    assert f'data-max-bytes="{settings.max_upload_bytes}"' in r.text
    assert f'data-events-url="/jobs/{job.job_id}/events"' in r.text


def test_both_file_pickers_offer_every_source_type_the_stack_reads(client, backend):
    from web_ui.templating import SOURCE_FILE_TYPES

    assert ".m2v" in SOURCE_FILE_TYPES and ".h264" in SOURCE_FILE_TYPES
    for page in ("/", f"/jobs/{add_job(backend).job_id}"):
        assert f'accept="{SOURCE_FILE_TYPES}"' in client.get(page).text


def test_a_running_job_page_shows_progress_and_no_upload(client, backend):
    job = add_job(backend, status=JobStatus.CHUNKING_COMPLETE, total_segments=3)
    r = client.get(f"/jobs/{job.job_id}")
    assert 'id="upload-form"' not in r.text
    assert r.context["progress"].segments_total == 3
    assert r.text.count('class="cell pending"') == 3


def test_a_completed_job_page_says_what_its_file_could_not_hold(client, backend):
    job = add_job(backend, status=JobStatus.COMPLETED, final_key=None,
                  left_out=["Blu-ray (PGS) subtitles", "GoPro telemetry (gpmd)"])
    r = client.get(f"/jobs/{job.job_id}")
    assert ('<p id="left-out" class="meta">Not in this file: Blu-ray (PGS) subtitles, '
            "GoPro telemetry (gpmd) (the MP4 format cannot hold them).</p>") in r.text
    angles = add_job(backend, status=JobStatus.COMPLETED, final_key=None,
                     left_out=["DVB subtitles", "video track 2 (only the first is made 3D)"])
    assert ("Not in this file: DVB subtitles (the MP4 format cannot hold it); video track 2 "
            "(only the first is made 3D).</p>") in client.get(f"/jobs/{angles.job_id}").text
    everything = add_job(backend, status=JobStatus.COMPLETED, final_key=None)
    assert 'id="left-out"' not in client.get(f"/jobs/{everything.job_id}").text
    api = client.get(f"/api/jobs/{job.job_id}").json()
    assert api["left_out"] == ["Blu-ray (PGS) subtitles", "GoPro telemetry (gpmd)"]


def test_a_completed_job_page_has_player_and_tagged_download(client, backend):
    job = add_job(backend, status=JobStatus.COMPLETED, mode=OutputMode.HALF_SBS,
                  title="Beach", final_key=None)
    r = client.get(f"/jobs/{job.job_id}")
    playback = r.context["playback"]
    assert playback.download_name == "Beach_Half_SBS.mp4"
    assert 'id="player"' in r.text
    assert 'download="Beach_Half_SBS.mp4"' in r.text
    assert "data-events-url" not in r.text
    assert final_key(job.job_id) in playback.url


def test_a_job_that_failed_for_its_input_shows_the_reason_and_no_retry(client, backend):
    err = JobError(code="invalid_media", message="The file is not a video.", stage="chunking")
    job = add_job(backend, status=JobStatus.FAILED, error=err)
    r = client.get(f"/jobs/{job.job_id}")
    assert "The file is not a video." in r.text
    assert "/retry" not in r.text
    assert 'id="retry"' not in r.text
    assert "would fail the same way" in r.text


@pytest.mark.parametrize("code", ["retries_exhausted", "segment_gave_up", "stalled",
                                  "inference_failed"])
def test_a_job_that_failed_transiently_shows_the_reason_and_a_retry_button(client, backend,
                                                                           code):
    err = JobError(code=code, message="The worker stopped answering.", stage="inference")
    job = add_job(backend, status=JobStatus.FAILED, error=err)
    r = client.get(f"/jobs/{job.job_id}")
    assert "The worker stopped answering." in r.text
    assert f'action="/jobs/{job.job_id}/retry"' in r.text
    assert 'id="no-retry"' not in r.text


def test_user_text_is_escaped(client, backend):
    job = add_job(backend, title='<script>alert("x")</script>')
    r = client.get(f"/jobs/{job.job_id}")
    assert "<script>alert" not in r.text
    assert "&lt;script&gt;" in r.text


def test_unknown_and_malformed_job_ids_get_a_404_page(client):
    for path in (f"/jobs/{MISSING}", "/jobs/not-a-uuid", "/jobs/..%2F..%2Fetc"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert r.template.name == "error.html"


def test_play_redirects_to_a_presigned_url(client, backend):
    job = add_job(backend, status=JobStatus.COMPLETED)
    r = client.get(f"/jobs/{job.job_id}/play", follow_redirects=False)
    assert r.status_code == 307
    assert r.headers["location"].startswith("memory://output/jobs/")


def test_play_of_an_unfinished_job_is_a_conflict(client, backend):
    job = add_job(backend, status=JobStatus.CHUNKING_IN_PROGRESS)
    assert client.get(f"/jobs/{job.job_id}/play", follow_redirects=False).status_code == 409


def test_retry_puts_a_failed_job_back_to_work(client, backend, token):
    job = add_job(backend, status=JobStatus.FAILED)
    r = client.post(f"/jobs/{job.job_id}/retry", data={"csrf_token": token},
                    follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == f"/jobs/{job.job_id}"
    assert backend.jobs.get(job.job_id).status == JobStatus.CREATED


@pytest.mark.parametrize("code", ["invalid_media", "model_unavailable"])
def test_retrying_a_job_that_failed_for_its_input_is_refused_with_the_reason(client, backend,
                                                                             token, code):
    err = JobError(code=code, message="The file is not a video.", stage="chunking")
    job = add_job(backend, status=JobStatus.FAILED, error=err)
    r = client.post(f"/jobs/{job.job_id}/retry", data={"csrf_token": token})
    assert r.status_code == 409
    assert "would fail the same way" in r.context["message"]
    assert "Start a new conversion" in r.context["message"]
    assert backend.jobs.get(job.job_id).status == JobStatus.FAILED


def test_retrying_a_running_job_is_refused(client, backend, token):
    job = add_job(backend, status=JobStatus.CHUNKING_IN_PROGRESS)
    r = client.post(f"/jobs/{job.job_id}/retry", data={"csrf_token": token})
    assert r.status_code == 409
    assert r.context["message"] == "Only a failed job can be retried."


def test_delete_removes_the_job_and_returns_to_the_list(client, backend, token):
    job = add_job(backend)
    r = client.post(f"/jobs/{job.job_id}/delete", data={"csrf_token": token},
                    follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == "/jobs"
    assert backend.jobs.get(job.job_id) is None


def test_static_files_are_served_locally(client):
    r = client.get("/static/app.js")
    assert r.status_code == 200
    assert "EventSource" in r.text
    assert client.get("/static/app.css").status_code == 200


def test_healthz(client):
    assert client.get("/healthz").json() == {"status": "ok"}


def test_job_lists_show_a_poster_frame_once_the_source_arrived(client, backend):
    waiting = add_job(backend, title="Waiting")
    running = add_job(backend, status=JobStatus.CHUNKING_COMPLETE, total_segments=2)
    for path in ("/", "/jobs"):
        r = client.get(path)
        assert f'src="/jobs/{running.job_id}/poster"' in r.text
        assert f"/jobs/{waiting.job_id}/poster" not in r.text


def test_a_poster_that_was_made_redirects_to_it(client, backend):
    job = add_job(backend, status=JobStatus.COMPLETED)
    backend.output_storage.put_bytes(poster_key(job.job_id), b"jpeg")
    r = client.get(f"/jobs/{job.job_id}/poster", follow_redirects=False)
    assert r.status_code == 307
    assert r.headers["location"].startswith(f"memory://output/jobs/{job.job_id}/poster.jpg")


def test_a_poster_that_was_never_made_is_a_placeholder_not_a_404(client, backend):
    err = JobError(code="invalid_media", message="The file is not a video.", stage="chunking")
    job = add_job(backend, status=JobStatus.FAILED, error=err)
    r = client.get(f"/jobs/{job.job_id}/poster")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("image/svg+xml")
    assert "no preview" in r.text


def test_the_form_asks_for_sdr_and_3d_subtitles(client, backend, token):
    r = client.post("/jobs", data={"mode": "sbs", "dynamic_range": "sdr", "subtitles_3d": "true",
                                   "csrf_token": token}, follow_redirects=False)
    job = backend.jobs.get(r.headers["location"].rsplit("/", 1)[1])
    assert job.params.dynamic_range == "sdr"
    assert job.params.subtitles_3d is True
    r = client.post("/jobs", data={"mode": "sbs", "csrf_token": token}, follow_redirects=False)
    job = backend.jobs.get(r.headers["location"].rsplit("/", 1)[1])
    assert (job.params.dynamic_range, job.params.subtitles_3d) == ("keep", False)
    r = client.post("/jobs", data={"mode": "sbs", "dynamic_range": "hdr12", "csrf_token": token})
    assert r.status_code == 400


def test_dashboard_recent_jobs_show_a_new_result_among_many_older_failures(client, backend):
    for i in range(12):
        add_job(backend, status=JobStatus.CANCELLED, title=f"Dropped {i}")
    add_job(backend, status=JobStatus.COMPLETED, completed_at=now() + 1, title="Just finished")
    converting = add_job(backend, title="Converting")
    page = client.get("/").text
    assert page.count('<tr class="status-') == 10
    assert converting.job_id in page
    assert "Just finished" in page
    assert page.index("Converting") < page.index("Just finished") < page.index("Dropped 11")


def test_the_form_offers_the_new_layouts_and_codecs_and_the_job_keeps_them(
        client, backend, token):
    page = client.get("/").text
    for value in ("vr180", "rgbd", "half-rgbd", "x265", "av1"):
        assert f'value="{value}"' in page
    r = client.post("/jobs", data={"mode": "half-sbs", "codec": "av1", "cross_eyed": "true",
                                   "csrf_token": token}, follow_redirects=False)
    assert r.status_code == 303
    job = backend.jobs.get(r.headers["location"].rsplit("/", 1)[1])
    assert (job.params.codec.value, job.params.cross_eyed) == ("av1", True)
    r = client.post("/jobs", data={"mode": "vr180", "codec": "x265", "csrf_token": token},
                    follow_redirects=False)
    assert r.status_code == 303


def test_cross_eyed_top_bottom_is_refused_on_the_form(client, backend, token):
    r = client.post("/jobs", data={"mode": "tb", "cross_eyed": "true", "csrf_token": token},
                    follow_redirects=False)
    assert r.status_code == 400  # the form's invalid-field page, as for other fields
    assert "side-by-side" in r.text
    assert backend.jobs.list_in_progress() == []  # no job made


def test_the_form_carries_the_part_to_convert(client, backend, token):
    r = client.post("/jobs", data={"mode": "sbs", "start_s": "12.5", "end_s": "40",
                                   "csrf_token": token}, follow_redirects=False)
    job = backend.jobs.get(r.headers["location"].rsplit("/", 1)[1])
    assert (job.params.start_s, job.params.end_s) == (12.5, 40.0)  # the chunker cuts these
    # left empty, as a browser sends the untouched fields: the whole video
    r = client.post("/jobs", data={"mode": "sbs", "start_s": "", "end_s": "",
                                   "csrf_token": token}, follow_redirects=False)
    job = backend.jobs.get(r.headers["location"].rsplit("/", 1)[1])
    assert (job.params.start_s, job.params.end_s) == (None, None)


def test_an_end_before_the_start_is_refused_on_the_form_with_the_reason(client, backend, token):
    before = len(backend.jobs.list_in_progress())
    r = client.post("/jobs", data={"mode": "sbs", "start_s": "30", "end_s": "10",
                                   "csrf_token": token})
    assert r.status_code == 400
    assert any("must come after the start" in d for d in r.context["details"])
    assert len(backend.jobs.list_in_progress()) == before  # nothing created

