"""Drop and go, resumable uploads and the no-JavaScript flow in a real Chromium.

The app runs behind :class:`StorageCounter`, an ASGI layer on the storage side
that counts the bytes every ``/storage`` part PUT delivers (and paces them, so
a reload lands mid-upload). Screenshots go to docs/screenshots/.
"""

from __future__ import annotations

import asyncio
import base64
import os
import threading
import time
from urllib.parse import parse_qs

import pytest
from shared_types.keys import source_key
from shared_types.models import MIN_PART_BYTES, JobStatus
from shared_types.testing.serving import free_port, serve_in_thread

from web_ui.app import create_app

from .conftest import VIEWPORT, drive_pipeline, screenshot, web_settings

PACE_S = 0.03  # per received body chunk (<= 64 KiB): over 2 s per 5 MiB part
STATS = "() => document.getElementById('upload-stats').textContent"
DROP = """([data, name]) => {
  const bin = atob(data);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) { bytes[i] = bin.charCodeAt(i); }
  const dt = new DataTransfer();
  dt.items.add(new File([bytes], name, {type: 'video/mp4', lastModified: 1700000000000}));
  const zone = document.getElementById('drop-zone');
  const init = {dataTransfer: dt, bubbles: true, cancelable: true};
  zone.dispatchEvent(new DragEvent('dragover', init));
  zone.dispatchEvent(new DragEvent('drop', init));
}"""

# Every text #upload-message shows, kept in the tab's sessionStorage so it
# outlives navigations: a short-lived line ("Resuming: ...", replaced by a
# retry's) is still seen, and a failure lists everything the page said.
RECORD_STATUS = """document.addEventListener('DOMContentLoaded', () => {
  const el = document.getElementById('upload-message');
  if (!el) { return; }
  new MutationObserver((records) => {
    const said = JSON.parse(sessionStorage.getItem('said') || '[]');
    records.forEach((r) => r.addedNodes.forEach((n) => said.push(n.textContent)));
    sessionStorage.setItem('said', JSON.stringify(said));
  }).observe(el, {childList: true});
});"""
SAID = "() => JSON.parse(sessionStorage.getItem('said') || '[]')"


class StorageCounter:
    """Counts, per part number, the body bytes each ``/storage`` PUT delivered
    and the status storage answered."""

    def __init__(self, app) -> None:
        self.app = app
        self.puts: list[tuple[int, int, int | None]] = []  # (part, bytes, status)
        self.in_flight = 0  # PUTs storage is still handling
        self.lock = threading.Lock()

    def stored_parts(self) -> set[int]:
        with self.lock:
            return {part for part, _, status in self.puts if status == 200}

    def settled(self) -> bool:
        """No PUT is being handled (a part a closed page sent may still be storing)."""
        with self.lock:
            return self.in_flight == 0

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] != "PUT" \
                or not scope["path"].startswith("/storage/"):
            await self.app(scope, receive, send)
            return
        part = int(parse_qs(scope["query_string"].decode()).get("part", ["0"])[0])
        received, status = 0, {}
        with self.lock:
            self.in_flight += 1

        async def counting_receive():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                await asyncio.sleep(PACE_S)
            return message

        async def capturing_send(message):
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            await self.app(scope, counting_receive, capturing_send)
        finally:
            with self.lock:
                self.puts.append((part, received, status.get("code")))
                self.in_flight -= 1


@pytest.fixture
def counted(tmp_path):
    """The app (5 MiB parts) behind a StorageCounter: (base URL, backend, counter)."""
    port = free_port()
    app = create_app(web_settings(tmp_path, port, upload_part_bytes=MIN_PART_BYTES))
    counter = StorageCounter(app)
    with serve_in_thread(counter, port) as base:
        yield base, app.state.backend, counter


def wait_until(condition, what: str, timeout_s: float = 60):
    deadline = time.monotonic() + timeout_s
    while not (value := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)
    return value


def only_job(backend):
    jobs = backend.jobs.list_in_progress(limit=10) + \
        backend.jobs.list_by_status(JobStatus.COMPLETED, limit=10).items
    assert len(jobs) == 1, [j.job_id for j in jobs]
    return jobs[0]


