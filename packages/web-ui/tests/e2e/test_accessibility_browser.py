"""The pages without a mouse and on a narrow phone screen, in a real Chromium."""

from __future__ import annotations

import os
import time

import pytest
from shared_types.keys import source_key
from shared_types.models import (
    MIN_PART_BYTES,
    Job,
    JobStatus,
    JobUpdate,
    OutputMode,
    new_job_id,
    now,
)

from .conftest import VIEWPORT
from .test_upload_browser import only_job

PHONE = {"width": 360, "height": 740}
ACTIVE_ID = "() => document.activeElement && document.activeElement.id"


def tab_to(page, element_id: str, *, max_tabs: int = 40) -> None:
    """Press Tab until the element with ``element_id`` has the focus."""
    for _ in range(max_tabs):
        page.keyboard.press("Tab")
        if page.evaluate(ACTIVE_ID) == element_id:
            return
    raise AssertionError(f"#{element_id} is never reached with the Tab key")


def first_chooser(page, choosers: list, timeout_s: float = 30):
    """The first file chooser the page opened (``choosers`` fills from the
    page's ``filechooser`` events)."""
    deadline = time.monotonic() + timeout_s
    while not choosers:
        assert time.monotonic() < deadline, "the file chooser never opened"
        page.wait_for_timeout(20)  # lets Playwright deliver the page's events
    return choosers[0]


def test_a_keyboard_user_picks_a_video_in_the_drop_zone(server, browser, tmp_path):
    base, backend = server
    source = tmp_path / "walk.mp4"
    source.write_bytes(os.urandom(MIN_PART_BYTES // 2))
    page = browser.new_page(viewport=VIEWPORT)
    # Listening from the start turns on the interception of file choosers
    # before any opens (expect_file_chooser turns it on too late, at times).
    choosers = []
    page.on("filechooser", lambda chooser: choosers.append(chooser))
    page.goto(base + "/")
    tab_to(page, "source-file")
    assert page.eval_on_selector(
        "#drop-zone .pick", "e => getComputedStyle(e).outlineStyle") != "none", \
        "the focused file picker shows the focus"
    page.keyboard.press("Enter")
    first_chooser(page, choosers).set_files(str(source))
    page.wait_for_url("**/jobs/*", timeout=60_000)
    job = only_job(backend)
    assert backend.input_storage.get_bytes(source_key(job.job_id)) == source.read_bytes()


PAGE_AND_SCREEN_WIDTH = """() => [document.documentElement.scrollWidth,
                                  document.documentElement.clientWidth]"""
# A camera's file name: one word to a browser (underscores do not break lines).
CAMERA_NAME = "VID_20240712_183455_summer_holiday_by_the_lake_with_friends"


def add_finished_jobs(backend, count: int) -> list[Job]:
    jobs = []
    for i in range(count):
        job = Job(job_id=new_job_id(), mode=OutputMode.HALF_SBS, title=f"{CAMERA_NAME}_{i}")
        backend.jobs.create(job)
        jobs.append(backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.COMPLETED,
                                                              completed_at=now())))
    return jobs


@pytest.mark.parametrize("path", ["/", "/jobs", "/jobs/{job_id}", "/models"])
def test_on_a_phone_no_page_scrolls_sideways(server, browser, path):
    base, backend = server
    jobs = add_finished_jobs(backend, 3)
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(base + path.format(job_id=jobs[0].job_id))
    page_width, screen_width = page.evaluate(PAGE_AND_SCREEN_WIDTH)
    assert page_width <= screen_width, "the page scrolls sideways"
    context.close()


UNNAMED = """() => [...document.querySelectorAll('input, select, textarea, progress, button')]
  .filter(e => e.type !== 'hidden')
  .filter(e => !((e.labels && e.labels.length) || e.getAttribute('aria-label')
                 || e.getAttribute('aria-labelledby') || e.textContent.trim()))
  .map(e => e.outerHTML.slice(0, 80))"""


def test_every_control_and_progress_bar_has_a_name(server, browser):
    base, backend = server
    job = Job(job_id=new_job_id(), mode=OutputMode.HALF_SBS, title="Converting")
    backend.jobs.create(job)
    backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.CHUNKING_COMPLETE,
                                              total_segments=2))
    page = browser.new_page(viewport=VIEWPORT)
    for path in ("/", f"/jobs/{job.job_id}"):
        page.goto(base + path)
        assert page.evaluate(UNNAMED) == [], path
