"""baseline: parallax read over the frames the motion needs, back or ahead."""

import cv2
import numpy as np
import pytest

from stereo_inference.arrays import rgb_frames
from stereo_inference.depth import load_estimator
from stereo_inference.depth.baseline import MAX_FRAMES, Baseline, movement, spread
from stereo_inference.testing import real_scene


def _texture(h: int, w: int, seed: int) -> np.ndarray:
    noise = np.random.default_rng(seed).random((h, w)).astype(np.float32)
    return cv2.GaussianBlur(noise, (0, 0), 1.5)


def _shifted(image: np.ndarray, dx: float) -> np.ndarray:
    m = np.float32([[1, 0, -dx], [0, 1, 0]])
    return cv2.warpAffine(image, m, image.shape[::-1], flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REFLECT)


def _truck(frames: int, far_px: float, near_px: float) -> np.ndarray:
    """(n,h,w,3) uint8 at the estimator's input size (256 x 144): a far
    background and a near square sliding by ``far_px`` and ``near_px`` a frame."""
    back, front = _texture(144, 256, 1), _texture(144, 256, 2)
    out = []
    for i in range(frames):
        frame = _shifted(back, far_px * i)
        frame[40:100, 88:168] = _shifted(front, near_px * i)[40:100, 88:168]
        out.append(np.repeat((frame * 255).astype(np.uint8)[..., None], 3, 2))
    return np.stack(out)


def _run(frames: np.ndarray, ahead: int = 0):
    est = load_estimator("heuristic", models_dir=None, device="cpu")
    depths = []
    for i in range(len(frames)):
        if ahead:
            est.look_ahead(frames[i + 1:i + 1 + ahead])
        depths.append(est.estimate(rgb_frames(frames[i:i + 1]))[0, 0])
    return est, depths


def test_a_slow_trucks_parallax_is_read_several_frames_back():
    est, _ = _run(_truck(14, far_px=0.08, near_px=0.25))
    assert est.references[-1] <= -4


def test_a_fast_trucks_parallax_is_read_against_the_previous_frame():
    est, _ = _run(_truck(8, far_px=3, near_px=9))
    assert est.references[-1] == -1


def test_a_shots_first_frame_reads_its_parallax_against_frames_ahead():
    frames = _truck(10, far_px=0.08, near_px=0.25)
    est, depths = _run(frames, ahead=MAX_FRAMES)
    assert est.references[0] > 1
    square, around = depths[0][20:50, 44:84].mean(), depths[0][5:15, 5:40].mean()
    assert square > around + 0.1  # the near square is nearer from the first frame


def test_past_frames_first_then_ahead_then_the_farthest_there_is():
    b = Baseline()
    b.pace = 0.5  # px a frame: four frames give the target movement
    frames = [np.full((2, 2), i, np.uint8) for i in range(10)]
    assert b.reference(frames[:6])[1] == 4  # nothing past yet: ahead
    for f in frames[:5]:
        b.push(f, 0.5)
    ref, away = b.reference([])
    assert away == -4 and ref[0, 0] == 1
    b.reset()
    b.push(frames[0], 0.5)
    assert b.reference(frames[:2])[1] == 2  # neither far enough: the farthest


@pytest.mark.skipif(not real_scene.available(), reason="real scenes not in this checkout")
def test_with_frames_ahead_a_real_scenes_first_frame_orders_right():
    """Middlebury 2014 "motorcycle" (real photograph, measured disparity) under a camera
    sliding 2 px a frame at full size: its first frame alone."""
    rgb, disp = real_scene.motorcycle()
    est = load_estimator("heuristic", models_dir=None, device="cpu")
    size = est.input_size(disp.shape[1], disp.shape[0])
    frames = real_scene.slid(rgb, disp, [2.0 * i for i in range(17)], size)
    _, alone = _run(frames[:1])
    _, ahead = _run(frames, ahead=est.lookahead)
    assert real_scene.ordinal(ahead[0], disp) > 0.85
    assert real_scene.ordinal(ahead[0], disp) > real_scene.ordinal(alone[0], disp) + 0.05


def test_an_orbits_picture_moves_against_itself_more_than_its_typical_movement():
    """Near things one way, far ones the other, the middle still: the spread is
    what a flow must follow; a truck's all goes one way, less apart than fast."""
    rows = np.linspace(-1, 1, 48, dtype=np.float32)[:, None].repeat(64, 1)
    held = np.ones(rows.shape, np.float32)
    orbit = np.stack([0.5 * rows, np.zeros_like(rows)], -1)
    assert spread(orbit, held) > 1.7 * movement(orbit, held)
    truck = np.stack([0.3 + 0.2 * rows, np.zeros_like(rows)], -1)  # 0.1 to 0.5 px, one way
    assert spread(truck, held) < movement(truck, held)
    assert spread(orbit, np.zeros_like(held)) == 0.0  # nothing holds: nothing to say