def test_a_dropped_file_becomes_a_job_with_the_chosen_settings_and_uploads_at_once(
        counted, browser, tmp_path):
    base, backend, counter = counted
    data = os.urandom(2 * MIN_PART_BYTES + 123_457)
    final = tmp_path / "final.mp4"
    final.write_bytes(b"converted")
    stop = threading.Event()
    page = browser.new_page(viewport=VIEWPORT)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(base + "/")
        assert page.is_visible("#drop-zone")
        page.select_option("#mode", "sbs")
        page.fill("input[name=divergence]", "3.5")
        screenshot(page, "dashboard-drop-zone", "#drop-zone")
        page.evaluate(DROP, [base64.b64encode(data).decode(), "holiday.mp4"])

        stats = wait_until(lambda: "left" in page.evaluate(STATS) and page.eval_on_selector(
            "#upload-progress", "e => e.value < 100") and page.evaluate(STATS),
            "upload speed and time left, mid-upload")
        assert "/s" in stats, stats
        screenshot(page, "dashboard-uploading", "#upload-panel")
        page.wait_for_url("**/jobs/*", timeout=60_000)

        job = only_job(backend)
        assert page.url.endswith(f"/jobs/{job.job_id}")
        assert (job.title, job.mode, job.params.divergence) == ("holiday", "sbs", 3.5)
        assert backend.input_storage.get_bytes(source_key(job.job_id)) == data
        assert sorted(counter.stored_parts()) == [1, 2, 3]

        driver = threading.Thread(target=drive_pipeline,
                                  args=(backend, job.job_id, final, stop), daemon=True)
        driver.start()
        page.wait_for_selector("#download", timeout=60_000)
        assert page.get_attribute("#download", "download") == "holiday_LRF_Full_SBS.mp4"
        assert errors == []
    finally:
        stop.set()


def _six_part_upload_begun(counted, browser, source):
    """A page uploading ``source`` (six parts of random bytes), once its first part
    is stored; every status line it shows is kept (``SAID``), across reloads."""
    base, _, counter = counted
    source.write_bytes(os.urandom(5 * MIN_PART_BYTES + 4321))
    page = browser.new_page(viewport=VIEWPORT)
    page.add_init_script(RECORD_STATUS)
    page.goto(base + "/")
    page.set_input_files("#source-file", str(source))
    wait_until(counter.stored_parts, "a first part stored")
    return page


def test_a_reload_mid_upload_resumes_without_sending_stored_parts_again(
        counted, browser, tmp_path):
    base, backend, counter = counted
    source = tmp_path / "long film.mp4"
    page = _six_part_upload_begun(counted, browser, source)
    page.reload()
    # A part the old page had sent may still be storing: once it has ended, what
    # is stored is what the resumed upload finds (else it sends that part again).
    wait_until(counter.settled, "the old page's part uploads to end")
    before = counter.stored_parts()
    puts_before = len(counter.puts)

    assert page.is_visible("#pending-uploads")
    assert "long film.mp4" in page.text_content("#pending-uploads")
    screenshot(page, "dashboard-interrupted-upload", "#drop-zone")
    page.set_input_files("#source-file", str(source))
    page.wait_for_url("**/jobs/*", timeout=60_000)

    said = page.evaluate(SAID)
    assert any(m.startswith("Resuming: ") for m in said), said
    job = only_job(backend)
    assert job.title == "long film"
    assert backend.input_storage.get_bytes(source_key(job.job_id)) == source.read_bytes()
    resent = {part for part, _, _ in counter.puts[puts_before:]}
    assert before, (before, resent)
    assert not before & resent, (before, resent)
    successes = [part for part, _, status in counter.puts if status == 200]
    assert sorted(successes) == [1, 2, 3, 4, 5, 6], "each part stored exactly once"
    stored_bytes = sum(n for _, n, status in counter.puts if status == 200)
    assert stored_bytes == source.stat().st_size


def page_without_script(browser, url: str):
    """A page opened at ``url`` in a context of its own with JavaScript off."""
    page = browser.new_context(java_script_enabled=False, viewport=VIEWPORT).new_page()
    page.goto(url)
    return page


def test_without_javascript_the_forms_create_the_job_and_upload_its_video(
        server, browser, tmp_path):
    base, backend = server
    source = tmp_path / "clip.mp4"
    source.write_bytes(os.urandom(300_000))
    page = page_without_script(browser, base + "/")
    assert not page.is_visible("#drop-zone")
    page.fill("input[name=title]", "No script")
    page.click("#create-job")
    page.wait_for_url("**/jobs/*")
    job = only_job(backend)
    assert (job.title, job.status) == ("No script", JobStatus.CREATED)
    # The job page's form posts the file straight to storage, which sends the
    # browser back to the job page.
    page.set_input_files("#file", str(source))
    page.click("#upload-button")
    page.wait_for_url(f"**/jobs/{job.job_id}?*")
    assert backend.input_storage.get_bytes(source_key(job.job_id)) == source.read_bytes()
    page.context.close()


