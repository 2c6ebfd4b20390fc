"""The web UI in a real headless Chromium, on the real local backend.

A person's path: create a job on the dashboard, upload a real video through the
page's own file control (XHR PUT to the signed /storage URL), watch the progress
bar move while a fake pipeline driver advances the job, then play the result
and download it under a file name carrying the layout tag. Screenshots of each
stage go to packages/web-ui/test-artifacts/.
"""

from __future__ import annotations

import threading
import time

import pytest
from shared_types.byte_size import size_words
from shared_types.keys import source_key
from shared_types.models import JobStatus
from stereo_media.testing.media import make_video

from .conftest import ARTIFACTS, VIEWPORT, drive_pipeline

BAR_STATE = """() => {
  const bar = document.getElementById('job-progress');
  const eta = document.getElementById('eta');
  return {bar: bar ? bar.value : null, eta: eta ? eta.textContent : '',
          player: Boolean(document.getElementById('player'))};
}"""

def create_job_in_page(page, base: str, title: str) -> str:
    page.goto(base + "/")
    page.fill("input[name=title]", title)
    page.select_option("#mode", "sbs")
    page.click("#create-job")
    page.wait_for_url("**/jobs/*")
    return page.url.rsplit("/", 1)[1]


@pytest.mark.parametrize("server", [{"max_upload_bytes": 1000}], indirect=True)
def test_a_file_over_the_limit_is_refused_before_uploading(server, browser, tmp_path):
    base, backend = server
    source = make_video(tmp_path / "big.mp4", seconds=1.0)
    page = browser.new_page()
    job_id = create_job_in_page(page, base, "Too big")
    page.set_input_files("#file", str(source))
    page.click("#upload-button")
    message = page.text_content("#upload-message")
    # the page words sizes as the server does (shared_types.byte_size)
    assert message == (f"That file is {size_words(source.stat().st_size)}; "
                       f"the limit is {size_words(1000)}."), message
    assert message.endswith("the limit is 1000 bytes."), message
    page.screenshot(path=ARTIFACTS / "5-too-large.png", full_page=True)
    assert not backend.input_storage.exists(source_key(job_id))
    assert page.eval_on_selector("#upload-progress", "e => e.value") == 0


def test_a_person_converts_a_video_in_the_browser(server, browser, tmp_path):
    from playwright.sync_api import Error as PlaywrightError

    base, backend = server
    source = make_video(tmp_path / "holiday.mp4", seconds=2.0)
    result = make_video(tmp_path / "final.mp4", seconds=2.0, size=(320, 96))
    stop = threading.Event()
    driver = None
    try:
        page = browser.new_context(accept_downloads=True).new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))

        page.goto(base + "/")
        page.screenshot(path=ARTIFACTS / "1-dashboard.png", full_page=True)
        job_id = create_job_in_page(page, base, "E2E clip")
        assert backend.jobs.get(job_id).status == JobStatus.CREATED

        driver = threading.Thread(target=drive_pipeline,
                                  args=(backend, job_id, result, stop), daemon=True)
        driver.start()
        page.set_input_files("#file", str(source))
        assert "Estimated conversion time" in page.text_content("#upload-estimate")
        page.screenshot(path=ARTIFACTS / "2-upload.png", full_page=True)
        page.click("#upload-button")
        page.wait_for_function(
            "() => document.getElementById('upload-message').textContent"
            ".startsWith('Uploaded')")
        assert page.eval_on_selector("#upload-progress", "e => e.value") == 100
        assert backend.input_storage.head(source_key(job_id)).size == source.stat().st_size

        seen: list[float] = []
        etas: set[str] = set()
        mid_shot = False
        deadline = time.monotonic() + 60
        while True:
            assert time.monotonic() < deadline, f"job never finished; bar values {seen}"
            try:
                state = page.evaluate(BAR_STATE)
            except PlaywrightError:  # the page reloads itself when the job is done
                continue
            if state["player"]:
                break
            value = state["bar"]
            etas.add(state["eta"])
            if value is not None and (not seen or value != seen[-1]):
                seen.append(value)
            if not mid_shot and value is not None and 5 < value < 90:
                page.screenshot(path=ARTIFACTS / "3-progress.png", full_page=True)
                mid_shot = True
            time.sleep(0.05)
        assert len(seen) >= 3, f"progress bar barely moved: {seen}"
        assert seen == sorted(seen), f"progress bar went backwards: {seen}"
        assert mid_shot
        assert any(e.endswith(" left") for e in etas), f"no ETA shown: {etas}"

        page.wait_for_function(
            "() => document.getElementById('player').readyState >= 2", timeout=20_000)
        page.screenshot(path=ARTIFACTS / "4-player.png", full_page=True)
        link = page.locator("#download")
        assert link.get_attribute("download") == "E2E_clip_LRF_Full_SBS.mp4"
        with page.expect_download() as info:
            link.click()
        download = info.value
        assert download.suggested_filename == "E2E_clip_LRF_Full_SBS.mp4"
        saved = ARTIFACTS / download.suggested_filename
        download.save_as(saved)
        assert saved.read_bytes() == result.read_bytes()
        assert errors == []
    finally:
        stop.set()
    if driver is not None:
        driver.join(timeout=10)


def test_the_dashboard_loads_without_a_console_error(server, browser):
    base, _ = server
    page = browser.new_page(viewport=VIEWPORT)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(base + "/", wait_until="networkidle")
    assert errors == []
