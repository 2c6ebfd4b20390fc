"""Each comfort control moves the OUTPUT pair the way it promises.

Scenes come from bench/depth_scenes.py with their exact depth imported as a
depth video (so a region's depth is known); disparity is measured back from
the decoded output by block matching its two halves (``stereo_probe``).
Every test has its negative case: the control left at its default.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from shared_types.models import ConversionParams

from stereo_inference.convert import convert_file
from stereo_inference.shaping import shaping_for

from .stereo_probe import eye_mask, output_pairs, region_disparity, write_scene

BASE = {"divergence": 5.0, "convergence": 0.5, "comfort": "off"}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scenes")
    return {name: write_scene(folder, name, seconds=0.25)
            for name in ("closeup", "static")}


@pytest.fixture
def convert(tmp_path, scenes):
    def run(scene: str, mode: str = "half-sbs", **params):
        video, depth_video, depth = scenes[scene]
        out = tmp_path / f"{scene}-{len(list(tmp_path.iterdir()))}.mp4"
        convert_file(video, out, mode=mode, params=ConversionParams(**{**BASE, **params}),
                     depth_video=depth_video)
        pairs = output_pairs(out)
        eye = (pairs[0][0].shape[1], pairs[0][0].shape[0])
        return out, pairs, eye, depth
    return run


def _near_far(pairs, eye, depth, frame=2):
    near = eye_mask(depth[frame], eye, 0.85, 1.0, margin=3)
    far = eye_mask(depth[frame], eye, 0.0, 0.02, margin=3)
    return region_disparity(pairs[frame], near), region_disparity(pairs[frame], far)


def test_foreground_scale_pushes_what_is_in_front_further_out_and_leaves_the_back(convert):
    plain = _near_far(*convert("closeup")[1:])
    same = _near_far(*convert("closeup", foreground_scale=1.0)[1:])
    scaled = _near_far(*convert("closeup", foreground_scale=2.0)[1:])
    assert plain[0] > 1.5  # the subject is in front of the screen
    assert scaled[0] > plain[0] + 1.5  # twice as far out
    assert abs(scaled[1] - plain[1]) < 0.5  # the background behind the screen: unchanged
    assert abs(same[0] - plain[0]) < 0.3  # negative: the default scale changes nothing


def test_ipd_offset_moves_everything_back_by_the_offset(convert):
    plain = _near_far(*convert("closeup")[1:])
    moved = _near_far(*convert("closeup", ipd_offset=1.0)[1:])  # 1 % of 160 px
    zero = _near_far(*convert("closeup", ipd_offset=0.0)[1:])
    assert moved[1] == pytest.approx(plain[1] - 1.6, abs=0.6)
    assert moved[0] < plain[0] - 0.8
    assert zero == pytest.approx(plain, abs=0.3)


def test_near_curve_flattens_the_middle_and_keeps_the_ends(convert):
    def middle(out):
        _, pairs, eye, depth = out
        mid = eye_mask(depth[2], eye, 0.35, 0.6, margin=2)
        return region_disparity(pairs[2], mid)

    linear, near = convert("closeup"), convert("closeup", depth_curve="near")
    # d**2 puts the middle of the depth range further back
    assert middle(near) < middle(linear) - 0.8
    assert _near_far(*near[1:])[1] == pytest.approx(_near_far(*linear[1:])[1], abs=0.5)
    far_curve = convert("closeup", depth_curve="far")
    assert middle(far_curve) > middle(linear) + 0.5  # the other way: the middle comes forward


def test_edge_dilation_gives_an_objects_rim_the_objects_disparity(convert):
    def rim(out):
        import cv2

        _, pairs, eye, depth = out
        near = eye_mask(depth[2], eye, 0.85, 1.0).astype(np.uint8)
        grown = cv2.dilate(near, np.ones((7, 7), np.uint8))
        ring = (grown > 0) & (near == 0) & eye_mask(depth[2], eye, 0.0, 0.5)
        return region_disparity(pairs[2], ring, step=1)

    plain, dilated = rim(convert("closeup")), rim(convert("closeup", edge_dilation=4))
    assert dilated > plain + 1.0  # the background beside the edge now moves with the object
    assert rim(convert("closeup", edge_dilation=0)) == pytest.approx(plain, abs=0.3)


@pytest.mark.parametrize(("eye", "source_half"), [("right", 0), ("left", 1)])
def test_one_synthesised_eye_keeps_the_source_as_the_other(convert, scenes, eye, source_half):
    import av

    with av.open(str(scenes["closeup"][0])) as c:
        source = [f.to_ndarray(format="gray").astype(np.float32) for f in c.decode(video=0)]

    def error(pairs, half):
        import cv2

        src = cv2.resize(source[2], pairs[2][half].shape[::-1], interpolation=cv2.INTER_AREA)
        return float(np.abs(pairs[2][half] - src).mean())

    one = convert("closeup", synthesised_eye=eye)
    both = convert("closeup")
    assert error(one[1], source_half) < 2.0  # the kept eye is the picture itself
    assert error(both[1], source_half) > error(one[1], source_half) + 0.5  # negative
    # the disparity between the eyes is the same total either way
    assert _near_far(*one[1:])[0] == pytest.approx(_near_far(*both[1:])[0], abs=0.7)


def test_floating_window_masks_the_edges_near_ground_crosses(convert):
    # the ground near the camera touches both side borders in front of the screen
    out, pairs, eye, depth = convert("static", floating_window=True)
    _, plain_pairs, _, _ = convert("static")
    left, right = pairs[2]
    rows = slice(int(0.8 * eye[1]), eye[1] - 2)  # the ground's rows, nearest to the camera
    assert left[rows, :2].mean() < 24 and right[rows, -2:].mean() < 24
    # where nothing is in front (the top rows: the wall, far) the strip is masked too
    # (one strip per frame) but the other eye's same edge is not
    assert right[rows, :2].mean() > 30 and left[rows, -2:].mean() > 30
    plain_left, plain_right = plain_pairs[2]
    assert plain_left[rows, :2].mean() > 30 and plain_right[rows, -2:].mean() > 30  # negative


def test_auto_convergence_puts_each_shots_subject_on_the_screen(tmp_path):
    from .stereo_probe import write_scene as scene

    video, depth_video, depth = scene(tmp_path, "cut", seconds=1.0, size=(320, 180))

    def subject_disparity(**params):
        out = tmp_path / f"cut-{len(list(tmp_path.iterdir()))}.mp4"
        convert_file(video, out, mode="half-sbs", depth_video=depth_video,
                     params=ConversionParams(**{**BASE, "convergence": 0.0, **params}))
        pairs = output_pairs(out)
        eye = (pairs[0][0].shape[1], pairs[0][0].shape[0])
        found = []
        for i in (10, len(pairs) - 3):  # late in each shot: the plane has settled
            d = depth[i]
            h, w = d.shape
            q = np.quantile(d[int(.2 * h):int(.8 * h), int(.2 * w):int(.8 * w)], 0.7)
            found.append(region_disparity(pairs[i], eye_mask(d, eye, q - 0.05, q + 0.05)))
        return found

    fixed, auto = subject_disparity(), subject_disparity(auto_convergence=True)
    assert all(v < -1.5 for v in fixed)  # negative: convergence 0 puts the subject behind
    assert all(abs(v) < 1.0 for v in auto)  # both shots' subjects sit on the screen


def test_a_preset_far_disparity_is_its_computed_limit(convert):
    for mode in ("half-sbs", "sbs"):  # two output sizes: eyes 160 and 320 px wide
        params = {"viewing": "tv-65", "comfort": "report"}
        out, pairs, eye, depth = convert("closeup", mode=mode, **params)
        limits = shaping_for(ConversionParams(**{**BASE, **params}), eye[0]).limits
        far = region_disparity(pairs[2], eye_mask(depth[2], eye, 0.0, 0.0, margin=3))
        assert -far == pytest.approx(limits.zone_far_px, abs=1.0)
        near = region_disparity(pairs[2], eye_mask(depth[2], eye, 0.97, 1.0, margin=1))
        assert near == pytest.approx(limits.near_px, abs=1.0)
        report = json.loads((out.parent / (out.name + ".comfort.json")).read_text())
        assert report["shots"][0]["far_px"] == pytest.approx(limits.zone_far_px, abs=0.05)
        assert report["viewing"]["rule"] == "1 degree"


def test_far_things_never_diverge_beyond_the_ipd_whatever_the_strength(convert):
    params = {"viewing": "tv-65", "fit_strength": False, "divergence": 10.0,
              "convergence": 0.0}
    out, pairs, eye, depth = convert("closeup", mode="sbs", **params)
    limits = shaping_for(ConversionParams(**{**BASE, **params}), eye[0]).limits
    far = region_disparity(pairs[2], eye_mask(depth[2], eye, 0.0, 0.0, margin=3))
    assert limits.far_px < 0.1 * eye[0]  # the IPD binds, not the engine's 10 %
    assert -far == pytest.approx(limits.far_px, abs=1.0)
    unbounded = convert("closeup", mode="sbs", **{**params, "viewing": None})
    far_free = region_disparity(unbounded[1][2], eye_mask(depth[2], eye, 0.0, 0.0, margin=3))
    assert -far_free > limits.far_px + 3  # negative: without a viewing nothing caps it


def _report(out):
    return json.loads((out.parent / (out.name + ".comfort.json")).read_text())


def test_comfort_fix_brings_each_shot_into_the_zone(convert):
    params = {"viewing": "tv-65", "fit_strength": False, "divergence": 10.0,
              "convergence": 0.5, "comfort": "report"}
    out, pairs, eye, depth = convert("closeup", mode="sbs", **params)
    fixed_out, fixed_pairs, _, _ = convert("closeup", mode="sbs", **{**params, "comfort": "fix"})
    limits = shaping_for(ConversionParams(**{**BASE, **params}), eye[0]).limits
    near_region = eye_mask(depth[2], eye, 0.97, 1.0, margin=1)
    far_region = eye_mask(depth[2], eye, 0.0, 0.0, margin=3)
    # negative: reported, not fixed, the shot is out of the zone on both sides
    assert _report(out)["shots"][0]["outside_zone_s"] > 0
    assert region_disparity(pairs[2], near_region) > limits.near_px + 2
    assert -region_disparity(pairs[2], far_region) > limits.zone_far_px + 1.5
    shot = _report(fixed_out)["shots"][0]
    assert shot["outside_zone_s"] == 0 and _report(fixed_out)["fixed"]
    assert region_disparity(fixed_pairs[2], near_region) <= limits.near_px + 1.0
    assert -region_disparity(fixed_pairs[2], far_region) <= limits.zone_far_px + 1.0
    assert shot["near_deg"] <= 1.0 + 1e-3 and shot["far_deg"] <= 1.0 + 1e-3


def test_the_report_has_one_entry_per_shot_and_sees_edge_violations(tmp_path, convert):
    video, depth_video, _ = write_scene(tmp_path, "cut", seconds=1.0)
    out = tmp_path / "cut_3d.mp4"  # (cut.mp4 is the source: never written over)
    convert_file(video, out, mode="half-sbs", depth_video=depth_video,
                 params=ConversionParams(**{**BASE, "comfort": "report"}))
    shots = _report(out)["shots"]
    assert len(shots) == 2
    assert shots[1]["opens_at_cut"] is True and shots[0]["opens_at_cut"] is None
    assert shots[0]["start_s"] == 0 and shots[1]["start_s"] == pytest.approx(0.5, abs=0.05)
    assert shots[1]["end_s"] == pytest.approx(1.0, abs=0.05)
    # the ground in front of the screen touches the sides of the static scene...
    static = _report(convert("static", comfort="report")[0])["shots"][0]
    assert static["edge_violation_s"] > 0 and not static["window"]
    # ...and nothing does once everything is behind the screen (convergence 0)
    behind = _report(convert("static", comfort="report", convergence=0.0)[0])["shots"][0]
    assert behind["edge_violation_s"] == 0


def test_a_segment_given_the_state_before_it_continues_that_shot(halves, tmp_path):
    first, second = halves
    params = ConversionParams(auto_convergence=True, comfort="report")
    a = convert_file(first, tmp_path / "a.mp4", mode="half-sbs", params=params)
    assert "shots" in a.depth_state
    convert_file(second, tmp_path / "b.mp4", mode="half-sbs", params=params,
                 depth_state=a.depth_state)
    convert_file(second, tmp_path / "c.mp4", mode="half-sbs", params=params)
    assert _report(tmp_path / "b.mp4")["shots"][0]["opens_at_cut"] is False
    assert _report(tmp_path / "c.mp4")["shots"][0]["opens_at_cut"] is None  # negative