@pytest.mark.parametrize("server", [{"max_upload_bytes": 100_000}], indirect=True)
def test_a_file_over_the_advertised_cap_is_refused_by_the_storage_not_the_page(
        server, browser, tmp_path):
    base, backend = server
    over = tmp_path / "big.mp4"
    over.write_bytes(os.urandom(100_001))
    page = page_without_script(browser, base + "/")
    page.click("#create-job")
    page.wait_for_url("**/jobs/*")
    job_id = page.url.rsplit("/", 1)[1]
    page.set_input_files("#file", str(over))
    with page.expect_response(lambda r: r.request.method == "POST"
                              and "/storage/" in r.url) as answer:
        page.click("#upload-button")
    assert answer.value.status == 400
    assert "EntityTooLarge" in page.text_content("body")
    assert not backend.input_storage.exists(source_key(job_id))
    page.context.close()


def test_a_small_file_goes_up_in_one_form_post(counted, browser, tmp_path):
    base, backend, counter = counted
    source = tmp_path / "short.mp4"
    source.write_bytes(os.urandom(MIN_PART_BYTES // 2))
    page = browser.new_page(viewport=VIEWPORT)
    posts: list[int] = []
    page.on("response", lambda r: posts.append(r.status)
            if r.request.method == "POST" and "/storage/" in r.url else None)
    page.goto(base + "/")
    page.set_input_files("#source-file", str(source))
    page.wait_for_url("**/jobs/*", timeout=60_000)
    job = only_job(backend)
    assert backend.input_storage.get_bytes(source_key(job.job_id)) == source.read_bytes()
    assert posts == [204] and counter.puts == []


def test_a_file_with_a_name_longer_than_a_title_becomes_a_job_named_after_it(
        server, browser, tmp_path):
    base, backend = server
    stem = "Summer-holiday-by-the-lake-" * 9  # 243 characters: over the 200 of a title
    source = tmp_path / f"{stem}.mp4"
    source.write_bytes(os.urandom(MIN_PART_BYTES // 2))
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(base + "/")
    page.set_input_files("#source-file", str(source))
    page.wait_for_url("**/jobs/*", timeout=60_000)
    job = only_job(backend)
    assert job.title == stem[:200]
    assert backend.input_storage.get_bytes(source_key(job.job_id)) == source.read_bytes()


def test_cancelling_a_dropped_files_upload_cancels_the_job_it_created(
        counted, browser, tmp_path):
    base, backend, counter = counted
    page = _six_part_upload_begun(counted, browser, tmp_path / "wrong film.mp4")
    page.click("#upload-cancel")
    page.wait_for_function(
        "() => /job was cancelled/.test(document.getElementById('upload-message').textContent)")
    assert not page.is_visible("#upload-cancel")
    job = backend.jobs.list_by_status(JobStatus.CANCELLED, limit=10).items
    assert [j.title for j in job] == ["wrong film"]
    assert backend.jobs.list_in_progress(limit=10) == []
    assert not backend.input_storage.exists(source_key(job[0].job_id))


def test_the_same_file_dropped_in_two_tabs_makes_two_jobs(counted, browser, tmp_path):
    # One video wanted twice, side by side and anaglyph: while the first tab
    # still sends it, the second tab's drop is a job of its own, not a resume.
    base, backend, counter = counted
    source = tmp_path / "party.mp4"
    source.write_bytes(os.urandom(5 * MIN_PART_BYTES + 777))  # 6 parts, 3 at a time
    context = browser.new_context(viewport=VIEWPORT)  # tabs share localStorage
    tabs = []
    for mode in ("sbs", "anaglyph"):
        tab = context.new_page()
        tab.goto(base + "/")
        tab.select_option("#mode", mode)
        tab.set_input_files("#source-file", str(source))
        wait_until(counter.stored_parts, "the first tab's first part stored")
        tabs.append(tab)
    for tab in tabs:
        tab.wait_for_url("**/jobs/*", timeout=60_000)
    jobs = {tab.url.rsplit("/", 1)[1] for tab in tabs}
    assert len(jobs) == 2
    assert sorted(backend.jobs.get(j).mode for j in jobs) == ["anaglyph", "sbs"]
    for job_id in jobs:
        assert backend.input_storage.get_bytes(source_key(job_id)) == source.read_bytes()
    context.close()
