"""The comfort controls and the per-shot comfort chart in a real Chromium."""

from __future__ import annotations

import json

import pytest
from shared_types.comfort_reports import comfort_key
from shared_types.keys import final_key
from shared_types.models import Job, JobStatus, JobUpdate, OutputMode, new_job_id

from .conftest import screenshot
from .test_preview_browser import finish_next_clip, held_job
from .test_viewer_browser import make_sbs

REPORT = {
    "version": 1, "eye_width": 960, "fixed": False,
    "viewing": {"preset": "tv-65", "rule": "1 degree", "near_limit_px": 30.0,
                "zone_far_limit_px": 30.0, "far_limit_px": 36.0},
    "shots": [{"start_s": 0.0, "end_s": 4.0, "frames": 96, "near_px": 12.0, "far_px": 20.0,
               "outside_zone_s": 0.0, "edge_violation_s": 0.0},
              {"start_s": 4.0, "end_s": 5.0, "frames": 24, "near_px": 41.0, "far_px": 8.0,
               "outside_zone_s": 0.5, "edge_violation_s": 0.0},
              {"start_s": 5.0, "end_s": 9.0, "frames": 96, "near_px": 18.0, "far_px": 25.0,
               "outside_zone_s": 0.0, "edge_violation_s": 1.0}],
}


def completed_job_with_report(backend, video) -> Job:
    job = Job(job_id=new_job_id(), mode=OutputMode.SBS, title="Film")
    backend.jobs.create(job)
    backend.output_storage.put_file(final_key(job.job_id), video, content_type="video/mp4")
    backend.output_storage.put_bytes(comfort_key(final_key(job.job_id)),
                                     json.dumps(REPORT).encode())
    return backend.jobs.update(job.job_id, JobUpdate(
        status=JobStatus.COMPLETED, completed_at=1.0, final_key=final_key(job.job_id)))


@pytest.mark.parametrize("width", [1280, 390])
def test_the_comfort_chart_shows_each_shot_inside_the_page(server, browser, tmp_path, width):
    base, backend = server
    job = completed_job_with_report(backend, make_sbs(tmp_path / "v.mp4"))
    page = browser.new_page(viewport={"width": width, "height": 800})
    page.goto(f"{base}/jobs/{job.job_id}")
    bars = page.locator("#comfort-chart rect.shot")
    assert bars.count() == 3
    assert bars.nth(1).get_attribute("class") == "shot outside"
    assert "edge" in bars.nth(2).get_attribute("class")
    assert "Shot 2: 4.0-5.0 s" in bars.nth(1).locator("title").text_content()
    chart = page.locator("#comfort-chart").bounding_box()
    assert chart["x"] >= 0 and chart["x"] + chart["width"] <= width  # nothing cut off
    for i in range(3):  # each bar drawn within the chart, and visibly wide
        box = bars.nth(i).bounding_box()
        assert box["width"] > 2 and box["x"] + box["width"] <= chart["x"] + chart["width"] + 1
    # the out-of-zone shot rises above the dashed near limit, the others stay below it
    limit_y = page.locator("#comfort-chart line.limit").first.bounding_box()["y"]
    assert bars.nth(1).bounding_box()["y"] < limit_y < bars.nth(0).bounding_box()["y"]
    screenshot(page, f"comfort-chart-{width}", focus="#comfort")


def test_a_job_without_a_report_has_no_chart(server, browser, tmp_path):
    base, backend = server
    job = completed_job_with_report(backend, make_sbs(tmp_path / "v.mp4"))
    backend.output_storage.delete(comfort_key(job.final_key))
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{base}/jobs/{job.job_id}")
    page.wait_for_selector("#result")
    assert page.locator("#comfort-chart").count() == 0


def test_the_preview_uses_the_comfort_controls_set_on_the_page(server, browser, tmp_path):
    base, backend = server
    video = make_sbs(tmp_path / "clip.mp4")
    job = held_job(backend)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{base}/jobs/{job.job_id}")
    page.click("#preview-button")  # negative: untouched controls keep the job's
    first = finish_next_clip(backend, job.job_id, None, video)
    plain = backend.jobs.get(first).params
    assert (plain.foreground_scale, plain.floating_window, plain.synthesised_eye) == (
        1.0, False, "both")
    page.wait_for_selector("#preview-result:not([hidden])")

    page.check("#preview-auto-convergence")
    page.fill("#preview-foreground-scale", "2")
    page.fill("#preview-edge-dilation", "3")
    page.fill("#preview-ipd-offset", "-0.5")
    page.check("#preview-floating-window")
    page.select_option("#preview-synthesised-eye", "right")
    page.select_option("#preview-depth-curve", "s-curve")
    screenshot(page, "preview-comfort-controls", focus="#preview-comfort-fields")
    page.click("#preview-button")
    second = finish_next_clip(backend, job.job_id, first, video)
    params = backend.jobs.get(second).params
    assert (params.auto_convergence, params.foreground_scale, params.edge_dilation,
            params.ipd_offset, params.floating_window) == (True, 2.0, 3, -0.5, True)
    assert (params.synthesised_eye, params.depth_curve) == ("right", "s-curve")
    # every control sits beside its label
    for control in ("#preview-foreground-scale", "#preview-floating-window"):
        label = page.locator(f"label:has({control})").bounding_box()
        box = page.locator(control).bounding_box()
        assert label["y"] <= box["y"] <= label["y"] + label["height"]


def test_the_create_form_sends_the_chosen_screen(server, browser):
    base, backend = server
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(base)
    page.select_option("#viewing", "vision-pro")
    page.fill("#viewer-ipd", "66")
    page.select_option("#comfort-action", "fix")
    page.check("#floating-window")
    with page.expect_navigation():
        page.click("#create-job")
    job = backend.jobs.get(page.url.rsplit("/", 1)[1])
    assert (job.params.viewing, job.params.viewer_ipd_mm, job.params.comfort) == (
        "vision-pro", 66.0, "fix")
    assert job.params.floating_window


@pytest.mark.parametrize("width", [1280, 390])
def test_the_new_form_controls_fit_and_sit_beside_their_labels(server, browser, width):
    base, _ = server
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(base)
    controls = page.locator("#comfort-fields input, #comfort-fields select, "
                            "#viewing-fields input, #viewing-fields select")
    assert controls.count() == 12
    for i in range(controls.count()):
        name = controls.nth(i).get_attribute("id")
        box = page.locator(f"#{name}").bounding_box()
        label = page.locator(f"label:has(#{name})").bounding_box()
        assert 0 <= box["x"] and box["x"] + box["width"] <= width, name
        assert label["y"] - 1 <= box["y"] <= label["y"] + label["height"]
    screenshot(page, f"comfort-form-{width}", focus="#viewing-fields")


def test_a_depth_video_chosen_in_the_form_goes_up_before_the_video(server, browser, tmp_path):
    import os

    from shared_types.keys import depth_video_key, source_key

    base, backend = server
    depth, source = tmp_path / "edited.mkv", tmp_path / "film.mp4"
    depth.write_bytes(b"grey16-depth-frames")
    source.write_bytes(os.urandom(64 * 1024))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(base + "/")
    page.set_input_files("#depth-file", str(depth))
    page.set_input_files("#source-file", str(source))
    page.wait_for_url("**/jobs/*", timeout=60_000)
    job_id = page.url.rsplit("/", 1)[1]
    assert backend.input_storage.get_bytes(depth_video_key(job_id)) == depth.read_bytes()
    assert backend.input_storage.get_bytes(source_key(job_id)) == source.read_bytes()
