"""Browser test fixtures: Debian's Chromium driven by Playwright, and the web UI
on the real local backend served by uvicorn on 127.0.0.1."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from shared_types.errors import ConditionFailedError
from shared_types.keys import final_key, source_key
from shared_types.models import JobStatus, JobUpdate, SegmentCompletion, SegmentHeartbeat, now
from shared_types.ports import Backend
from shared_types.testing.browser import CHROMIUM, CHROMIUM_ARGS, screenshots_dir
from shared_types.testing.serving import free_port, serve_in_thread

from web_ui.app import create_app
from web_ui.settings import WebSettings

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# Screenshots of each page state (small: one viewport). They go to the
# git-ignored test-artifacts folder, or, with STEREO_SPOT_UPDATE_SCREENSHOTS=1,
# to docs/screenshots (so a plain test run leaves the checkout clean).
SCREENSHOTS = screenshots_dir(ARTIFACTS)
VIEWPORT = {"width": 1000, "height": 720}
SEGMENTS = 4
STEP_S = 0.6

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        pytest.fail(f"{CHROMIUM} is missing in CI (.ci/run installs Debian chromium)",
                    pytrace=False)
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install -y chromium)",
                allow_module_level=True)


def web_settings(tmp_path, port: int, **overrides) -> WebSettings:
    return WebSettings(**{
        "data_dir": tmp_path / "data", "public_base_url": f"http://127.0.0.1:{port}",
        "signing_secret": "browser-test-secret-0123456789", "eta_seconds_per_mb": 30.0,
        "sse_poll_s": 0.1, "host": "127.0.0.1", "port": port, **overrides,
    })


@pytest.fixture
def server(request, tmp_path):
    """The app on 127.0.0.1 (uvicorn in a thread) and its backend; indirect
    parametrisation overrides settings."""
    port = free_port()
    app = create_app(web_settings(tmp_path, port, **getattr(request, "param", {})))
    with serve_in_thread(app, port) as base:
        yield base, app.state.backend


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


def screenshot(page, name: str, focus: str | None = None) -> None:
    """Save the visible part of the page (scrolled to ``focus``, a selector) as
    docs/screenshots/{name}.png."""
    if focus:
        page.eval_on_selector(focus, "e => e.scrollIntoView({block: 'center'})")
    page.screenshot(path=SCREENSHOTS / f"{name}.png")


def drive_pipeline(backend: Backend, job_id: str, final_video: Path, stop: threading.Event):
    """Stand-in for the workers: advance the job once its source is uploaded,
    beating frame heartbeats per segment; like a real worker it stops when its
    conditional update is refused (the job was cancelled)."""
    def advance(expected: JobStatus, **changes) -> bool:
        try:
            backend.jobs.update(job_id, JobUpdate(**changes), expected_status=(expected,))
        except ConditionFailedError:
            return False
        return True

    while not backend.input_storage.exists(source_key(job_id)):
        if stop.wait(0.05):
            return
    if not advance(JobStatus.CREATED, status=JobStatus.CHUNKING_IN_PROGRESS):
        return
    stop.wait(STEP_S)
    if not advance(JobStatus.CHUNKING_IN_PROGRESS, status=JobStatus.CHUNKING_COMPLETE,
                   total_segments=SEGMENTS):
        return
    for i in range(SEGMENTS):
        backend.segment_status.mark_pending(job_id, i)
        started = now()
        for done in (12, 24):
            if stop.wait(STEP_S / 2) or backend.jobs.get(job_id).status.is_final:
                return
            backend.heartbeats.beat(SegmentHeartbeat(
                job_id=job_id, segment_index=i, worker="e2e", frames_done=done,
                frames_total=24, started_at=started))
        backend.completions.put(SegmentCompletion(job_id=job_id, segment_index=i,
                                                  output_key=f"jobs/{job_id}/segments/{i}.mp4"))
        backend.segment_status.mark_complete(job_id, i)
    if not advance(JobStatus.CHUNKING_COMPLETE, status=JobStatus.REASSEMBLING):
        return
    backend.output_storage.put_file(final_key(job_id), final_video, content_type="video/mp4")
    stop.wait(STEP_S)
    advance(JobStatus.REASSEMBLING, status=JobStatus.COMPLETED, completed_at=now(),
            final_key=final_key(job_id))
