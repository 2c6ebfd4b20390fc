"""shot_start: a shot's first frame read against several frames ahead, combined."""

import cv2
import numpy as np
import pytest

from stereo_inference.depth import load_estimator
from stereo_inference.depth.parallax import FlowField, parallax
from stereo_inference.depth.shot_start import CANDIDATES, READINGS, frames_to_read, read_first
from stereo_inference.testing import real_scene

WORK = (128, 86)  # the working size of the motorcycle's frames


def test_slow_motion_reads_the_farthest_frames_fast_motion_the_nearest():
    assert frames_to_read(0.05, 384, 16) == list(CANDIDATES[-READINGS:])
    assert frames_to_read(3.0, 384, 16) == [1, 2, 4]  # 16 px of travel at most
    assert frames_to_read(40.0, 384, 16) == [1]  # too fast for any: the next frame
    assert frames_to_read(0.05, 384, 5) == [1, 2, 4]  # the end of the file is near
    assert frames_to_read(0.05, 384, 0) == []


def _grey(frames: np.ndarray) -> list[np.ndarray]:
    return [cv2.cvtColor(f, cv2.COLOR_RGB2GRAY) for f in frames]


def _ramp() -> np.ndarray:
    return np.broadcast_to(np.linspace(0, 1, WORK[1], dtype=np.float32)[:, None], WORK[::-1])


@pytest.mark.skipif(not real_scene.available(), reason="real scenes not in this checkout")
def test_a_swaying_cameras_readings_of_either_sign_add_up_to_depth():
    """A handheld sway: the camera passes frame 0's position back and forth, so
    half the frames ahead see the scene moved one way and half the other."""
    rgb, disp = real_scene.motorcycle()
    size = load_estimator("heuristic", models_dir=None, device="cpu").input_size(*disp.shape[::-1])
    offsets = 3 * np.sin(2 * np.pi * np.arange(17) / 10)  # frames 4, 8, 12, 16: + - - +
    grey = _grey(real_scene.slid(rgb, disp, offsets, size))
    reading = read_first(FlowField(patch_stride=6), grey[0], grey[1:], 0.05, WORK, _ramp())
    assert reading is not None and len(reading.frames) >= 3
    assert reading.trust > 0.5
    assert real_scene.ordinal(reading.inverse_depth, disp) > 0.85
    # each reading takes the direction of what the shot knows: told the
    # opposite (top nearest), every reading turns round with it
    upside = read_first(FlowField(patch_stride=6), grey[0], grey[1:], 0.05, WORK, 1 - _ramp())
    assert upside is not None and real_scene.ordinal(upside.inverse_depth, disp) < 0.15


@pytest.mark.skipif(not real_scene.available(), reason="real scenes not in this checkout")
def test_several_readings_order_a_slow_slide_better_than_the_nearest_one_alone():
    rgb, disp = real_scene.motorcycle()
    size = load_estimator("heuristic", models_dir=None, device="cpu").input_size(*disp.shape[::-1])
    grey = _grey(real_scene.slid(rgb, disp, 0.5 * np.arange(17), size))  # 0.5 px a frame
    combined = read_first(FlowField(patch_stride=6), grey[0], grey[1:], 0.02, WORK, _ramp())
    nearest = read_first(FlowField(patch_stride=6), grey[0], grey[1:2], 0.02, WORK, _ramp())
    assert combined is not None and nearest is not None
    assert combined.frames == tuple(CANDIDATES[-READINGS:])
    assert real_scene.ordinal(combined.inverse_depth, disp) > 0.88
    assert real_scene.ordinal(combined.inverse_depth, disp) > real_scene.ordinal(
        nearest.inverse_depth, disp) + 0.05


