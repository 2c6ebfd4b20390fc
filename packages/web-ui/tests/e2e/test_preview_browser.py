"""Preview before converting all, in a real Chromium: clips made from the page
(the clip's conversion is stood in for by the test)."""

from __future__ import annotations

import time

from shared_types.keys import final_key, source_key
from shared_types.models import ConversionParams, Job, JobStatus, JobUpdate, OutputMode, new_job_id

from .conftest import VIEWPORT
from .test_viewer_browser import make_sbs

META = "document.getElementById('preview-meta').textContent"


def held_job(backend) -> Job:
    job = Job(job_id=new_job_id(), mode=OutputMode.SBS, title="Film",
              params=ConversionParams(divergence=2.0, convergence=0.5))
    backend.jobs.create(job)
    backend.input_storage.put_bytes(source_key(job.job_id), b"video")
    return backend.jobs.update(job.job_id, JobUpdate(
        status=JobStatus.AWAITING_CONFIRMATION, thumbnails=12, source_duration_s=30.0,
        source_etag="e1"))


def finish_next_clip(backend, job_id: str, previous: str | None, video, timeout_s=60) -> str:
    """Wait for the page to start a clip other than ``previous``; convert it (a
    stand-in: its final video is ``video``)."""
    deadline = time.monotonic() + timeout_s
    while (clip_id := backend.jobs.get(job_id).preview_job_id) in (None, previous):
        assert time.monotonic() < deadline, "the page started no preview"
        time.sleep(0.02)
    backend.output_storage.put_file(final_key(clip_id), video, content_type="video/mp4")
    backend.jobs.update(clip_id, JobUpdate(status=JobStatus.COMPLETED,
                                           final_key=final_key(clip_id)))
    return clip_id


def test_each_preview_says_the_settings_it_was_made_with(server, browser, tmp_path):
    base, backend = server
    video = make_sbs(tmp_path / "clip.mp4")
    job = held_job(backend)
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(f"{base}/jobs/{job.job_id}")

    page.click("#preview-button")
    first = finish_next_clip(backend, job.job_id, None, video)
    page.wait_for_selector("#preview-result:not([hidden])")
    page.wait_for_function(f"() => {META}.includes('strength 2.0 · screen plane 0.5')")

    page.fill("#preview-divergence", "3.5")
    page.fill("#preview-convergence", "0.25")
    page.click("#preview-button")
    finish_next_clip(backend, job.job_id, first, video)
    page.wait_for_function("() => /Preview ready/.test("
                           "document.getElementById('preview-status').textContent)")
    assert "strength 3.5 · screen plane 0.25" in page.evaluate(f"() => {META}")
