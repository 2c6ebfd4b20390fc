"""parallax: dense flow between small grey frames, whatever their size."""

import cv2
import numpy as np
import pytest

from stereo_inference.depth.parallax import FlowField
from stereo_inference.testing import real_scene


def _texture(shape) -> np.ndarray:
    noise = np.random.default_rng(0).random((72, 128)) * 255
    return cv2.GaussianBlur(noise.astype(np.uint8), (0, 0), 2)[: shape[0], : shape[1]]


@pytest.mark.parametrize("shape", [(8, 2), (2, 8), (8, 10), (11, 11), (8, 128)])
def test_frames_smaller_than_the_flows_patches_still_get_a_flow(shape):
    """(a 2x2 source's depth input is 2x8: DIS alone refuses under ~12 px a side)"""
    prev = _texture(shape)
    flow, consistency = FlowField().backward(np.roll(prev, 1, axis=1), prev)
    assert flow.shape == (*shape, 2) and consistency.shape == shape
    assert np.isfinite(flow).all()


def test_a_tiny_frames_flow_is_in_its_own_pixels():
    prev = _texture((8, 10))
    flow, _ = FlowField().backward(np.roll(prev, 1, axis=1), prev)  # moved 1 px right
    assert -1.5 < float(np.median(flow[..., 0])) < -0.3


@pytest.mark.skipif(not real_scene.available(), reason="real scenes not in this checkout")
def test_an_exposure_step_still_matches_a_cut_does_not():
    """A camera's automatic exposure brightens every grey level alike: the
    moved frame still matches (no cut read, the shot's depth kept); a frame of
    another scene does not."""
    rgb, disp = real_scene.motorcycle()
    first, second = (cv2.cvtColor(f, cv2.COLOR_RGB2GRAY)
                     for f in real_scene.slid(rgb, disp, [0.0, 2.0], (128, 86)))
    _, same = FlowField().backward(second, first)
    brighter = np.clip(second.astype(np.int16) + 12, 0, 255).astype(np.uint8)
    _, stepped = FlowField().backward(brighter, first)
    assert float(same.mean()) > 0.8 and float(stepped.mean()) > float(same.mean()) - 0.05
    _, cut = FlowField().backward(np.ascontiguousarray(first[::-1, ::-1]), first)
    assert float(cut.mean()) < 0.5


def _orbit(direction: float, w: int = 128, h: int = 72) -> tuple[np.ndarray, np.ndarray]:
    """(backward flow in px, true inverse depth) of a camera orbiting a point
    3 units away: sliding sideways while panning to keep it in place. Most of
    the picture is a near wall (2 units, all alike), the rest a far scene
    spread over 4-20 units: the long tail of the reading is the far side."""
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    x, y = (gx - (w - 1) / 2) / w, (gy - (h - 1) / 2) / w
    depth = np.where(gx < 0.65 * w, 2.0, 4.0 + 16.0 * ((gy / h + gx / w) % 1.0))
    inverse = (1 / depth).astype(np.float32)
    slide = 0.03 * direction
    turn = -slide / 3.0  # the pan that keeps the point 3 units away in place
    u = -slide * inverse - (1 + x * x) * turn  # the motion field (focal: one width)
    v = -x * y * turn
    return (-np.stack([u, v], -1) * w).astype(np.float32), inverse


@pytest.mark.parametrize("direction", [1.0, -1.0])
def test_an_orbits_sign_is_its_turns_not_the_long_tails(direction, monkeypatch):
    """An orbit keeps its middle distance in place, so its parallax about the
    turn's mean lies on both sides; its turn, fitted across the slide, puts the
    whole scene on one side. Negative control: without that vote the long
    tail (here the far side) is taken for near and the depth is reversed."""
    from stereo_inference.depth import parallax as module

    flow, inverse = _orbit(direction)
    ones = np.ones(inverse.shape, np.float32)
    reading = module.parallax(flow, ones)
    assert np.corrcoef(reading.inverse_depth.ravel(), inverse.ravel())[0, 1] > 0.9
    assert not reading.sure_side  # still a guess that callers may orient
    monkeypatch.setattr(module, "TURN_VOTE", 1.01)  # never decisive
    guessed = module.parallax(flow, ones)
    assert np.corrcoef(guessed.inverse_depth.ravel(), inverse.ravel())[0, 1] < -0.9


