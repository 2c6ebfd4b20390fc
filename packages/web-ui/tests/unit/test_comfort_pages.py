"""The comfort controls in the create form and the per-shot comfort chart."""

import json

from shared_types.comfort_reports import comfort_key
from shared_types.keys import final_key
from shared_types.models import JobStatus

from web_ui.comfort_chart import chart_of

from .conftest import add_job

REPORT = {
    "version": 1, "eye_width": 960, "fixed": False,
    "viewing": {"preset": "tv-65", "rule": "1 degree", "near_limit_px": 30.0,
                "zone_far_limit_px": 30.0, "far_limit_px": 36.0},
    "shots": [
        {"start_s": 0.0, "end_s": 2.0, "frames": 48, "near_px": 10.0, "far_px": 20.0,
         "outside_zone_s": 0.0, "edge_violation_s": 0.0},
        {"start_s": 2.0, "end_s": 3.0, "frames": 24, "near_px": 45.0, "far_px": 5.0,
         "outside_zone_s": 0.5, "edge_violation_s": 0.25},
    ],
}


def test_the_form_offers_every_control_and_preset(client):
    page = client.get("/").text
    for name in ("auto_convergence", "foreground_scale", "edge_dilation", "ipd_offset",
                 "floating_window", "synthesised_eye", "depth_curve", "viewing",
                 "viewer_ipd_mm", "comfort"):
        assert f'name="{name}"' in page
    for preset in ("vr-headset", "vision-pro", "phone-vr", "tv-55", "tv-65",
                   "projector-100", "laptop", "custom"):
        assert f'value="{preset}"' in page


def test_the_form_sets_the_comfort_controls_of_the_job(client, backend, token):
    r = client.post("/jobs", data={
        "mode": "half-sbs", "csrf_token": token, "auto_convergence": "true",
        "foreground_scale": "1.5", "edge_dilation": "2", "ipd_offset": "-0.5",
        "floating_window": "true", "synthesised_eye": "right", "depth_curve": "s-curve",
        "viewing": "tv-55", "viewer_ipd_mm": "60", "comfort": "fix",
    }, follow_redirects=False)
    assert r.status_code == 303
    params = backend.jobs.get(r.headers["location"].rsplit("/", 1)[1]).params
    assert (params.auto_convergence, params.foreground_scale, params.edge_dilation,
            params.ipd_offset, params.floating_window) == (True, 1.5, 2, -0.5, True)
    assert (params.synthesised_eye, params.depth_curve, params.viewing) == (
        "right", "s-curve", "tv-55")
    assert (params.viewer_ipd_mm, params.comfort, params.fit_strength) == (60.0, "fix", True)


def test_a_custom_screen_without_its_size_is_refused(client, token):
    r = client.post("/jobs", data={"mode": "sbs", "viewing": "custom", "csrf_token": token})
    assert r.status_code == 400
    r = client.post("/jobs", data={"mode": "sbs", "viewing": "custom", "screen_width_m": "1.2",
                                   "viewing_distance_m": "2", "csrf_token": token},
                    follow_redirects=False)
    assert r.status_code == 303


def test_the_chart_has_a_bar_per_shot_scaled_to_its_disparities():
    chart = chart_of(REPORT)
    first, second = chart.bars
    assert first.x == 0 and second.x > first.x + first.width
    assert second.y < chart.near_limit_y < first.y  # the second comes out past the zone
    assert (first.outside, second.outside, second.edge) == (False, True, True)
    assert chart.far_limit_y > chart.axis_y > chart.near_limit_y
    assert chart_of({"shots": []}) is None


def test_a_completed_jobs_page_shows_its_comfort_chart(client, backend):
    job = add_job(backend, status=JobStatus.COMPLETED, completed_at=1.0,
                  final_key=final_key("x"))
    backend.output_storage.put_bytes(comfort_key(job.final_key), json.dumps(REPORT).encode())
    page = client.get(f"/jobs/{job.job_id}").text
    assert 'id="comfort-chart"' in page
    assert page.count('<rect class="shot') == 2
    assert "1 outside the zone" in page
    other = add_job(backend, status=JobStatus.COMPLETED, completed_at=1.0,
                    final_key=final_key("y"))
    assert 'id="comfort-chart"' not in client.get(f"/jobs/{other.job_id}").text  # no report