@pytest.mark.skipif(not real_scene.available(), reason="real scenes not in this checkout")
def test_a_pace_inflated_by_noise_is_read_again_over_the_farthest_frame():
    """x264's noise makes one frame's flow look like several times the motion:
    the pace read over the farthest frame it allows is the motion's, and the
    first frame is read as far ahead as a slow slide needs. Negative control:
    the inflated pace alone picks the near frames, which order worse."""
    rgb, disp = real_scene.motorcycle()
    size = load_estimator("heuristic", models_dir=None, device="cpu").input_size(*disp.shape[::-1])
    rng = np.random.default_rng(3)
    grey = [np.clip(g + rng.normal(0, 6, g.shape), 0, 255).astype(np.uint8)  # each frame's noise
            for g in _grey(real_scene.slid(rgb, disp, 0.5 * np.arange(17), size))]
    noisy = 1.0  # px a frame at the working width: what one compressed frame's flow reads
    near = frames_to_read(noisy * size[0] / WORK[0], size[0], 16)
    assert near == [1, 2, 4]
    reading = read_first(FlowField(patch_stride=6), grey[0], grey[1:], noisy, WORK, _ramp())
    nearer = read_first(FlowField(patch_stride=6), grey[0], grey[1:5], noisy, WORK, _ramp())
    assert reading is not None and nearer is not None and nearer.frames == (1, 2, 4)
    assert reading.frames == tuple(CANDIDATES[-READINGS:])
    assert real_scene.ordinal(reading.inverse_depth, disp) > 0.88
    assert real_scene.ordinal(reading.inverse_depth, disp) > real_scene.ordinal(
        nearer.inverse_depth, disp) + 0.05


def test_a_cut_right_after_the_first_frame_gives_no_reading():
    rng = np.random.default_rng(0)
    a, b = ((cv2.GaussianBlur(rng.random((86, 128)), (0, 0), 1.5) * 255).astype(np.uint8)
            for _ in range(2))
    assert read_first(FlowField(), a, [b] * 4, 0.5, (128, 86), _ramp()) is None


def test_the_focus_of_expansion_weighs_little_and_a_slide_weighs_alike():
    h, w = 72, 128
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    depth = 1 + gx / w  # a wall receding to the right
    cx, cy = (w - 1) / 2, (h - 1) / 2
    dolly = np.stack([(gx - cx) * 0.05 / depth, (gy - cy) * 0.05 / depth], -1)
    truck = np.stack([2 / depth, np.zeros_like(depth)], -1)
    ones = np.ones((h, w), np.float32)
    centre, corner = (slice(30, 42), slice(58, 70)), (slice(0, 10), slice(0, 10))
    focus = parallax(-dolly, ones).focus
    assert focus is not None and focus[centre].mean() < 0.5 < focus[corner].mean()
    slide = parallax(-truck, ones).focus
    assert slide is not None and slide.min() > 0.95


@pytest.mark.skipif(not real_scene.available(), reason="real scenes not in this checkout")
def test_a_shallow_room_trucked_past_is_depth_a_turn_is_not(monkeypatch):
    """The motorcycle's depth squeezed to a third about its median (a room's
    few metres seen from a few metres away): its parallax spreads over little
    of its median, like a leftover turn's, but stands far above the noise.
    Negative control: with only the spread over the median to go by, the
    reading is hardly trusted. A uniform slide (a pan) stays untrusted."""
    rgb, disp = real_scene.motorcycle()
    mid = float(np.median(disp[disp > 0]))
    shallow = np.where(disp > 0, mid + (disp - mid) / 3, 0).astype(np.float32)
    size = load_estimator("heuristic", models_dir=None, device="cpu").input_size(*disp.shape[::-1])
    grey = _grey(real_scene.slid(rgb, shallow, 1.5 * np.arange(17), size))
    reading = read_first(FlowField(patch_stride=6), grey[0], grey[1:], 0.5, WORK, _ramp())
    assert reading is not None and reading.trust > 0.8
    assert real_scene.ordinal(reading.inverse_depth, shallow) > 0.85
    monkeypatch.setattr("stereo_inference.depth.shot_start.CLEAR_FROM", 1e9)
    unclear = read_first(FlowField(patch_stride=6), grey[0], grey[1:], 0.5, WORK, _ramp())
    assert unclear is not None and unclear.trust < 0.6
    monkeypatch.undo()
    flat = np.where(disp > 0, mid, 0).astype(np.float32)
    pan = _grey(real_scene.slid(rgb, flat, 1.5 * np.arange(17), size))
    turned = read_first(FlowField(patch_stride=6), pan[0], pan[1:], 0.5, WORK, _ramp())
    assert turned is not None and turned.trust == 0.0
