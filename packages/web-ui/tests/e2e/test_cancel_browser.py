"""Cancel mid-conversion in a real Chromium: the job ends cancelled, its files
are freed and the stand-in worker stops."""

from __future__ import annotations

import threading

from shared_types.keys import final_key, segment_prefix, source_key
from shared_types.models import JobStatus
from stereo_media.testing.media import make_video

from .conftest import VIEWPORT, drive_pipeline, screenshot


def test_cancel_mid_conversion_ends_the_job_and_frees_its_files(server, browser, tmp_path):
    base, backend = server
    final = make_video(tmp_path / "final.mp4")
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(base + "/")
    page.fill("input[name=title]", "Long film")
    page.click("#create-job")
    page.wait_for_url("**/jobs/*")
    job_id = page.url.rsplit("/", 1)[1]
    stop = threading.Event()
    driver = threading.Thread(target=drive_pipeline, args=(backend, job_id, final, stop),
                              daemon=True)
    driver.start()
    try:
        page.set_input_files("#file", str(make_video(tmp_path / "film.mp4", seconds=2)))
        page.click("#upload-button")
        page.wait_for_function(
            "() => document.getElementById('frames').textContent.includes('frames')",
            timeout=60_000)
        assert backend.jobs.get(job_id).status == JobStatus.CHUNKING_COMPLETE
        screenshot(page, "job-converting", "#progress")

        page.click("#cancel-job")
        page.wait_for_selector("#cancelled", timeout=30_000)
        screenshot(page, "job-cancelled", "#cancelled")
        driver.join(timeout=30)
        assert not driver.is_alive(), "the worker kept going after the cancel"
        job = backend.jobs.get(job_id)
        assert job.status == JobStatus.CANCELLED
        assert not backend.input_storage.exists(source_key(job_id))
        assert list(backend.input_storage.list(segment_prefix(job_id))) == []
        assert not backend.output_storage.exists(final_key(job_id))
        assert page.text_content("#status") == "cancelled"
    finally:
        stop.set()
