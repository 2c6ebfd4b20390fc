import cv2
import numpy as np
import pytest
import torch

from stereo_inference.depth import load_estimator
from stereo_inference.testing import real_scene


def _estimator():
    return load_estimator("heuristic", models_dir=None, device=torch.device("cpu"))


def _texture(h: int, w: int, seed: int) -> np.ndarray:
    noise = np.random.default_rng(seed).random((h, w)).astype(np.float32)
    return cv2.GaussianBlur(noise, (0, 0), 1.2)


def _truck(frames: int, *, near_px: int, far_px: int) -> torch.Tensor:
    """A camera sliding sideways: the far background moves ``far_px`` a frame,
    a near square in the middle ``near_px`` (nearer things move more)."""
    h, w = 72, 128
    back, front = _texture(h, w + 200, 1), _texture(h, w + 200, 2)
    out = []
    for i in range(frames):
        frame = back[:, far_px * i: far_px * i + w].copy()
        patch = front[:, near_px * i: near_px * i + w]
        frame[20:50, 44:84] = patch[20:50, 44:84]
        out.append(np.repeat(frame[None], 3, 0))
    return torch.from_numpy(np.stack(out))


def test_the_bottom_of_a_plain_frame_is_nearer_than_the_top():
    est = _estimator()
    w, h = est.input_size(640, 360)
    assert (w, h) == (384, 216)  # three times the working size: a shot start is read there
    depth = est.estimate(torch.full((1, 3, h, w), 0.5))
    assert depth.shape == (1, 1, 72, 128)
    assert float(depth[0, 0, -5:].mean()) > float(depth[0, 0, :5].mean())


def test_on_a_moving_camera_what_moves_more_is_nearer():
    depth = _estimator().estimate(_truck(12, near_px=4, far_px=1))[-1, 0]
    assert float(depth[25:45, 50:78].mean()) > float(depth[25:45, 5:30].mean()) + 0.1


def test_a_pure_pan_gives_no_motion_depth():
    still = _estimator().estimate(_truck(1, near_px=2, far_px=2))[-1, 0]
    pan = _estimator().estimate(_truck(12, near_px=2, far_px=2))[-1, 0]
    assert float((pan - still).abs().mean()) < 0.05


def test_a_static_scene_gives_the_same_depth_every_frame():
    est = _estimator()
    frame = torch.rand(1, 3, 72, 128)
    first = est.estimate(frame)
    for _ in range(3):
        again = est.estimate(frame)
    assert torch.allclose(first, again, atol=1e-5)


def test_its_memory_carries_over_to_a_fresh_estimator_like_an_unbroken_run():
    frames = _truck(10, near_px=4, far_px=1)
    whole = _estimator().estimate(frames)
    first = _estimator()
    first.estimate(frames[:6])
    state = first.state()
    import json

    resumed = _estimator()
    resumed.restore(json.loads(json.dumps(state)))  # JSON, as it travels between segments
    fresh = _estimator().estimate(frames[6:])
    carried = resumed.estimate(frames[6:])
    # float16 in the state: close to the unbroken run, unlike a fresh start
    assert float((carried - whole[6:]).abs().max()) < 0.01
    assert float((fresh - whole[6:]).abs().max()) > 0.05


def test_a_malformed_state_is_ignored():
    est = _estimator()
    est.restore({"shape": [2, 2], "gray": "not base64!", "depth": ""})
    est.restore({"gray": "AAAA"})
    assert est.state() is None


def test_the_first_frame_of_a_moving_shot_already_has_its_parallax():
    depth = _estimator().estimate(_truck(4, near_px=4, far_px=1))[0, 0]
    assert float(depth[25:45, 50:78].mean()) > float(depth[25:45, 5:30].mean()) + 0.1


def test_a_cut_starts_afresh_instead_of_holding_the_last_shots_depth():
    est = _estimator()
    est.estimate(_truck(8, near_px=4, far_px=1))  # a near square in the middle
    other = torch.from_numpy(np.repeat(_texture(72, 128, 9)[None, None], 3, 1))
    after_cut = est.estimate(other)[0, 0]
    fresh = _estimator().estimate(other)[0, 0]
    assert float((after_cut - fresh).abs().max()) < 1e-5


