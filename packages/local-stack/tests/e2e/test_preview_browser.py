"""Preview before converting all, in a real headless Chromium against the real
stack (``stereo-spot serve``: web-ui, media-worker and video-worker processes
on the embedded backend). A person drops a video with "Preview first" ticked,
picks a moment on the thumbnail strip, sets strength and screen plane, watches
the converted 10 s play in the page, then converts the whole video with those
settings. Screenshots of each state go to docs/screenshots (with
STEREO_SPOT_UPDATE_SCREENSHOTS=1) or test-artifacts/screenshots."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from shared_types.testing.browser import CHROMIUM, CHROMIUM_ARGS, chromium_missing, screenshots_dir
from stereo_media.testing.media import make_video

from local_stack.testing.media import video_facts

from .test_serve import serving

if chromium_missing():
    pytest.skip(chromium_missing(), allow_module_level=True)

SCREENSHOTS = screenshots_dir(Path(__file__).resolve().parents[2] / "test-artifacts")
SOURCE_S, FPS = 20, 24
WAIT_MS = 240_000
PLAYING = """() => { const v = document.getElementById('preview-player');
  return !document.getElementById('preview-result').hidden && v.readyState >= 2
         && v.currentTime > 0.2 && !v.paused; }"""


# The preview's anaglyph canvas against the paused clip's own two eyes (SBS:
# left half, right half), pixel by pixel on a grid: red from the left eye,
# green and blue from the right. Returns the worst channel error and how many
# grid pixels differ between the eyes (so the check cannot pass on a flat frame).
ANAGLYPH_ERROR = """() => {
  const v = document.getElementById('preview-player');
  const c = document.getElementById('preview-stereo-canvas');
  const w = c.width, h = c.height, eye = document.createElement('canvas');
  eye.width = w; eye.height = h;
  const g = eye.getContext('2d', {willReadFrequently: true});
  g.drawImage(v, 0, 0, v.videoWidth / 2, v.videoHeight, 0, 0, w, h);
  const l = g.getImageData(0, 0, w, h).data;
  g.drawImage(v, v.videoWidth / 2, 0, v.videoWidth / 2, v.videoHeight, 0, 0, w, h);
  const r = g.getImageData(0, 0, w, h).data;
  const a = c.getContext('2d').getImageData(0, 0, w, h).data;
  let worst = 0, differ = 0;
  for (let y = 4; y < h; y += 8) for (let x = 4; x < w; x += 8) {
    const i = (y * w + x) * 4;
    worst = Math.max(worst, Math.abs(a[i] - l[i]), Math.abs(a[i + 1] - r[i + 1]),
                     Math.abs(a[i + 2] - r[i + 2]));
    if (Math.abs(l[i] - r[i]) + Math.abs(l[i + 1] - r[i + 1]) > 40) differ++;
  }
  return [worst, differ, w, h];
}"""


def shot(page, name: str, focus: str) -> None:
    page.eval_on_selector(focus, "e => e.scrollIntoView({block: 'center'})")
    page.screenshot(path=SCREENSHOTS / f"{name}.png")


def fetch_final(base: str, job_id: str, dest: Path):
    urls = httpx.get(f"{base}/api/jobs/{job_id}/playback", timeout=10).json()
    dest.write_bytes(httpx.get(urls["url"], timeout=60).content)
    return video_facts(dest)


@pytest.mark.timeout(600)
def test_preview_ten_seconds_then_convert_the_whole_video(tmp_path, stack_env, free_port):
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    source = make_video(tmp_path / "holiday.mp4", seconds=SOURCE_S, fps=FPS)
    env = stack_env(tmp_path / "data", STEREO_SPOT_SEGMENT_SECONDS="4")
    with serving(env, free_port) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1000, "height": 760})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))

        page.goto(base + "/")
        page.select_option("#mode", "sbs")
        page.check("#preview-first")
        shot(page, "preview-1-create", "#preview-first")
        page.set_input_files("#source-file", str(source))  # drop and go
        page.wait_for_selector("#thumb-strip img", timeout=WAIT_MS)
        job_id = page.url.rsplit("/", 1)[1].split("#")[0]
        page.wait_for_function(  # all 12 thumbnails load (each a real JPEG from storage)
            "() => [...document.querySelectorAll('#thumb-strip img')]"
            ".filter(i => i.complete && i.naturalWidth > 0).length === 12", timeout=60_000)
        assert page.text_content("#status") == "awaiting confirmation"
        shot(page, "preview-2-strip", "#preview")

        page.fill("#preview-divergence", "3.5")
        page.fill("#preview-convergence", "0.3")
        page.click("#thumb-strip img:nth-child(4)")  # the moment it shows: 5.833 s
        start = float(page.input_value("#preview-at"))
        assert 5.0 < start < 6.5
        page.click("#preview-button")
        page.wait_for_function(
            "() => document.getElementById('preview-status').textContent.includes('%')",
            timeout=WAIT_MS)
        shot(page, "preview-3-converting", "#preview")
        page.wait_for_function(PLAYING, timeout=WAIT_MS)
        shot(page, "preview-4-playing", "#preview")

        # The clip plays in the job page's 3D viewer: as a red/cyan anaglyph...
        page.evaluate("() => document.getElementById('preview-player').pause()")
        assert page.is_hidden("#preview-stereo-canvas")
        page.click("#preview-view-anaglyph")
        page.wait_for_function(
            "() => document.getElementById('preview-stereo-canvas').width > 0")
        worst, differ, width, height = page.evaluate(ANAGLYPH_ERROR)
        assert (width, height) == (160, 96)  # one eye of the 320x96 full-SBS clip
        assert differ > 0 and worst <= 12, (worst, differ)
        shot(page, "preview-4b-anaglyph", "#preview")
        # ...and as one eye in 2D, then back to the file
        page.click("#preview-view-left")
        page.wait_for_function("() => document.getElementById('preview-viewer')"
                               ".dataset.mode === 'left'")
        page.click("#preview-viewer [data-view=file]")
        assert page.is_hidden("#preview-stereo-canvas")

        parent = httpx.get(f"{base}/api/jobs/{job_id}", timeout=10).json()
        clip = httpx.get(f"{base}/api/jobs/{parent['preview_job_id']}", timeout=10).json()
        assert parent["status"] == "awaiting_confirmation"
        assert (clip["status"], clip["parent_job_id"], clip["clip_start_s"],
                clip["clip_duration_s"]) == ("completed", job_id, start, 10.0)
        assert (clip["params"]["divergence"], clip["params"]["convergence"]) == (3.5, 0.3)
        facts = fetch_final(base, clip["job_id"], tmp_path / "clip.mp4")
        # 10 s from a moment between two frames: 240 frames, or 239 when the cut
        # starts just after a frame (the exact-start case is media-worker's test)
        assert (facts.width, facts.height) == (320, 96)
        assert 10 * FPS - 1 <= facts.frames <= 10 * FPS

        page.fill("#preview-divergence", "4")
        with page.expect_navigation(timeout=60_000):  # the form posts, the job page follows
            page.click("#convert-whole")
        assert page.query_selector("#preview") is None
        page.wait_for_selector("#progress", timeout=30_000)
        shot(page, "preview-5-converting-all", "#progress")
        page.wait_for_selector("#result", timeout=WAIT_MS)
        whole = httpx.get(f"{base}/api/jobs/{job_id}", timeout=10).json()
        assert whole["status"] == "completed"
        assert (whole["params"]["divergence"], whole["params"]["convergence"]) == (4.0, 0.3)
        facts = fetch_final(base, job_id, tmp_path / "whole.mp4")
        assert (facts.width, facts.frames) == (320, SOURCE_S * FPS)
        items = httpx.get(f"{base}/api/jobs", timeout=10).json()["items"]
        listed = {i["job_id"] for i in items}
        assert job_id in listed and clip["job_id"] not in listed
        assert errors == []
        browser.close()
