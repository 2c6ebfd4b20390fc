"""The 3D viewer in a real Chromium: an SBS result shown as a red/cyan anaglyph
and as one eye in 2D, checked on the canvas's rendered pixels."""

from __future__ import annotations

import subprocess

import pytest
from shared_types.keys import final_key
from shared_types.models import Job, JobStatus, JobUpdate, OutputMode, new_job_id, now
from stereo_media.ffmpeg import ffmpeg_path

from .conftest import VIEWPORT, screenshot

LEFT, RIGHT = 200, 60  # grey levels of the two eyes in the test video
CENTER_PIXEL = """() => {
  const c = document.getElementById('stereo-canvas');
  return Array.from(c.getContext('2d').getImageData(c.width >> 1, c.height >> 1, 1, 1).data);
}"""


def make_sbs(path, *, size=(96, 96), seconds=2):
    """A full-SBS clip: a grey-200 left eye beside a grey-60 right eye."""
    w, h = size
    graph = (f"color=c=0x{LEFT:02X}{LEFT:02X}{LEFT:02X}:s={w}x{h}:d={seconds}[l];"
             f"color=c=0x{RIGHT:02X}{RIGHT:02X}{RIGHT:02X}:s={w}x{h}:d={seconds}[r];"
             "[l][r]hstack")
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
                    "-filter_complex", graph, "-c:v", "libx264", "-preset", "ultrafast",
                    "-pix_fmt", "yuv420p", "-movflags", "+faststart", str(path)],
                   check=True, timeout=120)
    return path


def completed_job(backend, video, mode=OutputMode.SBS):
    job = Job(job_id=new_job_id(), mode=mode, title="Stereo")
    backend.jobs.create(job)
    key = final_key(job.job_id)
    backend.output_storage.put_file(key, video, content_type="video/mp4")
    backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.COMPLETED, final_key=key,
                                              completed_at=now()))
    return job


def close(pixel, expected, tolerance=12):
    return all(abs(a - b) <= tolerance for a, b in zip(pixel[:3], expected, strict=True))


def test_an_sbs_result_plays_as_an_anaglyph_and_as_one_eye(server, browser, tmp_path):
    base, backend = server
    job = completed_job(backend, make_sbs(tmp_path / "sbs.mp4"))
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(f"{base}/jobs/{job.job_id}")
    page.wait_for_function("() => document.getElementById('player').readyState >= 2",
                           timeout=30_000)
    assert page.is_hidden("#stereo-canvas")

    page.click("#view-anaglyph")
    page.wait_for_function("() => document.getElementById('stereo-canvas').width > 0")
    pixel = page.evaluate(CENTER_PIXEL)
    assert close(pixel, (LEFT, RIGHT, RIGHT)), pixel  # red from the left eye, cyan from the right
    assert page.evaluate("() => document.getElementById('stereo-canvas').width") == 96
    screenshot(page, "job-anaglyph", "#viewer")

    page.click("#view-left")
    page.wait_for_function(f"() => ({CENTER_PIXEL})()[1] > {(LEFT + RIGHT) // 2}")
    assert close(page.evaluate(CENTER_PIXEL), (LEFT, LEFT, LEFT))
    screenshot(page, "job-left-eye", "#viewer")

    page.click("[data-view=file]")
    assert page.is_hidden("#stereo-canvas")


@pytest.mark.parametrize("mode", [OutputMode.ANAGLYPH])
def test_an_anaglyph_result_offers_no_second_anaglyph(server, browser, tmp_path, mode):
    base, backend = server
    job = completed_job(backend, make_sbs(tmp_path / "a.mp4"), mode=mode)
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(f"{base}/jobs/{job.job_id}")
    assert page.query_selector("#view-anaglyph") is None