def test_a_still_shots_depth_is_the_ramp_bottom_nearest():
    still = torch.from_numpy(np.repeat(_texture(72, 128, 9)[None, None], 3, 1)).repeat(4, 1, 1, 1)
    depth = _estimator().estimate(still)[-1, 0].numpy()
    rows = depth.mean(1)
    assert np.all(np.diff(rows) > 0)  # each row nearer than the one above it
    assert float(depth.std(1).mean()) < 0.1 * float(rows[-1] - rows[0])  # level across


def test_a_state_written_with_a_static_cue_by_an_older_engine_still_resumes():
    frames = _truck(10, near_px=4, far_px=1)
    first = _estimator()
    first.estimate(frames[:5])
    state = first.state()
    state["static"] = state["cue"]  # as an older engine wrote it
    resumed = _estimator()
    resumed.restore(state)
    unbroken = first.estimate(frames[5:6])
    span = float(unbroken.max() - unbroken.min())
    # as the unbroken run, up to the state's float16 and the past frames it leaves behind
    assert float((resumed.estimate(frames[5:6]) - unbroken).abs().max()) < 0.05 * span


def test_in_a_still_shot_the_depth_of_what_does_not_move_stays_put(still_walls):
    from stereo_inference.depth.still_camera import SETTLING_FRAMES

    frames, walls = still_walls(24)
    est = _estimator()
    depth = torch.cat([est.estimate(frames[i:i + 8]) for i in range(0, 24, 8)])[:, 0].numpy()
    assert walls.mean() > 0.3
    settled = depth[SETTLING_FRAMES:]
    # (before: DIS's guesses on the flat walls read as a camera moving ~0.3 px a
    # frame, and every new estimate's noise moved the walls by up to 0.13)
    assert float(np.abs(np.diff(settled, axis=0))[:, walls].max()) < 1e-6


def test_a_still_shots_memory_of_recent_change_travels_with_the_state(still_walls):
    import json

    frames, _ = still_walls(14)
    whole = _estimator().estimate(frames)
    first = _estimator()
    first.estimate(frames[:8])
    state = json.loads(json.dumps(first.state()))
    assert "recent" in state
    resumed = _estimator()
    resumed.restore(state)
    carried = resumed.estimate(frames[8:])
    del state["recent"]  # as an older engine wrote it: still runs
    older = _estimator()
    older.restore(state)
    assert older.estimate(frames[8:]).shape == carried.shape
    assert float((carried - whole[8:]).abs().max()) < 0.01


def _zoomed(rgb: np.ndarray, step: float, frames: int, size: tuple[int, int]) -> np.ndarray:
    """(n,h,w,3) frames at ``size``: the photograph magnified about its centre
    by ``step`` more each frame (a lens zooming in: no parallax at all)."""
    h, w = rgb.shape[:2]
    return np.stack([cv2.resize(cv2.warpAffine(
        rgb, cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), 0, 1 + step * k), (w, h),
        borderMode=cv2.BORDER_REFLECT), size, interpolation=cv2.INTER_AREA)
        for k in range(frames)])


def _depth_of(frames: np.ndarray) -> np.ndarray:
    rgb = torch.from_numpy(frames).permute(0, 3, 1, 2).float() / 255
    return _estimator().estimate(rgb)[:, 0].numpy()


@pytest.mark.skipif(not real_scene.available(), reason="real scenes not in this checkout")
def test_a_zoom_has_no_parallax_so_its_depth_is_the_ramp():
    """A zoom moves every point away from the centre in proportion to its
    distance, as a forward move past one depth would: read in pixels, that
    growth passed for parallax and the shot's depth was noise (0.49 on the
    motorcycle against the ramp's 0.79). Control: the same photograph with
    the camera carried straight in has parallax, and its depth beats the ramp."""
    rgb, disparity = real_scene.motorcycle()
    size = _estimator().input_size(disparity.shape[1], disparity.shape[0])
    zoom = _depth_of(_zoomed(rgb, 0.004, 12, size))
    ramp = np.broadcast_to(np.linspace(0, 1, zoom.shape[1], dtype=np.float32)[:, None],
                           zoom.shape[1:])
    assert real_scene.ordinal(zoom[0], disparity) > real_scene.ordinal(ramp, disparity) - 0.02
    assert float(np.abs(zoom - ramp).mean()) < 0.03
    step = disparity.shape[1] / size[0]  # 1 px a frame at the input size
    pushed = _depth_of(real_scene.pushed_in(rgb, disparity, [k * step for k in range(12)], size))
    assert real_scene.ordinal(pushed[0], disparity) > real_scene.ordinal(ramp, disparity) + 0.1