@pytest.mark.skipif(not real_scene.available("laundry"), reason="real scenes not in this checkout")
def test_a_camera_carried_straight_ahead_is_read_about_the_pictures_centre(monkeypatch):
    """Middlebury's laundry (a wall of windows behind a table) pushed straight
    in: the free fit leaves more flow across its lines than a move straight
    ahead with no turn (its focus a fifth of the width off centre, a turn
    bending the reading), so straight ahead wins. Negative control: without
    that hypothesis the free fit's reading orders the scene worse."""
    from stereo_inference.depth import parallax as module

    rgb, disparity = real_scene.scene("laundry")
    size = (128, round(disparity.shape[0] * 128 / disparity.shape[1]))
    near, pushed = (cv2.cvtColor(f, cv2.COLOR_RGB2GRAY) for f in
                    real_scene.pushed_in(rgb, disparity, [0.0, disparity.shape[1] / 128], size))
    flow, consistency = FlowField().backward(near, pushed)
    reading = module.parallax(flow, consistency)
    ahead = real_scene.ordinal(reading.unbiased()[0], disparity)
    assert ahead > 0.84 and reading.sure_side
    # a hypothesis that never wins: a sideways move with no turn, up the picture
    monkeypatch.setattr(module, "_straight_ahead",
                        lambda: module._Motion(np.array([0.0, 1.0, 0.0]), np.zeros(3)))
    free = real_scene.ordinal(module.parallax(flow, consistency).unbiased()[0], disparity)
    assert free < ahead - 0.04


def _forward(focus_x: float, w: int = 128, h: int = 72) -> tuple[np.ndarray, np.ndarray]:
    """(backward flow in px, true inverse depth) of a camera moving forward
    towards ``focus_x`` (normalised: 0 the centre) past a floor and a wall."""
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    x, y = (gx - (w - 1) / 2) / w, (gy - (h - 1) / 2) / w
    depth = np.where(gy > 0.5 * h, 1.0 + 6.0 * (1 - (gy - 0.5 * h) / (0.5 * h)), 7.0)
    depth = np.where((gx > 0.2 * w) & (gx < 0.35 * w) & (gy > 0.3 * h), 2.0, depth)
    inverse = (1 / depth).astype(np.float32)
    step = 0.04
    u, v = (x - focus_x) * step * inverse, y * step * inverse
    return (-np.stack([u, v], -1) * w).astype(np.float32), inverse


def test_a_forward_move_heading_off_centre_keeps_its_fitted_focus(monkeypatch):
    """A camera heading a quarter of the width right of centre leaves flow
    across the straight-ahead lines, so the free fit wins and its focus
    stays where the camera heads. Negative control: read as straight ahead,
    the depth is bent."""
    from stereo_inference.depth import parallax as module

    flow, inverse = _forward(0.25)
    ones = np.ones(inverse.shape, np.float32)
    reading = module.parallax(flow, ones)
    focus_column = int(np.argmin(reading.focus.min(axis=0)))
    assert abs(focus_column - 0.75 * 128) <= 4
    assert np.corrcoef(reading.unbiased()[0].ravel(), inverse.ravel())[0, 1] > 0.95
    monkeypatch.setattr(module, "_free", lambda *_: module._straight_ahead())
    forced = module.parallax(flow, ones)
    assert np.corrcoef(forced.unbiased()[0].ravel(), inverse.ravel())[0, 1] < 0.8
